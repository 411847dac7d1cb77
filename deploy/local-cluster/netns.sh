#!/usr/bin/env bash
# A local stand-in for Kubernetes pod networking: every Conclave node ("pod") gets its own network
# namespace with its own address on a private bridge, and a DNS server answers the Services' names
# the way the cluster DNS does, so nodes join with CONCLAVE_CLUSTER_K8S_DNS exactly as on Kubernetes.
# Used by the e2e test support (NetnsCluster); usable by hand too. Linux, root, iproute2, dnsmasq, nft;
# 'delay' on a kernel without sch_netem: iptables-legacy and python3 (see below).
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
#   netns.sh delay K MS              pod K delays every packet it sends on eth0 by MS: a tc netem qdisc,
#                                    or, where the kernel has no sch_netem, nfq-delay.py (below); prints
#                                    which; replaces an earlier delay of pod K; exits 3 with a message
#                                    ("no netem ...", saying what else is missing) when neither works
#   netns.sh clear K                 pod K without loss or delay (removes either kind of delay)
#
# What 'up' creates, and nothing else (no forwarding, NAT or firewall rule on the host is touched):
#   bridge   cnclv0, 10.213.0.1/24 (the host's side; the range 10.213.0.0/24 is only ever used here)
#   pod K    namespace cnclv-pod-K: loopback up, eth0 = 10.213.0.(10+K)/24, a veth whose host end
#            cnclv-pK is a port of cnclv0, default route via 10.213.0.1 (only the host answers there)
#   faults   an nftables table 'conclave' in each pod (chains 'partition' and 'loss' on input), and
#            while a pod is delayed either a netem qdisc on its eth0 (goes with the namespace), or, on a
#            kernel without sch_netem: in the pod an iptables-legacy rule (table mangle, chain
#            POSTROUTING: IPv4 -o eth0, not marked 0x6e716479 -> NFQUEUE 0 --queue-bypass) and a process,
#            nfq-delay.py (next to this script), bound to that queue, which holds each packet MS ms
#            (TCP ones as copies it sends again with that mark, see its header) and lets it go: about
#            20 us of CPU a packet, 30,000 packets/s, 30-40 MB/s of TCP through 30 ms on this 2-core VM.
#            Its pid and log are $STATE/delay-cnclv-pod-K.pid and .log. 'clear' removes rule and
#            process; 'down' stops every delayer (also one a crash left, from its pid file). It is the
#            legacy (xtables) binary because iptables-nft would turn NFQUEUE into nft 'queue', which
#            needs CONFIG_NFT_QUEUE; the xtables target needs CONFIG_NETFILTER_XT_TARGET_NFQUEUE and
#            CONFIG_IP_NF_IPTABLES_LEGACY, and the queue CONFIG_NETFILTER_NETLINK_QUEUE.
#   DNS      dnsmasq bound to 10.213.0.1:53 only (no other address, no upstream servers), answering
#            from the hosts file $STATE/hosts; every name under cluster.local that is not in it is
#            NXDOMAIN. /etc/netns/cnclv-pod-K/resolv.conf points the pod at it ('ip netns exec'
#            mounts it over /etc/resolv.conf).
#   state    $STATE (CONCLAVE_NETNS_STATE, default /run/conclave-netns): hosts, dnsmasq.pid, dnsmasq.log,
#            delay-*.pid and delay-*.log
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

# The userspace delay (kernels without sch_netem): an NFQUEUE rule in the namespace queues what leaves
# by eth0 to queue 0, nfq-delay.py holds it. These take a namespace's name, so that
# test-nfq-delay.sh can source this script and use them on namespaces of its own.
DELAYER="$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/nfq-delay.py"
DELAY_MARK=0x6e716479  # what nfq-delay.py marks its copies of TCP packets with (--mark): not queued again

python3_path() {
  if [[ -x /usr/bin/python3 ]]; then echo /usr/bin/python3; else command -v python3; fi
}

# nfq_rule -A|-D NS: appends or deletes the rule; -w: iptables-legacy's lock is one for all namespaces
nfq_rule() {
  ip netns exec "$2" iptables-legacy -w 5 -t mangle "$1" POSTROUTING -o eth0 -m mark ! --mark "$DELAY_MARK" \
    -j NFQUEUE --queue-num 0 --queue-bypass
}

# delayer_pid FILE: the pid in FILE if that process is an nfq-delay.py
delayer_pid() {
  local pid
  pid="$(cat "$1" 2>/dev/null)" || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] && grep -qa 'nfq-delay\.py' "/proc/$pid/cmdline" 2>/dev/null || return 1
  echo "$pid"
}

# stop_delayer FILE: stops the delayer whose pid FILE holds (SIGTERM: it lets what it holds go), removes FILE
stop_delayer() {
  local pid
  if pid="$(delayer_pid "$1")"; then
    kill -TERM "$pid" 2>/dev/null || true
    # gone when its command line is (kill -0 would wait for init to reap the zombie, which can take seconds)
    for _ in $(seq 1 100); do delayer_pid "$1" >/dev/null || break; sleep 0.05; done
    if delayer_pid "$1" >/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
  fi
  rm -f "$1"
}

# nfq_stop NS: neither the rule (first, so nothing more is queued) nor the delayer is left
nfq_stop() {
  if ip netns exec "$1" grep -qx mangle /proc/net/ip_tables_names 2>/dev/null; then  # never made otherwise
    for _ in $(seq 1 20); do nfq_rule -D "$1" 2>/dev/null || break; done
  fi
  stop_delayer "$STATE/delay-$1.pid"
}

# nfq_missing: why the userspace delay cannot work here, or nothing (and status 1) when it can
nfq_missing() {
  local missing=()
  command -v iptables-legacy >/dev/null || missing+=("no iptables-legacy (apt-get install iptables)")
  [[ -n "$(python3_path)" ]] || missing+=("no python3 (apt-get install python3)")
  [[ -r "$DELAYER" ]] || missing+=("no $DELAYER")
  (( ${#missing[@]} > 0 )) || return 1
  local out="${missing[0]}" m
  for m in "${missing[@]:1}"; do out+=", $m"; done
  echo "$out"
}

# nfq_start NS MS: starts nfq-delay.py in NS, waits until it has bound queue 0, adds the rule;
# replaces an earlier one. On failure: says why on stderr, leaves nothing behind, returns 1.
nfq_start() {
  local ns="$1" ms="$2" pidfile="$STATE/delay-$1.pid" log="$STATE/delay-$1.log" pid="" err
  nfq_stop "$ns"
  mkdir -p "$STATE"
  : > "$log"
  # setsid: not in the caller's session or process group; the shell writes the pid the exec keeps
  ip netns exec "$ns" setsid sh -c 'echo $$ > "$1"; shift; exec "$@"' sh "$pidfile" \
    "$(python3_path)" "$DELAYER" --queue 0 --delay-ms "$ms" --mark "$DELAY_MARK" >> "$log" 2>&1 < /dev/null &
  for _ in $(seq 1 100); do  # bound once it prints its start line (it exits if the kernel refuses)
    grep -q '^nfq-delay: queue ' "$log" && break
    [[ -n "$pid" ]] || pid="$(cat "$pidfile" 2>/dev/null)" || true
    [[ -n "$pid" ]] && ! kill -0 "$pid" 2>/dev/null && break
    sleep 0.05
  done
  if ! grep -q '^nfq-delay: queue ' "$log"; then
    echo "nfq-delay.py did not start: $(tail -n 1 "$log")" >&2
    stop_delayer "$pidfile"
    return 1
  fi
  if ! err="$(nfq_rule -A "$ns" 2>&1)"; then
    echo "iptables-legacy could not add the NFQUEUE rule: $err" >&2
    nfq_stop "$ns"
    return 1
  fi
}

down() {
  need
  local ns pid link file
  # delayers first, also those of pods a crash left (their pid files outlive the namespaces' names)
  for file in "$STATE"/delay-*.pid; do
    if [[ -e "$file" ]]; then stop_delayer "$file"; fi
  done
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
  local ns ms="${2:-}" why err
  ns="$(pod_ns "${1:-}")"
  [[ "$ms" =~ ^[0-9]+$ ]] || die "usage: netns.sh delay K MS, got '$ms'"
  nfq_stop "$ns"  # a delay replaces the one before, of either kind
  if ip netns exec "$ns" tc qdisc replace dev eth0 root netem delay "${ms}ms" 2>/dev/null; then
    echo "netns: delaying $ns's outgoing packets by $ms ms (netem)"
    return 0
  fi
  if why="$(nfq_missing)"; then
    echo "netns: cannot delay packets: no netem queueing discipline in this kernel (sch_netem), and for the userspace delay: $why" >&2
    exit 3
  fi
  if ! err="$(nfq_start "$ns" "$ms" 2>&1)"; then
    echo "netns: cannot delay packets: no netem queueing discipline in this kernel (sch_netem), and the userspace delay failed: $err" >&2
    exit 3
  fi
  echo "netns: delaying $ns's outgoing packets by $ms ms (nfqueue: iptables-legacy NFQUEUE 0 and nfq-delay.py pid $(cat "$STATE/delay-$ns.pid"), as the kernel lacks sch_netem)"
}

do_clear() {
  need
  local ns
  ns="$(pod_ns "${1:-}")"
  ip netns exec "$ns" tc qdisc del dev eth0 root 2>/dev/null || true
  nfq_stop "$ns"
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
    if pid="$(delayer_pid "$STATE/delay-$ns.pid")"; then
      echo "  $ns: nfqueue delay: pid $pid, $(grep -m 1 '^nfq-delay: queue ' "$STATE/delay-$ns.log" 2>/dev/null | sed 's/^nfq-delay: //')"
    fi
  done
  echo "dns:"; if pid="$(dnsmasq_pid)"; then echo "  dnsmasq pid $pid"; cat "$STATE/hosts" | sed 's/^/  /'; else echo "  (not running)"; fi
}

# sourced (test-nfq-delay.sh): the functions only
[[ "${BASH_SOURCE[0]}" == "$0" ]] || return 0

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
