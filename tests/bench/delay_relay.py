"""A user-space delay relay for the test lab (this kernel has no netem): a layer-2 link between two interfaces of one
network namespace that holds every frame for a fixed time before passing it on.

    python3 delay_relay.py IF_A IF_B DELAY_US

Two AF_PACKET sockets (one per interface) served by ONE thread: each frame is due DELAY_US after the kernel received
it (its ``SO_TIMESTAMPNS`` receive time, so a late read adds nothing) and is sent out of the other interface at that
time, in order per direction. The thread waits in ``select`` until shortly before the next frame is due, then spins
(a late wake-up would add its own, varying delay). One thread and no lock: an earlier version with a reader and a
writer thread per direction shared the GIL among four threads, and on a busy 2-vCPU machine a thread preempted while
holding it stalled the others for a scheduler slice (echoes of a 2 ms relay took 4-11 ms; benchmarks/rr_band.py
--load 2); it also runs at real-time priority (SCHED_FIFO) when it may, so that busy processes do not delay it
either: test equipment with its own timing, like a switch. Frames the relay itself sent (PACKET_OUTGOING) are not
read back. Prints "ready" once both sockets are bound, runs until killed. The hosts' interfaces must not hand it
partial checksums or GSO super-frames (tests/bench/remote_lab.py turns tx checksumming, TSO and GSO off on them): an
AF_PACKET socket passes frames on as they are.
"""
from __future__ import annotations

import collections
import os
import select
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4  # <linux/if_packet.h>
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # <asm-generic/socket.h> SO_TIMESTAMPNS_OLD (= SCM_TIMESTAMPNS)
SPIN_S = 0.0003
RT_PRIORITY = 10  # SCHED_FIFO, above every normal task; the kernel's RT throttling (95 %) bounds a runaway
_TIMESPEC = struct.Struct("@ll")
_ANC = socket.CMSG_SPACE(_TIMESPEC.size)


def _open(ifname: str) -> socket.socket:
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    sock.bind((ifname, 0))
    sock.setblocking(False)
    return sock


def _received_at(ancdata: list[tuple[int, int, bytes]]) -> float:
    """The kernel's receive time of a frame (CLOCK_REALTIME, s), or now when it gave none."""
    for level, kind, data in ancdata:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(data) >= _TIMESPEC.size:
            sec, nsec = _TIMESPEC.unpack_from(data)
            return sec + nsec / 1e9
    return time.time()


def relay(a: socket.socket, b: socket.socket, delay_s: float) -> None:
    """Pass frames between ``a`` and ``b`` after ``delay_s``, forever."""
    peer = {a: b, b: a}
    queues: dict[socket.socket, collections.deque[tuple[float, bytes]]] = {a: collections.deque(),
                                                                          b: collections.deque()}
    while True:
        heads = [q[0][0] for q in queues.values() if q]
        wait = max(0.0, min(heads) - time.time() - SPIN_S) if heads else None
        readable, _, _ = select.select([a, b], [], [], wait)
        for rx in readable:
            while True:
                try:
                    data, anc, _flags, addr = rx.recvmsg(65536, _ANC)
                except BlockingIOError:
                    break
                if addr[2] != PACKET_OUTGOING:
                    queues[rx].append((_received_at(anc) + delay_s, data))
        if heads and not readable:
            due = min(heads)
            while time.time() < due:  # the last SPIN_S are spent spinning, so the delay holds under load
                pass
        now = time.time()
        for rx, queue in queues.items():
            while queue and queue[0][0] <= now:
                try:
                    peer[rx].send(queue.popleft()[1])
                except OSError:
                    pass  # a frame the link cannot take (too big) or a full queue: dropped, as a switch would


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    a, b = _open(argv[0]), _open(argv[1])
    delay_s = int(argv[2]) / 1e6
    try:  # like a switch, the relay does not wait for the CPU: real-time priority (root), bounded by RT throttling
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(RT_PRIORITY))
    except (OSError, AttributeError):
        pass  # not root: a busy machine then adds its scheduling delay to the relay's
    print("ready", flush=True)
    relay(a, b, delay_s)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
