#!/usr/bin/env bash
# down.sh BASE_DIR: stops everything up.sh (and restore.sh) started for the deployment in
# BASE_DIR, by its pid files, and leaves the data in place (up.sh BASE_DIR starts it again;
# delete BASE_DIR to throw it away). Safe to run again, or on a deployment half up or half
# killed: what is not running is skipped.
#
# Order: HAProxy (no new connections), then each Patroni (SIGTERM makes it stop its
# PostgreSQL cleanly), then any PostgreSQL left without its Patroni (kill-primary.sh's
# leftovers), then etcd last, since Patroni needs it until the end.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ha_base "${1:-}"
if [ ! -f "$BASE/ha.env" ]; then
    note "nothing to stop: $BASE has no deployment"
    exit 0
fi
ha_load "$BASE"

pid=$(pid_of haproxy "$ETC/haproxy.cfg")
[ -z "$pid" ] || stop_pid "$pid" haproxy 10

# Every Patroni at once (stopping one at a time would make the others fail over to each
# other on the way down), then wait for each.
pids=()
for n in $(seq 1 "$NODES"); do
    pid=$(pid_of "patroni-node$n" "$(node_config "$n")")
    if [ -n "$pid" ]; then
        kill -TERM "$pid" 2>/dev/null || true
        pids+=("$n:$pid")
    fi
done
for entry in "${pids[@]}"; do
    stop_pid "${entry#*:}" "patroni-node${entry%%:*}" 60
done

for n in $(seq 1 "$NODES"); do
    pid=$(postmaster_of "$n")
    if [ -n "$pid" ]; then
        # SIGINT: PostgreSQL's fast shutdown (open transactions rolled back, then clean).
        stop_pid "$pid" "node$n's PostgreSQL" 30 INT
    fi
done

# A standalone PostgreSQL that restore.sh left running (HA_RESTORE_KEEP=1).
if [ -f "$RUN/restored-postgres.pid" ]; then
    pid=$(pid_of restored-postgres "$HA_PG_BIN/postgres")
    if [ -n "$pid" ]; then
        stop_pid "$pid" "the restored PostgreSQL" 30 INT
    fi
    rm -f "$RUN/restored-postgres.pid"
fi

pid=$(pid_of etcd "$BASE/etcd")
[ -z "$pid" ] || stop_pid "$pid" etcd 10

rm -f "$RUN"/*.pid
note "stopped; the data stays in $BASE"
