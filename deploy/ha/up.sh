#!/usr/bin/env bash
# up.sh BASE_DIR: brings up a highly available PostgreSQL 15 on this machine, for tests and
# development: one etcd member (Patroni's store of who leads), two or three PostgreSQL nodes
# each run by Patroni with synchronous replication (an acknowledged commit is on two nodes),
# HAProxy in front (one address that always reaches the current primary, found through
# Patroni's REST API), and pgBackRest's repository for backups and WAL archiving.
#
# Everything lives under BASE_DIR (see lib.sh) and runs in the background with pid files, so
# down.sh stops it. On a directory that was brought up before, it starts whatever is not
# running (a node that kill-primary.sh took down comes back and rejoins as a standby), with
# the settings it was first brought up with. It returns once HAProxy serves a writable primary
# that has a synchronous standby and every standby streams, and prints the connection URL.
#
# Settings (environment, read on first start only; defaults in lib.sh): HA_PG_PORTS (two or
# three ports, one node each), HA_REST_PORTS, HA_ETCD_CLIENT_PORT, HA_ETCD_PEER_PORT,
# HA_PORT (the primary), HA_REPLICA_PORT, HA_STATS_PORT, HA_RESTORE_PORT, HA_PG_BIN, HA_SCOPE,
# HA_TTL, HA_LOOP_WAIT, HA_RETRY_TIMEOUT, HA_USER. HA_UP_TIMEOUT: seconds to wait (180).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

started=$(date +%s.%N)
ha_base "${1:-}"
if [ -f "$BASE/ha.env" ]; then
    ha_load "$BASE"
    note "using the settings in $BASE/ha.env"
else
    ha_defaults
    ha_layout
fi

for tool in etcd etcdctl patroni patronictl haproxy pgbackrest curl psql "$HA_PG_BIN/postgres"; do
    command -v "$tool" >/dev/null || die "$tool is missing: run .ci/install-ha (as root) first"
done
getent passwd "$HA_USER" >/dev/null || die "no user $HA_USER to run PostgreSQL as"

if [ ! -f "$BASE/ha.env" ] && [ -d "$BASE" ] && [ -n "$(ls -A "$BASE")" ]; then
    die "$BASE is not empty and holds no deployment: give a new or empty directory"
fi
mkdir -p "$BASE"
[ -f "$BASE/ha.env" ] || ha_save
mkdir -p "$ETC" "$RUN" "$LOG" "$PGDATA_ROOT" "$BASE/etcd" "$BACKREST"/{repo,log,lock,spool}
chmod 700 "$BASE/etcd"
chown "$HA_USER:" "$BASE" "$ETC" "$RUN" "$LOG" "$PGDATA_ROOT" "$BASE/etcd" "$BACKREST" "$BACKREST"/*
as_user test -w "$BASE" || die "$HA_USER cannot write $BASE (is a parent directory closed to it?)"

# require_free PORT WHAT: fails when PORT is taken by something that is not ours.
require_free() {
    if port_taken "$1"; then
        die "port $1 ($2) is taken by another process: choose other ports (lib.sh) for a new BASE_DIR; this one's are in $BASE/ha.env"
    fi
}

write_patroni_config() {
    local n=$1 data pg_port rest_port
    data=$(node_data "$n")
    pg_port=$(node_pg_port "$n")
    rest_port=$(node_rest_port "$n")
    local backrest="/usr/bin/pgbackrest --config=$ETC/pgbackrest.conf --stanza=$HA_SCOPE --pg1-path=$data"
    cat >"$(node_config "$n")" <<EOF
# Patroni's configuration of node $n, written by deploy/ha/up.sh.
scope: $HA_SCOPE
namespace: /service/
name: node$n

log:
  level: INFO

restapi:
  listen: 127.0.0.1:$rest_port
  connect_address: 127.0.0.1:$rest_port

etcd3:
  hosts: 127.0.0.1:$HA_ETCD_CLIENT_PORT

# Used by the node that initializes the cluster; afterwards this lives in etcd and is changed
# with patronictl edit-config.
bootstrap:
  dcs:
    ttl: $HA_TTL
    loop_wait: $HA_LOOP_WAIT
    retry_timeout: $HA_RETRY_TIMEOUT
    maximum_lag_on_failover: 1048576
    # A commit is acknowledged once a synchronous standby has it too, and only that standby
    # may be promoted: a failover loses no acknowledged commit.
    synchronous_mode: true
    synchronous_mode_strict: false
    # If etcd cannot be reached, the primary stays primary while it reaches every other
    # node's Patroni (no failover can happen meanwhile); without it, it would step down.
    failsafe_mode: true
    # A primary whose PostgreSQL crashed hands over to the synchronous standby at once
    # instead of first trying to restart in place (lossless with synchronous_mode).
    primary_start_timeout: 0
    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters:
        max_connections: 200
        wal_level: replica
        hot_standby: "on"
        wal_log_hints: "on"
        max_wal_senders: 10
        max_replication_slots: 10
        wal_keep_size: 256MB
        archive_mode: "on"
        archive_timeout: 60
  initdb:
    - encoding: UTF8
    - locale: C.UTF-8
    - data-checksums

postgresql:
  listen: 127.0.0.1:$pg_port
  connect_address: 127.0.0.1:$pg_port
  data_dir: $data
  bin_dir: $HA_PG_BIN
  pgpass: $RUN/pgpass-node$n
  # Trust on loopback only: a test deployment. In production use scram-sha-256 and passwords.
  pg_hba:
    - local all all trust
    - local replication all trust
    - host all all 127.0.0.1/32 trust
    - host replication replicator 127.0.0.1/32 trust
  authentication:
    superuser:
      username: postgres
    replication:
      username: replicator
  parameters:
    unix_socket_directories: $RUN
    logging_collector: "on"
    log_directory: $LOG
    log_filename: node$n-postgresql.log
    log_line_prefix: "%m [%p] %q%u@%d "
    # Each node archives its own WAL while it is the primary.
    archive_command: $backrest archive-push %p
  recovery_conf:
    restore_command: $backrest archive-get %f "%p"
  create_replica_methods:
    - basebackup
  basebackup:
    checkpoint: fast

tags:
  nofailover: false
  noloadbalance: false
  clonefrom: false
  nosync: false
EOF
}

write_haproxy_config() {
    local n servers=""
    for n in $(seq 1 "$NODES"); do
        servers+="    server node$n 127.0.0.1:$(node_pg_port "$n") check port $(node_rest_port "$n")"$'\n'
    done
    cat >"$ETC/haproxy.cfg" <<EOF
# HAProxy's configuration, written by deploy/ha/up.sh: one address for the primary, one for
# the standbys, each server's health being what its Patroni's REST API answers.
global
    maxconn 1000
    # To stderr, i.e. log/haproxy.log: servers going up and down, and failed connections.
    log stderr format iso local0 info

defaults
    log global
    mode tcp
    option tcplog
    option dontlog-normal
    option redispatch
    retries 1
    timeout connect 2s
    timeout client 1h
    timeout server 1h
    timeout check 2s
    option tcpka

listen stats
    mode http
    bind 127.0.0.1:$HA_STATS_PORT
    stats enable
    stats uri /

# Writes: the node whose Patroni answers GET /primary with 200 (it holds the leader key) and
# whose PostgreSQL it finds running and out of recovery: Patroni answers 200 for as long as it
# holds the key, also for a moment after its PostgreSQL died and while a promotion is still
# under way, but its answer's body then says "state": "unknown" or "role": "replica".
# Checked every second (a server that is down every half second), down after two failures,
# up after the first success. A node that refuses a client's connection is marked down at
# once (observe layer4). A server marked down has its connections cut, so clients reconnect
# and land on the new primary.
listen primary
    bind 127.0.0.1:$HA_PORT
    option httpchk
    http-check send meth GET uri /primary
    http-check expect status 200
    http-check expect rstring "\"state\": \"running\".*\"role\": \"(master|primary)\""
    default-server inter 1s fastinter 500ms downinter 500ms fall 2 rise 1 observe layer4 error-limit 1 on-error mark-down on-marked-down shutdown-sessions
${servers}
# Reads that may lag: the standbys (GET /replica).
listen replicas
    bind 127.0.0.1:$HA_REPLICA_PORT
    balance roundrobin
    option httpchk
    http-check send meth GET uri /replica
    http-check expect status 200
    default-server inter 1s fastinter 500ms downinter 500ms fall 2 rise 1 observe layer4 error-limit 1 on-error mark-down on-marked-down shutdown-sessions
${servers}
EOF
}

write_pgbackrest_config() {
    local n
    {
        cat <<EOF
# pgBackRest's configuration, written by deploy/ha/up.sh. The stanza lists every node: a
# backup finds the current primary among them.
[global]
repo1-path=$BACKREST/repo
repo1-retention-full=2
log-path=$BACKREST/log
lock-path=$BACKREST/lock
spool-path=$BACKREST/spool
compress-type=zst
start-fast=y
log-level-console=info
log-level-file=detail

[$HA_SCOPE]
EOF
        for n in $(seq 1 "$NODES"); do
            echo "pg$n-path=$(node_data "$n")"
            echo "pg$n-port=$(node_pg_port "$n")"
            echo "pg$n-socket-path=$RUN"
            echo "pg$n-user=postgres"
        done
    } >"$ETC/pgbackrest.conf"
}

for n in $(seq 1 "$NODES"); do
    write_patroni_config "$n"
done
write_haproxy_config
write_pgbackrest_config
chown -R "$HA_USER:" "$ETC"
chmod 600 "$ETC"/*

# etcd: a single member here; three on three machines in production.
if [ -z "$(pid_of etcd "$BASE/etcd")" ]; then
    require_free "$HA_ETCD_CLIENT_PORT" "etcd clients"
    require_free "$HA_ETCD_PEER_PORT" "etcd peers"
fi
start_daemon etcd "$BASE/etcd" etcd \
    --name "$HA_SCOPE-etcd" \
    --data-dir "$BASE/etcd" \
    --listen-client-urls "$ETCD_URL" \
    --advertise-client-urls "$ETCD_URL" \
    --listen-peer-urls "http://127.0.0.1:$HA_ETCD_PEER_PORT" \
    --initial-advertise-peer-urls "http://127.0.0.1:$HA_ETCD_PEER_PORT" \
    --initial-cluster "$HA_SCOPE-etcd=http://127.0.0.1:$HA_ETCD_PEER_PORT" \
    --initial-cluster-token "$HA_SCOPE-etcd" \
    --initial-cluster-state new
for _ in $(seq 1 100); do
    curl -sf -m 1 "$ETCD_URL/health" 2>/dev/null | grep -q '"health":"true"' && break
    sleep 0.1
done
curl -sf -m 1 "$ETCD_URL/health" | grep -q '"health":"true"' || die "etcd is not healthy; see $LOG/etcd.log"

# Patroni, one per node: the first to take etcd's initialize key runs initdb, the others
# clone it with pg_basebackup and follow.
for n in $(seq 1 "$NODES"); do
    if [ -z "$(pid_of "patroni-node$n" "$(node_config "$n")")" ]; then
        require_free "$(node_rest_port "$n")" "node$n's Patroni REST API"
        [ -n "$(postmaster_of "$n")" ] || require_free "$(node_pg_port "$n")" "node$n's PostgreSQL"
    fi
    start_daemon "patroni-node$n" "$(node_config "$n")" patroni "$(node_config "$n")"
done

if [ -z "$(pid_of haproxy "$ETC/haproxy.cfg")" ]; then
    require_free "$HA_PORT" "HAProxy's primary address"
    require_free "$HA_REPLICA_PORT" "HAProxy's standby address"
    require_free "$HA_STATS_PORT" "HAProxy's statistics"
fi
start_daemon haproxy "$ETC/haproxy.cfg" haproxy -db -f "$ETC/haproxy.cfg"

# Ready: a writable primary through HAProxy, a synchronous standby and every standby
# streaming.
want_standbys=$((NODES - 1))
deadline=$(($(date +%s) + ${HA_UP_TIMEOUT:-180}))
primary_at=""
while :; do
    state=$(psql "$PRIMARY_URL" -X -At -F ' ' -c "select pg_is_in_recovery(),
            count(*) filter (where state = 'streaming'),
            count(*) filter (where state = 'streaming' and sync_state = 'sync')
            from pg_stat_replication" 2>/dev/null || true)
    if [ -z "$primary_at" ] && [ "${state%% *}" = f ]; then
        primary_at=$(date +%s.%N)
        note "writable primary through 127.0.0.1:$HA_PORT after $(since "$started")s"
    fi
    read -r in_recovery streaming sync <<<"${state:-x 0 0}"
    if [ "$in_recovery" = f ] && [ "$sync" -ge 1 ] && [ "$streaming" -ge "$want_standbys" ]; then
        break
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
        as_user patronictl -c "$(node_config 1)" list || true
        die "not ready after ${HA_UP_TIMEOUT:-180}s (primary: ${in_recovery:-none}, streaming: ${streaming:-0}, sync: ${sync:-0}); logs in $LOG"
    fi
    sleep 0.2
done
note "synchronous standby streaming after $(since "$started")s"

# pgBackRest: the stanza (idempotent), then a check that WAL archiving works.
pgbackrest_cmd stanza-create >/dev/null
pgbackrest_cmd check >/dev/null || die "pgbackrest check failed; see $BACKREST/log"
note "pgBackRest stanza $HA_SCOPE ready, WAL archiving checked"

as_user patronictl -c "$(node_config 1)" list
cat <<EOF

Primary (read-write): postgres://postgres@127.0.0.1:$HA_PORT/postgres
Standbys (read-only): postgres://postgres@127.0.0.1:$HA_REPLICA_PORT/postgres
HAProxy statistics:   http://127.0.0.1:$HA_STATS_PORT/
Ready after $(since "$started")s; stop with: $(dirname "$0")/down.sh $BASE
EOF
