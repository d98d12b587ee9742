#!/usr/bin/env bash
# kill-primary.sh BASE_DIR [postgres|node]: a failure drill. Finds the node whose Patroni runs
# the primary and SIGKILLs, with no chance to clean up:
#   postgres (the default): its postmaster and every PostgreSQL process under it. Patroni
#     stays, sees PostgreSQL gone and hands the leader key to the synchronous standby at once
#     (primary_start_timeout is 0), then rewinds the old primary and brings it back as a
#     standby.
#   node: its Patroni first, then its PostgreSQL, as when the machine is lost. The leader key
#     expires after the TTL (HA_TTL, 10 s here) and the synchronous standby takes it. The
#     node stays down until up.sh BASE_DIR is run again, when it rejoins as a standby.
# HAProxy's check of GET /primary then sends new connections to the new primary.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ha_load "${1:-}"
mode=${2:-postgres}
case "$mode" in
    postgres | node) ;;
    *) die "usage: $(basename "$0") BASE_DIR [postgres|node]" ;;
esac

leader=$(leader_node)
[ -n "$leader" ] || die "no node runs a primary now (see status.sh $BASE)"
postmaster=$(postmaster_of "$leader")
[ -n "$postmaster" ] || die "node$leader's PostgreSQL is not running"

if [ "$mode" = node ]; then
    patroni=$(pid_of "patroni-node$leader" "$(node_config "$leader")")
    if [ -n "$patroni" ]; then
        kill -KILL "$patroni"
        note "SIGKILLed node$leader's Patroni (pid $patroni)"
    fi
fi

# The postmaster and its children together: on a lost machine they all vanish at once.
mapfile -t children < <(ps -o pid= --ppid "$postmaster" | tr -d ' ')
kill -KILL "$postmaster" "${children[@]}" 2>/dev/null || true
note "$(date +%H:%M:%S.%N | cut -c1-12) SIGKILLed node$leader's PostgreSQL (postmaster $postmaster and ${#children[@]} processes under it)"
