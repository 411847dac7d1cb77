#!/usr/bin/env python3
"""Delays every packet that an NFQUEUE rule sends to queue Q by MS milliseconds, order kept.

A userspace stand-in for 'tc qdisc ... netem delay MS' on kernels without sch_netem (netns.sh delay):

    iptables-legacy -t mangle -A POSTROUTING -o eth0 -m mark ! --mark 0x6e716479 \\
        -j NFQUEUE --queue-num Q --queue-bypass
    nfq-delay.py --queue Q --delay-ms MS

Python 3 standard library only: it speaks nfnetlink_queue over a raw netlink socket, and releases each
packet MS ms after it read it (a FIFO: the delay is the same for all).

TCP packets are copied, dropped from the kernel's queue at once, and sent again from a raw socket
when due, carrying the mark 0x6e716479 (--mark) so that the rule lets the copy pass. Holding the
original in the queue instead would keep it charged to its TCP socket, whose small-queues budget
(about 1 ms of its sending rate) would then throttle every connection to a couple of packets per
round trip; netem releases that budget the same way when it delays a packet. Other packets (UDP,
ICMP: no such budget, and may be larger than the MTU before fragmentation) are held in the kernel
and accepted when due. A packet that comes back with the mark is accepted at once.

The kernel segments GSO packets before queueing them (NFQA_CFG_F_GSO is not set), so every TCP copy
fits the MTU. If the queue (20000 packets) or this program's socket overflows, the kernel lets the
packet pass undelayed (NFQA_CFG_F_FAIL_OPEN) rather than drop it. SIGTERM/SIGINT: sends or accepts
every packet still held, unbinds, exits 0 (remove the rule first: a packet queued after the last
read is dropped by the unbind). Killed with SIGKILL, the TCP copies it held are lost (TCP resends).

Constants and layouts: <linux/netlink.h>, <linux/netfilter/nfnetlink.h>,
<linux/netfilter/nfnetlink_queue.h>, <linux/netfilter.h>.
"""
import argparse
import collections
import errno
import select
import signal
import socket
import struct
import sys
import time

NETLINK_NETFILTER = 12   # socket protocol
SOL_NETLINK = 270
NETLINK_NO_ENOBUFS = 5   # an overflowing receive buffer loses messages silently instead of failing recv
SO_RCVBUFFORCE, SO_SNDBUFFORCE = 33, 32  # buffer sizes beyond net.core.[rw]mem_max (CAP_NET_ADMIN)
NLM_F_REQUEST, NLM_F_ACK = 0x1, 0x4
NLMSG_ERROR = 2

NFNL_SUBSYS_QUEUE = 3    # nfnetlink message type = (subsystem << 8) | message
NFQNL_MSG_PACKET, NFQNL_MSG_VERDICT, NFQNL_MSG_CONFIG, NFQNL_MSG_VERDICT_BATCH = 0, 1, 2, 3
NFQA_PACKET_HDR, NFQA_VERDICT_HDR, NFQA_MARK, NFQA_PAYLOAD = 1, 2, 3, 10  # message attributes
NFQA_CFG_CMD, NFQA_CFG_PARAMS, NFQA_CFG_QUEUE_MAXLEN, NFQA_CFG_MASK, NFQA_CFG_FLAGS = 1, 2, 3, 4, 5
NFQNL_CFG_CMD_BIND, NFQNL_CFG_CMD_UNBIND, NFQNL_CFG_CMD_PF_BIND, NFQNL_CFG_CMD_PF_UNBIND = 1, 2, 3, 4
NFQNL_COPY_PACKET = 2
NFQA_CFG_F_FAIL_OPEN = 1 << 0
NF_DROP, NF_ACCEPT = 0, 1
QUEUE_MAXLEN = 20000
MARK = 0x6E716479        # "nqdy"
PACKET = (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET

# struct nlmsghdr (host byte order): u32 nlmsg_len (header included), u16 nlmsg_type, u16 nlmsg_flags,
#                                    u32 nlmsg_seq, u32 nlmsg_pid
NLMSGHDR = struct.Struct("=IHHII")
# struct nfgenmsg, after nlmsghdr: u8 nfgen_family, u8 version (NFNETLINK_V0 = 0), be16 res_id (queue number)
NFGENMSG = struct.Struct(">BBH")
# struct nlattr (host byte order): u16 nla_len (header included, padding not), u16 nla_type;
# then the payload, padded to a multiple of 4. The top two bits of nla_type are flags.
NLATTR = struct.Struct("=HH")
# NFQA_CFG_CMD:     struct nfqnl_msg_config_cmd    { u8 command; u8 _pad; be16 pf; }
CFG_CMD = struct.Struct(">BBH")
# NFQA_CFG_PARAMS:  struct nfqnl_msg_config_params { be32 copy_range; u8 copy_mode; } (packed, 5 bytes)
CFG_PARAMS = struct.Struct(">IB")
# NFQA_PACKET_HDR:  struct nfqnl_msg_packet_hdr    { be32 packet_id; be16 hw_protocol; u8 hook; } (packed)
# NFQA_MARK: be32.  NFQA_PAYLOAD: the packet from its IP header on.
# NFQA_VERDICT_HDR: struct nfqnl_msg_verdict_hdr   { be32 verdict; be32 id; }
VERDICT_HDR = struct.Struct(">II")
BE32 = struct.Struct(">I")
ERRNO = struct.Struct("=i")  # NLMSG_ERROR payload: s32 error (0 = ACK, else -errno), then the request


def attr(kind, payload):
    length = NLATTR.size + len(payload)
    return NLATTR.pack(length, kind) + payload + b"\0" * (-length % 4)


class Delayer:
    def __init__(self, queue, delay_ms, mark):
        self.queue, self.delay, self.mark = queue, delay_ms / 1000.0, mark
        self.held = collections.deque()  # (due, packet id or None, TCP copy or None), in arrival order
        self.verdicts = []               # verdict messages to send with the next flush()
        self.seq = 0
        self.buf = bytearray(1 << 17)
        self.view = memoryview(self.buf)
        self.received = self.lost = self.unsent = 0
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
        self.raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)  # we write the IP header
        self.raw.setsockopt(socket.SOL_SOCKET, socket.SO_MARK, mark)
        for sock, force, plain in ((self.sock, SO_RCVBUFFORCE, socket.SO_RCVBUF), (self.raw, SO_SNDBUFFORCE, socket.SO_SNDBUF)):
            try:
                sock.setsockopt(socket.SOL_SOCKET, force, 64 << 20)
            except OSError:
                sock.setsockopt(socket.SOL_SOCKET, plain, 64 << 20)
        try:
            self.sock.setsockopt(SOL_NETLINK, NETLINK_NO_ENOBUFS, 1)
        except OSError:
            pass  # then recv may fail with ENOBUFS, which recv() below counts and survives
        self.sock.bind((0, 0))  # the kernel picks our port id
        self.sock.setblocking(False)
        # verdict messages are the same but for the packet id, their last 4 bytes (seq is not looked at)
        self.drop, self.accept, self.accept_upto = (
            self.message(msg, [attr(NFQA_VERDICT_HDR, VERDICT_HDR.pack(verdict, 0))])[:-4]
            for msg, verdict in ((NFQNL_MSG_VERDICT, NF_DROP), (NFQNL_MSG_VERDICT, NF_ACCEPT), (NFQNL_MSG_VERDICT_BATCH, NF_ACCEPT)))

    def message(self, msg, attrs, flags=NLM_F_REQUEST):
        self.seq += 1
        body = NFGENMSG.pack(socket.AF_UNSPEC, 0, self.queue) + b"".join(attrs)
        return NLMSGHDR.pack(NLMSGHDR.size + len(body), (NFNL_SUBSYS_QUEUE << 8) | msg, flags, self.seq, 0) + body

    def flush(self):
        """Sends the pending verdicts, many netlink messages to a datagram."""
        for i in range(0, len(self.verdicts), 1000):
            self.sock.send(b"".join(self.verdicts[i:i + 1000]))
        self.verdicts.clear()

    def config(self, what, *attrs, check=True):
        """Sends a CONFIG message with NLM_F_ACK and waits for the kernel's answer."""
        self.sock.send(self.message(NFQNL_MSG_CONFIG, attrs, NLM_F_REQUEST | NLM_F_ACK))
        seq, deadline = self.seq, time.monotonic() + 5
        while (left := deadline - time.monotonic()) > 0:
            select.select([self.sock], [], [], left)
            while (n := self.recv()) is not None:
                error = self.handle(n, seq)
                if error is not None:
                    if error and check:
                        hint = f"is another program bound to queue {self.queue}?" if error in (errno.EBUSY, errno.EPERM) else "the kernel said no"
                        sys.exit(f"nfq-delay: {what} failed: {errno.errorcode.get(error, error)} ({hint})")
                    return
        sys.exit(f"nfq-delay: {what}: no answer from the kernel")

    def recv(self):
        """Reads one datagram into self.buf; its length, or None when there is none."""
        while True:
            try:
                return self.sock.recv_into(self.buf)
            except BlockingIOError:
                return None
            except OSError as e:
                if e.errno != errno.ENOBUFS:
                    raise
                self.lost += 1  # messages were lost (their packets passed undelayed: fail-open)

    def handle(self, n, acked_seq=None):
        """Takes the packets in the datagram; returns the error code of the ACK for acked_seq, if it is there."""
        now, buf, result, off = time.monotonic(), self.buf, None, 0
        while off + NLMSGHDR.size <= n:
            length, kind, _, seq, _ = NLMSGHDR.unpack_from(buf, off)
            if length < NLMSGHDR.size:
                break
            if kind == PACKET:
                packet_id = mark = payload = None
                a, end = off + NLMSGHDR.size + NFGENMSG.size, off + length
                while a + NLATTR.size <= end:
                    alen, atype = NLATTR.unpack_from(buf, a)
                    if alen < NLATTR.size:
                        break
                    atype &= 0x3FFF
                    if atype == NFQA_PACKET_HDR:
                        packet_id = BE32.unpack_from(buf, a + NLATTR.size)[0]
                    elif atype == NFQA_MARK:
                        mark = BE32.unpack_from(buf, a + NLATTR.size)[0]
                    elif atype == NFQA_PAYLOAD:
                        payload = bytes(self.view[a + NLATTR.size:a + alen])
                    a += (alen + 3) & ~3
                if packet_id is not None:
                    self.received += 1
                    if mark == self.mark:  # a copy we sent: already delayed
                        self.verdicts.append(self.accept + BE32.pack(packet_id))
                    elif payload and payload[0] >> 4 == 4 and payload[9] == socket.IPPROTO_TCP:
                        self.verdicts.append(self.drop + BE32.pack(packet_id))
                        self.held.append((now + self.delay, None, payload))
                    else:
                        self.held.append((now + self.delay, packet_id, None))
            elif kind == NLMSG_ERROR:
                error = -ERRNO.unpack_from(buf, off + NLMSGHDR.size)[0]
                if seq == acked_seq:
                    result = error
                elif error and error != errno.ENOENT:  # ENOENT: a verdict for a packet already gone
                    print(f"nfq-delay: kernel: {errno.errorcode.get(error, error)}", file=sys.stderr)
            off += (length + 3) & ~3
        return result

    def release(self, until):
        """Lets every held packet due by 'until' go: sends the TCP copies, accepts the others."""
        last = None
        while self.held and self.held[0][0] <= until:
            _, packet_id, copy = self.held.popleft()
            if copy is None:
                last = packet_id
                continue
            try:  # destination from the IP header (bytes 16-19); the kernel redoes the header checksum
                self.raw.sendto(copy, (socket.inet_ntoa(copy[16:20]), 0))
            except OSError:
                self.unsent += 1  # lost, as on a congested link; TCP resends
        if last is not None:
            # one batch verdict accepts every packet still queued with an id up to 'last': those the loop
            # passed (ids grow in arrival order), as the TCP ones before them are dropped already
            self.verdicts.append(self.accept_upto + BE32.pack(last))
        self.flush()

    def run(self, stop):
        # Kernels before 3.8 want the protocol family bound first; newer ones ignore these two.
        for cmd in (NFQNL_CFG_CMD_PF_UNBIND, NFQNL_CFG_CMD_PF_BIND):
            self.config("pf bind", attr(NFQA_CFG_CMD, CFG_CMD.pack(cmd, 0, socket.AF_INET)), check=False)
        self.config(f"bind to queue {self.queue}", attr(NFQA_CFG_CMD, CFG_CMD.pack(NFQNL_CFG_CMD_BIND, 0, 0)))
        self.config("copy mode", attr(NFQA_CFG_PARAMS, CFG_PARAMS.pack(0xFFFF, NFQNL_COPY_PACKET)))
        self.config("queue length", attr(NFQA_CFG_QUEUE_MAXLEN, BE32.pack(QUEUE_MAXLEN)))
        flags = BE32.pack(NFQA_CFG_F_FAIL_OPEN)
        self.config("flags", attr(NFQA_CFG_MASK, flags), attr(NFQA_CFG_FLAGS, flags))
        print(f"nfq-delay: queue {self.queue}, {round(self.delay * 1000)} ms", file=sys.stderr, flush=True)

        while not stop:
            # sleep until a packet arrives or the oldest held one is due; wake now and then to see 'stop'
            timeout = min(0.2, self.held[0][0] - time.monotonic()) if self.held else 0.2
            if timeout > 0:
                select.select([self.sock], [], [], timeout)
            for _ in range(2000):  # read what is there, but never so long that due packets wait
                n = self.recv()
                if n is None:
                    break
                self.handle(n)
            self.release(time.monotonic())  # also sends the drops and accepts of what was just read

        while (n := self.recv()) is not None:  # packets already queued to us go too
            self.handle(n)
        self.release(float("inf"))
        self.config("unbind", attr(NFQA_CFG_CMD, CFG_CMD.pack(NFQNL_CFG_CMD_UNBIND, 0, 0)), check=False)
        print(f"nfq-delay: stopped; {self.received} packets delayed"
              + (f", {self.lost} reads failed (ENOBUFS)" if self.lost else "")
              + (f", {self.unsent} copies not sent" if self.unsent else ""), file=sys.stderr, flush=True)


def main():
    p = argparse.ArgumentParser(description="Delay the packets an NFQUEUE rule queues (a netem delay in userspace).")
    p.add_argument("--queue", type=int, required=True, help="NFQUEUE queue number (0 to 65535)")
    p.add_argument("--delay-ms", type=int, required=True, help="how long every packet is held")
    p.add_argument("--mark", type=lambda s: int(s, 0), default=MARK, help=f"mark of the TCP copies (default {MARK:#x})")
    args = p.parse_args()
    if not 0 <= args.queue <= 65535 or args.delay_ms < 0:
        p.error("queue must be 0 to 65535, delay-ms at least 0")
    stop = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.append(True))
    Delayer(args.queue, args.delay_ms, args.mark).run(stop)


if __name__ == "__main__":
    main()
