#!/usr/bin/env bash
# Starts N Conclave nodes on 127.0.0.1 that form one Vert.x/Hazelcast cluster and share one
# PostgreSQL (the embedded one, served by `conclave-node postgres`). Prints the endpoints; Ctrl-C
# or SIGTERM stops every node gracefully, then PostgreSQL.
#
#   deploy/local-cluster.sh [N]            default N=3
#
# Node i listens on gRPC 5005i+?, see the printed table. Data lives in .cluster/ (kept across runs;
# delete it for a fresh cluster). Logs: .cluster/node-<i>.log, .cluster/postgres.log
set -euo pipefail

N="${1:-3}"
if ! [[ "$N" =~ ^[1-9]$ ]]; then
  echo "local-cluster: N must be 1 to 9, got '$N'" >&2
  exit 2
fi
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAR="$ROOT/node/target/conclave-node.jar"
DIR="$ROOT/.cluster"
PG_PORT="${CONCLAVE_LOCAL_PG_PORT:-55432}"
mkdir -p "$DIR"
[[ -f "$JAR" ]] || { echo "local-cluster: $JAR is missing; run ./conclave build" >&2; exit 2; }

# one signing secret for the whole cluster, kept with its data
if [[ ! -f "$DIR/auth.secret" ]]; then
  (umask 077; head -c 48 /dev/urandom | base64 | tr -d '\n/+=' > "$DIR/auth.secret")
fi
SECRET="$(cat "$DIR/auth.secret")"
# and one key for agents' secrets (base64 of 32 bytes), which every node must share
if [[ ! -f "$DIR/secrets.key" ]]; then
  (umask 077; head -c 32 /dev/urandom | base64 > "$DIR/secrets.key")
fi
SECRETS_KEY="$(cat "$DIR/secrets.key")"

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

java -Xmx256m -jar "$JAR" postgres --data-dir "$DIR/pg" --port "$PG_PORT" > "$DIR/postgres.url" 2> "$DIR/postgres.log" &
PIDS+=($!)
for _ in $(seq 1 120); do
  [[ -s "$DIR/postgres.url" ]] && break
  kill -0 "${PIDS[0]}" 2>/dev/null || { echo "local-cluster: PostgreSQL did not start; see $DIR/postgres.log" >&2; exit 1; }
  sleep 0.5
done
PG_URL="$(head -1 "$DIR/postgres.url")"
echo "local-cluster: PostgreSQL $PG_URL" >&2

MEMBERS=""
for i in $(seq 1 "$N"); do
  MEMBERS+="${MEMBERS:+,}127.0.0.1:$((5700 + i))"
done

for i in $(seq 1 "$N"); do
  CONCLAVE_NODE_ID="node-$i" \
  CONCLAVE_DATA_DIR="$DIR/node-$i" \
  CONCLAVE_PG_URL="$PG_URL" \
  CONCLAVE_AUTH_SECRET="$SECRET" \
  CONCLAVE_SECRETS_KEY="$SECRETS_KEY" \
  CONCLAVE_GRPC_PORT="$((50050 + i))" \
  CONCLAVE_HTTP_PORT="$((8080 + i))" \
  CONCLAVE_BIND_HOST=127.0.0.1 \
  CONCLAVE_CLUSTER_MEMBERS="$MEMBERS" \
  CONCLAVE_CLUSTER_HOST=127.0.0.1 \
  CONCLAVE_CLUSTER_PORT="$((5700 + i))" \
  CONCLAVE_EVENTBUS_PORT="$((5710 + i))" \
  java ${CONCLAVE_JAVA_OPTS:--Xmx512m} -jar "$JAR" serve > "$DIR/node-$i.log" 2>&1 &
  PIDS+=($!)
done

for i in $(seq 1 "$N"); do
  port=$((8080 + i))
  for _ in $(seq 1 240); do
    if curl -fs "http://127.0.0.1:$port/health/ready" > /dev/null 2>&1; then break; fi
    kill -0 "${PIDS[$i]}" 2>/dev/null || { echo "local-cluster: node-$i exited; see $DIR/node-$i.log" >&2; exit 1; }
    sleep 0.5
  done
done

echo
printf '%-8s %-22s %-26s %s\n' node grpc http admin-token
for i in $(seq 1 "$N"); do
  printf '%-8s %-22s %-26s %s\n' "node-$i" "127.0.0.1:$((50050 + i))" "http://127.0.0.1:$((8080 + i))" "$DIR/node-$i/admin.token"
done
echo
echo "local-cluster: $N nodes ready; Ctrl-C stops them" >&2
wait
