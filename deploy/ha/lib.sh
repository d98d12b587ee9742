# shellcheck shell=bash
# Shared by the scripts in deploy/ha/ (sourced, never run): the settings of one HA deployment
# on one machine, and the helpers that start, find and stop its processes.
#
# A deployment lives in one base directory: its settings (ha.env, written by up.sh on first
# start and read by every other script, so later runs use the same ports whatever the
# environment says), the configuration files (etc/), the data (etcd/, pg/nodeN/, pgbackrest/),
# the logs (log/) and the pid files and sockets (run/). Nothing outside it is written, and
# nothing is started on a port that is already taken: the machine's own PostgreSQL on 5432
# is never touched.

die() {
    echo "$(basename "$0"): $*" >&2
    exit 1
}

note() {
    echo "$(basename "$0"): $*"
}

# since START: seconds (one decimal) from START, a `date +%s.%N`, to now.
since() {
    awk -v start="$1" -v now="$(date +%s.%N)" 'BEGIN { printf "%.1f", now - start }'
}

# ha_base BASE_DIR: the absolute path of the base directory (which need not exist yet).
ha_base() {
    [ -n "${1:-}" ] || die "usage: $(basename "$0") BASE_DIR"
    local base=$1
    case "$base" in
        /*) ;;
        *) base="$PWD/$base" ;;
    esac
    case "$base" in
        *[[:space:]\'\"]*) die "BASE_DIR must not contain spaces or quotes: $base" ;;
    esac
    BASE=${base%/}
}

# ha_defaults: the settings and their defaults; each may be given in the environment when a
# deployment is first brought up.
ha_defaults() {
    HA_PG_PORTS=${HA_PG_PORTS:-"5441 5442 5443"}   # one PostgreSQL node per port (2 or 3)
    HA_REST_PORTS=${HA_REST_PORTS:-"8011 8012 8013"} # each node's Patroni REST API
    HA_ETCD_CLIENT_PORT=${HA_ETCD_CLIENT_PORT:-2381}
    HA_ETCD_PEER_PORT=${HA_ETCD_PEER_PORT:-2382}
    HA_PORT=${HA_PORT:-5440}                 # HAProxy: always the current primary (read-write)
    HA_REPLICA_PORT=${HA_REPLICA_PORT:-5444} # HAProxy: the standbys (read-only)
    HA_STATS_PORT=${HA_STATS_PORT:-8010}     # HAProxy's statistics page
    HA_RESTORE_PORT=${HA_RESTORE_PORT:-5449} # restore.sh's standalone PostgreSQL
    HA_PG_BIN=${HA_PG_BIN:-/usr/lib/postgresql/15/bin}
    HA_SCOPE=${HA_SCOPE:-theboss}            # the Patroni cluster's name and pgBackRest's stanza
    HA_TTL=${HA_TTL:-10}                     # seconds the leader key lives without renewal
    HA_LOOP_WAIT=${HA_LOOP_WAIT:-2}          # seconds between Patroni's checks
    HA_RETRY_TIMEOUT=${HA_RETRY_TIMEOUT:-4}  # seconds Patroni retries etcd and PostgreSQL
    if [ "$(id -u)" = 0 ]; then
        HA_USER=${HA_USER:-postgres}         # PostgreSQL refuses to run as root
    else
        HA_USER=${HA_USER:-$(id -un)}
    fi
}

HA_SETTINGS=(HA_PG_PORTS HA_REST_PORTS HA_ETCD_CLIENT_PORT HA_ETCD_PEER_PORT HA_PORT
    HA_REPLICA_PORT HA_STATS_PORT HA_RESTORE_PORT HA_PG_BIN HA_SCOPE HA_TTL HA_LOOP_WAIT
    HA_RETRY_TIMEOUT HA_USER)

# ha_save: writes the settings in force to BASE/ha.env.
ha_save() {
    local name
    {
        echo "# Settings of the HA deployment in this directory, written by up.sh."
        for name in "${HA_SETTINGS[@]}"; do
            printf '%s=%q\n' "$name" "${!name}"
        done
    } >"$BASE/ha.env"
}

# ha_load BASE_DIR: the base directory's settings (it must have been brought up once).
ha_load() {
    ha_base "$1"
    [ -f "$BASE/ha.env" ] || die "$BASE has no deployment (no ha.env): run up.sh $BASE first"
    # shellcheck source=/dev/null
    . "$BASE/ha.env"
    ha_layout
}

# ha_layout: the node list and the paths, from the settings (for the scripts that source this).
# shellcheck disable=SC2034
ha_layout() {
    read -r -a PG_PORTS <<<"$HA_PG_PORTS"
    read -r -a REST_PORTS <<<"$HA_REST_PORTS"
    NODES=${#PG_PORTS[@]}
    if [ "$NODES" -lt 2 ] || [ "$NODES" -gt 3 ]; then
        die "HA_PG_PORTS must list 2 or 3 ports"
    fi
    [ "${#REST_PORTS[@]}" = "$NODES" ] || die "HA_REST_PORTS must list one port per node"
    ETC=$BASE/etc
    RUN=$BASE/run
    LOG=$BASE/log
    PGDATA_ROOT=$BASE/pg
    BACKREST=$BASE/pgbackrest
    ETCD_URL=http://127.0.0.1:$HA_ETCD_CLIENT_PORT
    PRIMARY_URL=postgres://postgres@127.0.0.1:$HA_PORT/postgres
    export PATH="$HA_PG_BIN:$PATH"
}

# node_data N, node_pid N...: where node N (1-based) keeps its data, pid file and config.
node_data() { echo "$PGDATA_ROOT/node$1"; }
node_config() { echo "$ETC/patroni-node$1.yml"; }
node_pg_port() { echo "${PG_PORTS[$(($1 - 1))]}"; }
node_rest_port() { echo "${REST_PORTS[$(($1 - 1))]}"; }

# as_user CMD...: runs CMD as the deployment's user, with a clean environment.
as_user() {
    local env=(env -i "PATH=$HA_PG_BIN:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin" "HOME=$BASE" LANG=C.UTF-8 LC_ALL=C.UTF-8)
    if [ "$(id -un)" = "$HA_USER" ]; then
        "${env[@]}" "$@"
    else
        setpriv --reuid="$HA_USER" --regid="$HA_USER" --init-groups "${env[@]}" "$@"
    fi
}

# alive PID: whether process PID runs (a zombie, dead but not yet reaped, does not).
alive() {
    local state
    state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null || true)
    [ -n "$state" ] && [ "$state" != Z ]
}

# pid_of NAME MATCH: the pid in run/NAME.pid when that process still runs and its command line
# contains MATCH (not some other process that got the same pid), else nothing.
pid_of() {
    local file=$RUN/$1.pid pid
    [ -f "$file" ] || return 0
    pid=$(head -n 1 "$file")
    if [ -n "$pid" ] && alive "$pid" && grep -qa -- "$2" "/proc/$pid/cmdline" 2>/dev/null; then
        echo "$pid"
    fi
}

# postmaster_of N: the pid of node N's postmaster when it runs (from its postmaster.pid).
postmaster_of() {
    local file pid
    file=$(node_data "$1")/postmaster.pid
    [ -f "$file" ] || return 0
    pid=$(head -n 1 "$file" 2>/dev/null || true)
    if [ -n "$pid" ] && alive "$pid" && grep -qa -- "$(node_data "$1")" "/proc/$pid/cmdline" 2>/dev/null; then
        echo "$pid"
    fi
}

# start_daemon NAME MATCH CMD...: starts CMD in the background as the deployment's user, in
# its own session (so it outlives this script and the terminal), logging to log/NAME.log and
# writing its pid to run/NAME.pid. Does nothing when it already runs. MATCH is a string of
# its command line that tells it from another process that got the same pid.
start_daemon() {
    local name=$1 match=$2
    shift 2
    if [ -n "$(pid_of "$name" "$match")" ]; then
        note "$name already runs (pid $(pid_of "$name" "$match"))"
        return 0
    fi
    # The shell writes its own pid, then becomes CMD: the pid file holds CMD's pid.
    # shellcheck disable=SC2016
    as_user setsid sh -c 'echo $$ >"$0"; exec "$@"' "$RUN/$name.pid" "$@" \
        </dev/null >>"$LOG/$name.log" 2>&1 &
    local _
    for _ in $(seq 1 50); do
        [ -n "$(pid_of "$name" "$match")" ] && return 0
        sleep 0.1
    done
    die "$name did not start; see $LOG/$name.log"
}

# stop_pid PID WHAT [SECONDS [SIGNAL]]: sends SIGNAL (TERM), then SIGKILL if it still runs
# after SECONDS (30).
stop_pid() {
    local pid=$1 what=$2 wait=${3:-30} signal=${4:-TERM}
    local ticks=$((wait * 10))
    kill "-$signal" "$pid" 2>/dev/null || true
    while [ "$ticks" -gt 0 ]; do
        if ! alive "$pid"; then
            note "stopped $what (pid $pid)"
            return 0
        fi
        sleep 0.1
        ticks=$((ticks - 1))
    done
    kill -KILL "$pid" 2>/dev/null || true
    note "killed $what (pid $pid): it did not stop on SIG$signal within ${wait}s"
}

# port_taken PORT: whether something listens on 127.0.0.1:PORT.
port_taken() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# rest_code N PATH: the HTTP status of node N's Patroni REST API at PATH (000: no answer).
rest_code() {
    curl -s -o /dev/null -m 2 -w '%{http_code}' "http://127.0.0.1:$(node_rest_port "$1")$2" || true
}

# leader_node: the number of the node whose Patroni says it runs the primary, if any.
leader_node() {
    local n
    for n in $(seq 1 "$NODES"); do
        if [ "$(rest_code "$n" /primary)" = 200 ]; then
            echo "$n"
            return 0
        fi
    done
}

# psql_primary SQL: runs SQL through HAProxy's primary port; prints unaligned rows.
psql_primary() {
    psql "$PRIMARY_URL" -X -q -At -v ON_ERROR_STOP=1 -c "$1"
}

# pgbackrest_cmd ARGS...: pgBackRest with this deployment's configuration, as its user.
pgbackrest_cmd() {
    as_user pgbackrest --config="$ETC/pgbackrest.conf" --stanza="$HA_SCOPE" "$@"
}
