#!/usr/bin/env bash
# A local stand-in for Kubernetes pod networking: every Conclave node ("pod") gets its own network
# namespace with its own address on a private bridge, and a DNS server answers the Services' names
# the way the cluster DNS does, so nodes join with CONCLAVE_CLUSTER_K8S_DNS exactly as on Kubernetes.
# Used by the e2e test support (NetnsCluster); usable by hand too. Linux, root, iproute2, dnsmasq.
#
#   netns.sh up N                    bridge, pods 1..N (N = 1 to 50), DNS server; removes leftovers first
#   netns.sh down                    removes everything 'up' made (also after a crash); safe to repeat
#   netns.sh publish NAME ADDRESS    NAME answers with ADDRESS too (the DNS server rereads at once)
#   netns.sh unpublish NAME ADDRESS  NAME no longer answers with ADDRESS
#   netns.sh status                  what exists now
#   netns.sh cut FROM TO             pod TO drops every packet from pod FROM (one way; cut both for a
#                                    full partition); silent, as a real partition is: no error, no reset
#   netns.sh heal                    removes every cut
#   netns.sh loss K PERCENT          pod K drops PERCENT % of the packets arriving on eth0, at random
#   netns.sh delay K MS              pod K's eth0 delays every packet it sends by MS (tc netem; exits 3
#                                    with a message when the kernel has no sch_netem)
#   netns.sh clear K                 pod K without loss or delay
#
# What 'up' creates, and nothing else (no forwarding, NAT or firewall rule on the host is touched):
#   bridge   cnclv0, 10.213.0.1/24 (the host's side; the range 10.213.0.0/24 is only ever used here)
#   pod K    namespace cnclv-pod-K: loopback up, eth0 = 10.213.0.(10+K)/24, a veth whose host end
#            cnclv-pK is a port of cnclv0, default route via 10.213.0.1 (only the host answers there)
#   faults   an nftables table 'conclave' in each pod (chains 'partition' and 'loss' on input), and a
#            netem qdisc on a pod's eth0 while it is delayed; both go with the namespace
#   DNS      dnsmasq bound to 10.213.0.1:53 only (no other address, no upstream servers), answering
#            from the hosts file $STATE/hosts; every name under cluster.local that is not in it is
#            NXDOMAIN. /etc/netns/cnclv-pod-K/resolv.conf points the pod at it ('ip netns exec'
#            mounts it over /etc/resolv.conf).
#   state    $STATE (CONCLAVE_NETNS_STATE, default /run/conclave-netns): hosts, dnsmasq.pid, dnsmasq.log
#
# The names mirror k8s/base/services.yaml in a namespace called "conclave":
#   conclave-cluster.conclave.svc.cluster.local  the headless Service (publishNotReadyAddresses: true):
#                                                every started pod, what CONCLAVE_CLUSTER_K8S_DNS names
#   conclave.conclave.svc.cluster.local          the gateways' Service: the ready pods only
# Who publishes what is the caller's business (NetnsCluster publishes a pod in the first when it starts
# the node and in the second once /health/ready answers 200, and unpublishes both when the pod dies).
#
# Run a node in pod K:  ip netns exec cnclv-pod-K java -jar node/target/conclave-node.jar serve
# with CONCLAVE_CLUSTER_HOST and CONCLAVE_BIND_HOST = the pod's address. The pods reach the host only
# at 10.213.0.1: a PostgreSQL for them must listen there (the tests forward a port to theirs).
set -euo pipefail

BRIDGE=cnclv0
PREFIX=10.213.0
HOST_IP=$PREFIX.1
NS_PREFIX=cnclv-pod-
VETH_PREFIX=cnclv-p
STATE="${CONCLAVE_NETNS_STATE:-/run/conclave-netns}"

die() { echo "netns: $*" >&2; exit 1; }

need() {
  [[ "$(id -u)" -eq 0 ]] || die "must run as root (network namespaces and bridges need CAP_NET_ADMIN)"
  command -v ip >/dev/null || die "'ip' is missing: apt-get install iproute2"
}

need_nft() {
  command -v nft >/dev/null || die "'nft' is missing: apt-get install nftables"
}

pod_ns() {
  [[ "${1:-}" =~ ^[0-9]+$ ]] && ip netns list 2>/dev/null | awk '{print $1}' | grep -qx "$NS_PREFIX$1" || die "no pod '${1:-}' (netns.sh status)"
  echo "$NS_PREFIX$1"
}

# the pod's fault table: input -> partition (cuts), then loss; created on first use
fault_table() {
  local ns="$1"
  ip netns exec "$ns" nft list table inet conclave >/dev/null 2>&1 && return 0
  ip netns exec "$ns" nft -f - <<NFT
table inet conclave {
  chain partition { }
  chain loss { }
  chain input {
    type filter hook input priority 0; policy accept;
    jump partition
    jump loss
  }
}
NFT
}

pod_ip() { echo "$PREFIX.$((10 + $1))"; }

namespaces() { ip netns list 2>/dev/null | awk '{print $1}' | grep "^$NS_PREFIX" || true; }

dnsmasq_pid() {
  local pid
  [[ -f "$STATE/dnsmasq.pid" ]] || return 1
  pid="$(cat "$STATE/dnsmasq.pid" 2>/dev/null)" || return 1
  [[ -n "$pid" && "$(cat "/proc/$pid/comm" 2>/dev/null)" == dnsmasq ]] || return 1
  echo "$pid"
}

down() {
  need
  local ns pid link
  for ns in $(namespaces); do
    # whatever still runs in the pod (a node the caller could not stop) goes with it
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
    ip netns del "$ns" 2>/dev/null || true
    rm -rf "/etc/netns/$ns"
  done
  if pid="$(dnsmasq_pid)"; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  # veths go with their namespace; a host end left by an interrupted 'up' does not
  for link in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1 | grep "^$VETH_PREFIX[0-9]" || true); do
    ip link del "$link" 2>/dev/null || true
  done
  ip link del "$BRIDGE" 2>/dev/null || true
  rmdir /etc/netns 2>/dev/null || true
  rm -rf "$STATE"
}

up() {
  local n="${1:-}"
  [[ "$n" =~ ^[0-9]+$ ]] && (( n >= 1 && n <= 50 )) || die "usage: netns.sh up N (N = 1 to 50), got '$n'"
  need
  command -v dnsmasq >/dev/null || die "'dnsmasq' is missing: apt-get install dnsmasq-base"
  down
  mkdir -p "$STATE"
  chmod 0755 "$STATE"
  : > "$STATE/hosts"
  chmod 0644 "$STATE/hosts"

  ip link add "$BRIDGE" type bridge
  ip addr add "$HOST_IP/24" dev "$BRIDGE"
  ip link set "$BRIDGE" up

  local k ns veth
  for k in $(seq 1 "$n"); do
    ns="$NS_PREFIX$k"
    veth="$VETH_PREFIX$k"
    ip netns add "$ns"
    ip link add "$veth" type veth peer name eth0 netns "$ns"
    ip link set "$veth" master "$BRIDGE" up
    ip -n "$ns" link set lo up
    ip -n "$ns" addr add "$(pod_ip "$k")/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" route add default via "$HOST_IP"
    mkdir -p "/etc/netns/$ns"
    printf 'nameserver %s\nsearch conclave.svc.cluster.local svc.cluster.local cluster.local\noptions ndots:5 timeout:1 attempts:2\n' \
      "$HOST_IP" > "/etc/netns/$ns/resolv.conf"
  done

  # answers from the hosts file only; reread on SIGHUP; TTL 0, so resolvers do not keep old answers
  dnsmasq --conf-file=/dev/null --pid-file="$STATE/dnsmasq.pid" \
    --listen-address="$HOST_IP" --bind-interfaces --port=53 \
    --no-hosts --addn-hosts="$STATE/hosts" --no-resolv --no-poll --local=/cluster.local/ \
    --local-ttl=0 --neg-ttl=1 --log-facility="$STATE/dnsmasq.log" \
    || { down; die "dnsmasq did not start (is something else bound to $HOST_IP:53?)"; }
  dnsmasq_pid >/dev/null || { down; die "dnsmasq did not stay up; see $STATE/dnsmasq.log"; }
  echo "netns: $n pods on $BRIDGE ($PREFIX.0/24), DNS at $HOST_IP:53" >&2
}

# publish/unpublish NAME ADDRESS: rewrite the hosts file under a lock, then have dnsmasq reread it
edit() {
  local op="$1" name="${2:-}" address="${3:-}"
  [[ "$name" =~ ^[a-z0-9.-]+$ && "$address" =~ ^[0-9.]+$ ]] || die "usage: netns.sh $op NAME ADDRESS"
  local pid
  pid="$(dnsmasq_pid)" || die "no DNS server runs (netns.sh up first)"
  exec 9>"$STATE/hosts.lock"
  flock 9
  grep -v -x -F "$address $name" "$STATE/hosts" > "$STATE/hosts.new" || true
  if [[ "$op" == publish ]]; then echo "$address $name" >> "$STATE/hosts.new"; fi
  chmod 0644 "$STATE/hosts.new"
  mv "$STATE/hosts.new" "$STATE/hosts"
  kill -HUP "$pid"
}

do_cut() {
  need; need_nft
  local from to
  from="$(pod_ns "${1:-}")"; to="$(pod_ns "${2:-}")"
  [[ "$from" != "$to" ]] || die "a pod cannot be cut from itself"
  fault_table "$to"
  ip netns exec "$to" nft add rule inet conclave partition ip saddr "$(pod_ip "$1")" drop
}

do_heal() {
  need
  local ns
  for ns in $(namespaces); do
    if ip netns exec "$ns" nft list table inet conclave >/dev/null 2>&1; then
      ip netns exec "$ns" nft flush chain inet conclave partition
    fi
  done
}

do_loss() {
  need; need_nft
  local ns pct="${2:-}"
  ns="$(pod_ns "${1:-}")"
  [[ "$pct" =~ ^[0-9]+$ ]] && (( pct >= 0 && pct <= 100 )) || die "usage: netns.sh loss K PERCENT (0 to 100), got '$pct'"
  fault_table "$ns"
  ip netns exec "$ns" nft flush chain inet conclave loss
  if (( pct > 0 )); then
    ip netns exec "$ns" nft add rule inet conclave loss iifname eth0 numgen random mod 100 '<' "$pct" drop
  fi
}

do_delay() {
  need
  local ns ms="${2:-}"
  ns="$(pod_ns "${1:-}")"
  [[ "$ms" =~ ^[0-9]+$ ]] || die "usage: netns.sh delay K MS, got '$ms'"
  if ! ip netns exec "$ns" tc qdisc replace dev eth0 root netem delay "${ms}ms" 2>/dev/null; then
    echo "netns: this kernel has no netem queueing discipline (sch_netem): cannot delay packets" >&2
    exit 3
  fi
}

do_clear() {
  need
  local ns
  ns="$(pod_ns "${1:-}")"
  ip netns exec "$ns" tc qdisc del dev eth0 root 2>/dev/null || true
  if ip netns exec "$ns" nft list table inet conclave >/dev/null 2>&1; then
    ip netns exec "$ns" nft flush chain inet conclave loss
  fi
}

status() {
  echo "bridge:"; ip -br addr show "$BRIDGE" 2>/dev/null || echo "  (none)"
  echo "pods:"; for ns in $(namespaces); do echo "  $ns $(ip -n "$ns" -br -4 addr show eth0 2>/dev/null | awk '{print $3}')"; done
  echo "faults:"; for ns in $(namespaces); do
    ip netns exec "$ns" nft list table inet conclave 2>/dev/null | grep -E 'drop' | sed "s/^[[:space:]]*/  $ns: /" || true
    ip netns exec "$ns" tc qdisc show dev eth0 2>/dev/null | grep netem | sed "s/^/  $ns: /" || true
  done
  echo "dns:"; if pid="$(dnsmasq_pid)"; then echo "  dnsmasq pid $pid"; cat "$STATE/hosts" | sed 's/^/  /'; else echo "  (not running)"; fi
}

case "${1:-}" in
  up) up "${2:-}" ;;
  down) down ;;
  publish | unpublish) edit "$1" "${2:-}" "${3:-}" ;;
  status) status ;;
  cut) do_cut "${2:-}" "${3:-}" ;;
  heal) do_heal ;;
  loss) do_loss "${2:-}" "${3:-}" ;;
  delay) do_delay "${2:-}" "${3:-}" ;;
  clear) do_clear "${2:-}" ;;
  *) die "usage: netns.sh up N | down | publish NAME ADDRESS | unpublish NAME ADDRESS | status | cut FROM TO | heal | loss K PERCENT | delay K MS | clear K" ;;
esac
