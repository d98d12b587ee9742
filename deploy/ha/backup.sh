#!/usr/bin/env bash
# backup.sh BASE_DIR [full|diff|incr]: a pgBackRest backup of the deployment in BASE_DIR
# (full by default), taken from whichever node is the primary now, into the repository under
# BASE_DIR/pgbackrest/repo; then the repository's list of backups and WAL archive range.
# Together with the WAL that every primary archives continuously (archive_command), a backup
# can be restored to any moment since it was taken: see restore.sh.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ha_load "${1:-}"
type=${2:-full}
case "$type" in
    full | diff | incr) ;;
    *) die "usage: $(basename "$0") BASE_DIR [full|diff|incr]" ;;
esac

started=$(date +%s.%N)
# stanza-create is idempotent; it matters only if up.sh never got that far.
pgbackrest_cmd stanza-create >/dev/null
pgbackrest_cmd --type="$type" backup
note "$type backup taken in $(since "$started")s"
pgbackrest_cmd info
