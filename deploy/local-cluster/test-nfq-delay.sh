#!/usr/bin/env bash
# Checks netns.sh's userspace delay (iptables-legacy NFQUEUE + nfq-delay.py, for kernels without
# sch_netem) on two namespaces of its own, nfqt-a and nfqt-b, joined by a veth pair (10.77.0.1/24 and
# 10.77.0.2/24; nothing of netns.sh's cluster is touched), and removes them again, also when it fails:
#
#   deploy/local-cluster/test-nfq-delay.sh [MS]     (default 30; root, iproute2, iptables, python3, ping)
#
# It delays nfqt-a's outgoing packets by MS and fails (exit 1) unless ping's round trip goes from
# under 5 ms to MS..MS+20 ms, a 20 MB TCP upload from nfqt-a still runs at 5 MB/s or more (holding
# TCP packets in the queue instead of copying them would throttle it to a few hundred KB/s), and after
# the delay is stopped the round trip is short again and neither the rule nor the delayer is left.
# For humans; no build runs it.
set -euo pipefail
MS="${1:-30}"
[[ "$MS" =~ ^[0-9]+$ ]] && (( MS >= 1 && MS <= 1000 )) || { echo "usage: $0 [MS] (1 to 1000)" >&2; exit 2; }
[[ "$(id -u)" -eq 0 ]] || { echo "test-nfq-delay: must run as root" >&2; exit 2; }
for tool in ip iptables-legacy ping; do
  command -v "$tool" >/dev/null || { echo "test-nfq-delay: '$tool' is missing" >&2; exit 2; }
done

export CONCLAVE_NETNS_STATE
CONCLAVE_NETNS_STATE="$(mktemp -d /tmp/test-nfq-delay.XXXXXX)"
# shellcheck source=netns.sh
source "$(dirname "$(readlink -f "$0")")/netns.sh"  # nfq_start, nfq_stop, nfq_rule, python3_path
A=nfqt-a B=nfqt-b

cleanup() {
  nfq_stop "$A" 2>/dev/null || true
  ip netns del "$A" 2>/dev/null || true
  ip netns del "$B" 2>/dev/null || true
  rm -rf "$CONCLAVE_NETNS_STATE"
}
trap cleanup EXIT
cleanup
mkdir -p "$CONCLAVE_NETNS_STATE"

ip netns add "$A"
ip netns add "$B"
ip link add eth0 netns "$A" type veth peer name eth0 netns "$B"
for ns in "$A" "$B"; do ip -n "$ns" link set lo up; done
ip -n "$A" addr add 10.77.0.1/24 dev eth0
ip -n "$B" addr add 10.77.0.2/24 dev eth0
ip -n "$A" link set eth0 up
ip -n "$B" link set eth0 up

failed=0
fail() { echo "test-nfq-delay: FAIL: $*" >&2; failed=1; }

# average round trip in ms (integer) of 20 pings from A to B
rtt() {
  local out
  out="$(ip netns exec "$A" ping -c 20 -i 0.05 -w 10 -q 10.77.0.2)" || { echo 99999; return; }
  echo "$out" | awk -F/ '/^rtt|^round-trip/ { printf "%d\n", $5 }'
}

# MB/s of a 20 MB TCP upload from A to B (python3 at both ends)
upload() {
  local py
  py="$(python3_path)"
  ip netns exec "$B" "$py" -c '
import socket
s = socket.create_server(("10.77.0.2", 9009)); c, _ = s.accept()
while c.recv(1 << 20): pass' &
  local server=$!
  sleep 0.5
  ip netns exec "$A" "$py" -c '
import socket, time
c = socket.create_connection(("10.77.0.2", 9009)); data = b"x" * (1 << 20); t = time.monotonic()
for _ in range(20): c.sendall(data)
c.shutdown(socket.SHUT_WR); c.recv(1); print(int(20 / (time.monotonic() - t)))'
  wait "$server"
}

before="$(rtt)"
echo "test-nfq-delay: round trip without delay: ${before} ms"
(( before < 5 )) || fail "round trip ${before} ms before any delay"

nfq_start "$A" "$MS"
echo "test-nfq-delay: $(head -n 1 "$CONCLAVE_NETNS_STATE/delay-$A.log") (pid $(cat "$CONCLAVE_NETNS_STATE/delay-$A.pid"))"
during="$(rtt)"
echo "test-nfq-delay: round trip with ${MS} ms delay: ${during} ms"
(( during >= MS && during <= MS + 20 )) || fail "round trip ${during} ms with a ${MS} ms delay"
rate="$(upload)"
echo "test-nfq-delay: 20 MB TCP upload through the delay: ${rate} MB/s"
(( rate >= 5 )) || fail "TCP upload at ${rate} MB/s"

pid="$(cat "$CONCLAVE_NETNS_STATE/delay-$A.pid")"
nfq_stop "$A"
after="$(rtt)"
echo "test-nfq-delay: round trip after stopping the delay: ${after} ms"
(( after < 5 )) || fail "round trip ${after} ms after the delay was stopped"
! grep -qa 'nfq-delay\.py' "/proc/$pid/cmdline" 2>/dev/null || fail "the delayer (pid $pid) still runs"
! ip netns exec "$A" iptables-legacy -w 5 -t mangle -S POSTROUTING | grep -q NFQUEUE || fail "the NFQUEUE rule is still there"
sed 's/^/test-nfq-delay: delayer log: /' "$CONCLAVE_NETNS_STATE/delay-$A.log"

if (( failed )); then echo "test-nfq-delay: FAILED" >&2; exit 1; fi
echo "test-nfq-delay: OK"
