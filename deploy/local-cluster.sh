#!/usr/bin/env bash
# Starts N Conclave nodes on 127.0.0.1 that form one Vert.x/Hazelcast cluster and share one
# PostgreSQL (the embedded one, served by `conclave-node postgres`). Prints the endpoints and the
# command that issues tokens; Ctrl-C or SIGTERM stops every node gracefully, then PostgreSQL.
#
#   deploy/local-cluster.sh [--base-port P] [--dir DIR] [--tls] [--print-ports] [N]
#
#   N              nodes, 1 to 9 (default 3)
#   --base-port P  the first of the 40 ports the cluster uses, P to P+39 (default 50050, or
#                  $CONCLAVE_LOCAL_BASE_PORT): PostgreSQL on P; node i (1..N) gRPC on P+i, HTTP on
#                  P+10+i, Hazelcast on P+20+i, the clustered event bus on P+30+i. The default puts
#                  node-1's gRPC on 50051, where `./conclave agent` looks by default.
#   --dir DIR      where the cluster keeps its data (default .cluster in the repository, or
#                  $CONCLAVE_LOCAL_CLUSTER_DIR); kept across runs, delete it for a fresh cluster. Two
#                  clusters side by side need a directory and a base port each.
#   --tls          TLS as in production: the gRPC and HTTP ports speak TLS only and the event bus
#                  runs over TLS with client certificates, from a throwaway CA and cluster CA made
#                  with the JDK's keytool (`conclave-node dev-certs`) in DIR/tls, kept across runs.
#                  Clients trust DIR/tls/ca.pem (the agent: --tls-ca-file; session: --ca-file).
#   --print-ports  print the ports N nodes would use and exit (starts nothing)
#
# Logs: DIR/node-<i>.log, DIR/postgres.log. The nodes' data dirs (DIR/node-<i>) hold no database:
# `./conclave token` needs the cluster's CONCLAVE_PG_URL and CONCLAVE_AUTH_SECRET, and the exact
# command is printed once the nodes are ready.
set -euo pipefail
umask 077   # DIR holds the signing secret, the secrets key and the PostgreSQL URL with its password

usage() {
  echo "usage: deploy/local-cluster.sh [--base-port P] [--dir DIR] [--tls] [--print-ports] [N]" >&2
  exit 2
}

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
N=3
BASE="${CONCLAVE_LOCAL_BASE_PORT:-50050}"
DIR="${CONCLAVE_LOCAL_CLUSTER_DIR:-$ROOT/.cluster}"
PRINT_PORTS=false
TLS=false
while [[ $# -gt 0 ]]; do
  case "$1" in
    --base-port) [[ $# -ge 2 ]] || usage; BASE="$2"; shift 2 ;;
    --base-port=*) BASE="${1#*=}"; shift ;;
    --dir) [[ $# -ge 2 ]] || usage; DIR="$2"; shift 2 ;;
    --dir=*) DIR="${1#*=}"; shift ;;
    --print-ports) PRINT_PORTS=true; shift ;;
    --tls) TLS=true; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "local-cluster: unknown option '$1'" >&2; usage ;;
    *) N="$1"; shift ;;
  esac
done
if ! [[ "$N" =~ ^[1-9]$ ]]; then
  echo "local-cluster: N must be 1 to 9, got '$N'" >&2
  exit 2
fi
if ! [[ "$BASE" =~ ^[0-9]{1,5}$ ]] || (( 10#$BASE < 1024 || 10#$BASE + 39 > 65535 )); then
  echo "local-cluster: the base port must be 1024 to 65496 (the cluster uses it and the 39 above it), got '$BASE'" >&2
  exit 2
fi
BASE=$((10#$BASE))

# every port, derived from the base port
PG_PORT=$BASE
grpc_port() { echo $((BASE + $1)); }
http_port() { echo $((BASE + 10 + $1)); }
hazelcast_port() { echo $((BASE + 20 + $1)); }
eventbus_port() { echo $((BASE + 30 + $1)); }

if $PRINT_PORTS; then
  echo "postgres $PG_PORT"
  for i in $(seq 1 "$N"); do
    echo "node-$i grpc=$(grpc_port "$i") http=$(http_port "$i") hazelcast=$(hazelcast_port "$i") eventbus=$(eventbus_port "$i")"
  done
  exit 0
fi

JAR="$ROOT/node/target/conclave-node.jar"
[[ -f "$JAR" ]] || { echo "local-cluster: $JAR is missing; run ./conclave build" >&2; exit 2; }

# a port something already listens on would make a node fail late and obscurely: say so now
in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
check_free() {
  if in_use "$1"; then
    echo "local-cluster: port $1 ($2) is in use on 127.0.0.1; choose another --base-port (it takes $BASE to $((BASE + 39)))" >&2
    exit 2
  fi
}
check_free "$PG_PORT" "PostgreSQL"
for i in $(seq 1 "$N"); do
  check_free "$(grpc_port "$i")" "node-$i gRPC"
  check_free "$(http_port "$i")" "node-$i HTTP"
  check_free "$(hazelcast_port "$i")" "node-$i Hazelcast"
  check_free "$(eventbus_port "$i")" "node-$i event bus"
done

mkdir -p "$DIR"
chmod 700 "$DIR"   # also one an earlier version of this script made world-readable
DIR="$(cd "$DIR" && pwd)"
# one signing secret for the whole cluster, kept with its data
if [[ ! -f "$DIR/auth.secret" ]]; then
  head -c 48 /dev/urandom | base64 | tr -d '\n/+=' > "$DIR/auth.secret"
fi
SECRET="$(cat "$DIR/auth.secret")"
# and one key for agents' secrets (base64 of 32 bytes), which every node must share
if [[ ! -f "$DIR/secrets.key" ]]; then
  head -c 32 /dev/urandom | base64 > "$DIR/secrets.key"
fi
SECRETS_KEY="$(cat "$DIR/secrets.key")"

# TLS: certificates made once and kept with the cluster's data, so clients keep trusting the same CA
TLS_ENV=()
SCHEME=http
CURL_TLS=()
if $TLS; then
  java -Xmx128m -jar "$JAR" dev-certs --dir "$DIR/tls" > /dev/null
  TLS_ENV=(CONCLAVE_TLS_CERT_FILE="$DIR/tls/node.pem" CONCLAVE_TLS_KEY_FILE="$DIR/tls/node.key"
    CONCLAVE_CLUSTER_TLS_CERT_FILE="$DIR/tls/cluster.pem" CONCLAVE_CLUSTER_TLS_KEY_FILE="$DIR/tls/cluster.key"
    CONCLAVE_CLUSTER_TLS_CA_FILE="$DIR/tls/cluster-ca.pem")
  SCHEME=https
  CURL_TLS=(--cacert "$DIR/tls/ca.pem")
  echo "local-cluster: TLS on every port and on the event bus; clients trust $DIR/tls/ca.pem" >&2
fi

PIDS=()
stop_all() {
  trap - INT TERM EXIT
  echo "local-cluster: stopping ${#PIDS[@]} processes..." >&2
  # nodes first (reverse start order), PostgreSQL last
  for ((i=${#PIDS[@]}-1; i>=0; i--)); do
    kill -TERM "${PIDS[$i]}" 2>/dev/null || true
    wait "${PIDS[$i]}" 2>/dev/null || true
  done
  echo "local-cluster: stopped" >&2
}
trap stop_all INT TERM EXIT

rm -f "$DIR/postgres.url"
java -Xmx256m -jar "$JAR" postgres --data-dir "$DIR/pg" --port "$PG_PORT" > "$DIR/postgres.url" 2> "$DIR/postgres.log" &
PIDS+=($!)
for _ in $(seq 1 240); do
  [[ -s "$DIR/postgres.url" ]] && break
  kill -0 "${PIDS[0]}" 2>/dev/null || { echo "local-cluster: PostgreSQL did not start; see $DIR/postgres.log" >&2; exit 1; }
  sleep 0.5
done
[[ -s "$DIR/postgres.url" ]] || { echo "local-cluster: PostgreSQL did not start within 2 minutes; see $DIR/postgres.log" >&2; exit 1; }
PG_URL="$(head -1 "$DIR/postgres.url")"
echo "local-cluster: PostgreSQL on 127.0.0.1:$PG_PORT (URL in $DIR/postgres.url)" >&2

MEMBERS=""
for i in $(seq 1 "$N"); do
  MEMBERS+="${MEMBERS:+,}127.0.0.1:$(hazelcast_port "$i")"
done

for i in $(seq 1 "$N"); do
  CONCLAVE_NODE_ID="node-$i" \
  CONCLAVE_DATA_DIR="$DIR/node-$i" \
  CONCLAVE_PG_URL="$PG_URL" \
  CONCLAVE_AUTH_SECRET="$SECRET" \
  CONCLAVE_SECRETS_KEY="$SECRETS_KEY" \
  CONCLAVE_GRPC_PORT="$(grpc_port "$i")" \
  CONCLAVE_HTTP_PORT="$(http_port "$i")" \
  CONCLAVE_BIND_HOST=127.0.0.1 \
  CONCLAVE_CLUSTER_MEMBERS="$MEMBERS" \
  CONCLAVE_CLUSTER_HOST=127.0.0.1 \
  CONCLAVE_CLUSTER_PORT="$(hazelcast_port "$i")" \
  CONCLAVE_EVENTBUS_PORT="$(eventbus_port "$i")" \
  env ${TLS_ENV[@]+"${TLS_ENV[@]}"} \
  java ${CONCLAVE_JAVA_OPTS:--Xmx512m} -jar "$JAR" serve > "$DIR/node-$i.log" 2>&1 &
  PIDS+=($!)
done

for i in $(seq 1 "$N"); do
  ready=false
  for _ in $(seq 1 240); do
    if curl -fs ${CURL_TLS[@]+"${CURL_TLS[@]}"} "$SCHEME://127.0.0.1:$(http_port "$i")/health/ready" > /dev/null 2>&1; then ready=true; break; fi
    kill -0 "${PIDS[$i]}" 2>/dev/null || { echo "local-cluster: node-$i exited; see $DIR/node-$i.log" >&2; exit 1; }
    sleep 0.5
  done
  $ready || { echo "local-cluster: node-$i not ready within 2 minutes; see $DIR/node-$i.log" >&2; exit 1; }
done

ENDPOINTS=""
for i in $(seq 1 "$N"); do
  ENDPOINTS+="${ENDPOINTS:+,}127.0.0.1:$(grpc_port "$i")"
done
echo
printf '%-8s %-22s %-26s %s\n' node grpc http admin-token
for i in $(seq 1 "$N"); do
  printf '%-8s %-22s %-26s %s\n' "node-$i" "127.0.0.1:$(grpc_port "$i")" "$SCHEME://127.0.0.1:$(http_port "$i")" "$DIR/node-$i/admin.token"
done
echo
echo "Tokens: the nodes' data dirs hold no database; the token command needs the cluster's:"
echo "  CONCLAVE_PG_URL=\"\$(cat $DIR/postgres.url)\" CONCLAVE_AUTH_SECRET=\"\$(cat $DIR/auth.secret)\" $ROOT/conclave token --new-agent my-agent"
if $TLS; then
  echo "Agents: CONCLAVE_ENDPOINTS=$ENDPOINTS CONCLAVE_AGENT_TLS_CA_FILE=$DIR/tls/ca.pem"
  echo "Session: CONCLAVE_TLS_CA_FILE=$DIR/tls/ca.pem $ROOT/conclave session --url https://127.0.0.1:$(http_port 1)"
else
  echo "Agents: CONCLAVE_ENDPOINTS=$ENDPOINTS"
fi
echo
echo "local-cluster: $N nodes ready; Ctrl-C stops them" >&2
wait
