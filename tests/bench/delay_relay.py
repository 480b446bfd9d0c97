"""A user-space delay relay for the test lab (this kernel has no netem): a layer-2 link between two interfaces of
one network namespace that holds every frame for a fixed time before passing it on.

    python3 delay_relay.py IF_A IF_B DELAY_US

Two AF_PACKET sockets (one per interface); per direction a reader thread stamps each frame it receives with its due
time (now + DELAY_US) and a writer thread sends it out of the other interface at that time, in order (it sleeps
until shortly before, then spins: a late wake-up would add its own, varying delay). Frames the
relay itself sent (PACKET_OUTGOING) are not read back. Prints "ready" once both sockets are bound, runs until killed.
The hosts' interfaces must not hand it partial checksums or GSO super-frames (tests/bench/remote_lab.py turns
tx checksumming, TSO and GSO off on them): an AF_PACKET socket passes frames on as they are.
"""
from __future__ import annotations

import collections
import socket
import sys
import threading
import time

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4  # <linux/if_packet.h>
SPIN_S = 0.0004


def _open(ifname: str) -> socket.socket:
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    sock.bind((ifname, 0))
    return sock


def _direction(rx: socket.socket, tx: socket.socket, delay_s: float) -> None:
    queue: collections.deque[tuple[float, bytes]] = collections.deque()
    ready = threading.Condition()

    def reader() -> None:
        while True:
            data, addr = rx.recvfrom(65536)
            if addr[2] == PACKET_OUTGOING:
                continue
            with ready:
                queue.append((time.monotonic() + delay_s, data))
                ready.notify()

    def writer() -> None:
        while True:
            with ready:
                while not queue:
                    ready.wait()
                due, data = queue.popleft()
            wait = due - time.monotonic()
            if wait > SPIN_S:
                time.sleep(wait - SPIN_S)  # the scheduler wakes a sleeper late by tens of µs, more on a busy host:
            while time.monotonic() < due:  # the last SPIN_S are spent spinning, so the delay holds under load
                pass
            try:
                tx.send(data)
            except OSError:
                pass  # a frame the link cannot take (too big): dropped, as a switch would

    for target in (reader, writer):
        threading.Thread(target=target, daemon=True).start()


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    a, b = _open(argv[0]), _open(argv[1])
    delay_s = int(argv[2]) / 1e6
    _direction(a, b, delay_s)
    _direction(b, a, delay_s)
    print("ready", flush=True)
    threading.Event().wait()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
