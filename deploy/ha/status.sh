#!/usr/bin/env bash
# status.sh BASE_DIR: the cluster as Patroni sees it (patronictl list: each node's role,
# state, timeline and lag; the synchronous standby shows as "Sync Standby"), then which
# server HAProxy sends the primary's connections to.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ha_load "${1:-}"
[ -n "$(pid_of etcd "$BASE/etcd")" ] || die "etcd is not running: the deployment is down (up.sh $BASE starts it)"
as_user patronictl -c "$(node_config 1)" list

if [ -n "$(pid_of haproxy "$ETC/haproxy.cfg")" ]; then
    # HAProxy's statistics as CSV: proxy, server, ..., status (field 18).
    curl -s -m 2 "http://127.0.0.1:$HA_STATS_PORT/;csv" |
        awk -F, '$1 == "primary" && $2 ~ /^node/ { printf "HAProxy %s -> %s: %s\n", $1, $2, $18 }'
else
    echo "HAProxy is not running"
fi
