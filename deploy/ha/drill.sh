#!/usr/bin/env bash
# drill.sh BASE_DIR [postgres|node]: a failover drill with a writer, as a client sees it.
# Inserts a row through HAProxy's primary address every 50 ms (a new psql connection each
# time, as a client reconnecting after any error would), kills the primary with
# kill-primary.sh after a few seconds, goes on writing until writes have succeeded again for
# a while, then reports:
#   - the pause: the longest time between two successful inserts, and from the kill to the
#     first success after it;
#   - lost: inserts that psql reported committed (acknowledged) but that are not in the table
#     afterwards. With synchronous replication this must be 0;
#   - the old and the new leader.
# Exits non-zero when an acknowledged insert was lost or no new primary took over.
# HA_DRILL_BEFORE (5) and HA_DRILL_AFTER (10): seconds of writing before the kill and of
# successful writing after the first success that follows it; HA_DRILL_MAX (120): give up.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ha_load "${1:-}"
mode=${2:-postgres}
before=${HA_DRILL_BEFORE:-5}
after=${HA_DRILL_AFTER:-10}
max=${HA_DRILL_MAX:-120}

run="drill-$(date +%Y%m%dT%H%M%S)-$mode"
work=$BASE/log/$run
mkdir -p "$work"
acked=$work/acked.txt     # id and client time (ms) of each insert psql reported committed
failed=$work/failed.txt   # client time (ms) and the error of each insert that failed
: >"$acked"
: >"$failed"

psql_primary "create table if not exists drill (
    id bigserial primary key,
    run text not null,
    at timestamptz not null default clock_timestamp())"

old_leader=$(leader_node)
[ -n "$old_leader" ] || die "no primary to start with"
note "run $run: writing every 50 ms through 127.0.0.1:$HA_PORT, primary node$old_leader; logs in $work"

now_ms() { date +%s%3N; }

start=$(now_ms)
killed=""
first_after=""
while :; do
    t=$(now_ms)
    if out=$(PGCONNECT_TIMEOUT=2 timeout 5 psql "$PRIMARY_URL" -X -q -At -v ON_ERROR_STOP=1 \
        -c "insert into drill (run) values ('$run') returning id" 2>&1); then
        echo "$out $(now_ms)" >>"$acked"
        if [ -n "$killed" ] && [ -z "$first_after" ]; then
            first_after=$(now_ms)
        fi
    else
        echo "$t ${out//$'\n'/ }" >>"$failed"
    fi
    if [ -z "$killed" ] && [ $((t - start)) -ge $((before * 1000)) ]; then
        "$(dirname "$0")/kill-primary.sh" "$BASE" "$mode"
        killed=$(now_ms)
    fi
    if [ -n "$first_after" ] && [ $((t - first_after)) -ge $((after * 1000)) ]; then
        break
    fi
    if [ $((t - start)) -ge $((max * 1000)) ]; then
        note "no successful insert within ${max}s: giving up"
        break
    fi
    sleep 0.05
done

# The longest stretch without a successful insert, and where it was.
gap=$(awk 'NR > 1 { d = $2 - prev; if (d > max) { max = d } } { prev = $2 } END { printf "%.2f", max / 1000 }' "$acked")
if [ -n "$first_after" ]; then
    outage=$(awk -v a="$killed" -v b="$first_after" 'BEGIN { printf "%.2f", (b - a) / 1000 }')
else
    outage="never"
fi

# Every acknowledged id must be in the table.
present=$work/present.txt
psql_primary "select id from drill where run = '$run' order by id" >"$present"
lost=$(comm -23 <(awk '{ print $1 }' "$acked" | sort) <(sort "$present") | wc -l)
extra=$(comm -13 <(awk '{ print $1 }' "$acked" | sort) <(sort "$present") | wc -l)

new_leader=$(leader_node)
"$(dirname "$0")/status.sh" "$BASE" || true
cat <<EOF

drill $run ($mode)
  inserts acknowledged: $(wc -l <"$acked"), failed: $(wc -l <"$failed")
  longest pause between acknowledged inserts: ${gap}s; from the kill to the first success: ${outage}s
  acknowledged but missing (lost): $lost
  present though the client saw an error (committed, acknowledgement lost in the crash): $extra
  leader before: node$old_leader, after: node${new_leader:-none}
EOF
[ "$lost" = 0 ] || die "acknowledged inserts were lost"
if [ -z "$new_leader" ] || [ "$new_leader" = "$old_leader" ]; then
    die "no new leader took over"
fi
