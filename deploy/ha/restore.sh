#!/usr/bin/env bash
# restore.sh BASE_DIR TARGET_DIR [PGBACKREST_RESTORE_OPTIONS...]: the restore drill. Restores
# the latest pgBackRest backup of the deployment in BASE_DIR into TARGET_DIR (a new, empty or
# missing directory), replays the archived WAL after it, and starts it as a standalone
# PostgreSQL on HA_RESTORE_PORT (5449), with archiving off so it never writes to the
# repository, and prints every table's row count to show what came back. Then it stops that
# PostgreSQL, unless HA_RESTORE_KEEP=1 (down.sh stops it then).
#
# By default the WAL is replayed to the end of the archive; while the deployment's primary is
# reachable, its current WAL segment is archived first, so the restore holds everything
# committed until now. Point-in-time recovery: pass pgBackRest's options, e.g.
#   restore.sh BASE_DIR TARGET_DIR --type=time "--target=2026-01-31 12:00:00+00"
# The live cluster is never touched: this is how a backup is proved, and how data is
# brought back after a loss that replication cannot undo (a dropped table, all nodes lost).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ha_load "${1:-}"
[ -n "${2:-}" ] || die "usage: $(basename "$0") BASE_DIR TARGET_DIR [PGBACKREST_RESTORE_OPTIONS...]"
target=$2
case "$target" in
    /*) ;;
    *) target="$PWD/$target" ;;
esac
target=${target%/}
shift 2
case "$target" in
    *[[:space:]\'\"]*) die "TARGET_DIR must not contain spaces or quotes" ;;
esac

if [ -e "$target" ] && [ -n "$(ls -A "$target")" ]; then
    die "$target is not empty: restore into a new directory"
fi
if [ -n "$(pid_of restored-postgres "$HA_PG_BIN/postgres")" ]; then
    die "a restored PostgreSQL already runs on port $HA_RESTORE_PORT: down.sh $BASE stops it"
fi
if port_taken "$HA_RESTORE_PORT"; then
    die "port $HA_RESTORE_PORT (HA_RESTORE_PORT) is taken"
fi

started=$(date +%s.%N)
if [ -n "$(leader_node)" ]; then
    # pgBackRest's check switches to a new WAL segment and waits until it is archived.
    pgbackrest_cmd check >/dev/null && note "the primary's current WAL is archived"
fi

mkdir -p "$target"
chown "$HA_USER:" "$target"
chmod 700 "$target"
pgbackrest_cmd --pg1-path="$target" restore "$@"
note "files restored in $(since "$started")s"

# A configuration of its own (not the node's, which names the node's port, log file,
# archive_command and synchronous standby), given on the command line over initdb's defaults.
# pg_ctl hands -o to a shell: one line, each value quoted.
options=(
    "-c config_file='$target/postgresql.base.conf'"
    "-c hba_file='$target/pg_hba.conf'"
    "-c ident_file='$target/pg_ident.conf'"
    "-c listen_addresses=127.0.0.1"
    "-c port=$HA_RESTORE_PORT"
    "-c unix_socket_directories='$RUN'"
    "-c archive_mode=off"
    "-c synchronous_standby_names=''"
    "-c logging_collector=off"
    "-c cluster_name=$HA_SCOPE-restored"
)
# Recovery refuses to run with fewer connections, workers, WAL senders, prepared transactions
# or locks than the primary had (Patroni sets them on the command line): take them from the
# restored pg_control.
controldata=$(as_user pg_controldata "$target")
setting() { awk -F': *' -v name="$1 setting" '$1 == name { print $2 }' <<<"$controldata"; }
options+=(
    "-c max_connections=$(setting max_connections)"
    "-c max_worker_processes=$(setting max_worker_processes)"
    "-c max_wal_senders=$(setting max_wal_senders)"
    "-c max_prepared_transactions=$(setting max_prepared_xacts)"
    "-c max_locks_per_transaction=$(setting max_locks_per_xact)"
)
log_file=$LOG/restored-postgresql.log
as_user pg_ctl start -w -t 300 -D "$target" -l "$log_file" -o "${options[*]}" >/dev/null ||
    die "the restored PostgreSQL did not start; see $log_file"
head -n 1 "$target/postmaster.pid" >"$RUN/restored-postgres.pid"
chown "$HA_USER:" "$RUN/restored-postgres.pid"

# Recovery ends with a promotion; wait for the restored server to accept writes.
url=postgres://postgres@127.0.0.1:$HA_RESTORE_PORT
for _ in $(seq 1 300); do
    [ "$(psql "$url/postgres" -X -At -c 'select pg_is_in_recovery()' 2>/dev/null || true)" = f ] && break
    sleep 0.2
done
note "restored PostgreSQL up on 127.0.0.1:$HA_RESTORE_PORT, recovered after $(since "$started")s"

echo "tables and row counts in the restored copy:"
for db in $(psql "$url/postgres" -X -At -c "select datname from pg_database where datallowconn and not datistemplate order by 1"); do
    psql "$url/$db" -X -At -F ' ' -c "
        select '  $db.' || table_schema || '.' || table_name,
               (xpath('/row/c/text()', query_to_xml(
                   format('select count(*) as c from %I.%I', table_schema, table_name),
                   false, true, '')))[1]::text
        from information_schema.tables
        where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')
        order by 1"
done

if [ "${HA_RESTORE_KEEP:-0}" = 1 ]; then
    note "left running: psql $url/postgres (down.sh $BASE stops it)"
else
    as_user pg_ctl stop -D "$target" -m fast >/dev/null
    rm -f "$RUN/restored-postgres.pid"
    note "stopped the restored PostgreSQL; its data stays in $target"
fi
