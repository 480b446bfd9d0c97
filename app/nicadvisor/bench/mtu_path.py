"""MTU path check between audited Linux hosts: ``ping -M do`` (don't fragment) with the frame sizes that prove the
Geneve MTU, from each host's test address to every other host's. Read-only: nothing is started or changed on a host
but the ping itself, so no plan needs confirming. PURE here (argv, parsing, verdicts); :mod:`nicadvisor.bench.remote`
runs it over SSH.

Sizes (bytes of the IPv4 frame, ``ping -s`` = frame − 20 IPv4 − 8 ICMP):

* 1700: "if the VM's MTU is set to 1500 bytes, pNIC and the physical fabric should be set to 1700 or more" to leave
  200 bytes for the Geneve header and its options (nsx-t-performance-on-intel.txt "Jumbo MTU for Higher Throughput");
* the sender interface's own MTU when it is larger (9000 on a jumbo fabric): the configured MTU must cross the path
  too, or frames between 1700 and it are dropped.

A 100-byte ping goes first (:data:`REACH_FRAME`): when the peer does not answer it, nothing is proven (no route, a
firewall, no ICMP echo) and the larger sizes are not tried.

Outcomes, from iputils ``ping`` (``ping -V``: iputils 20221126) output: replies came back → the size passes;
``ping: local error: message too long, mtu=N`` → the sender's own interface MTU N is below the size; no reply and no
local error → dropped on the path (or the peer does not answer ICMP: the message says both).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

#: Frame size (bytes) the Geneve overlay needs with 1500-byte VMs (nsx-t-performance-on-intel.txt "Jumbo MTU for
#: Higher Throughput").
GENEVE_FABRIC_MTU = 1700
ICMP_OVERHEAD = 28  # IPv4 header 20 (RFC 791) + ICMP echo header 8 (RFC 792)
COUNT = 2
#: A small frame (bytes) sent first: when even it gets no reply the peer is unreachable (no route, a firewall, no
#: ICMP echo) and the MTU sizes would prove nothing.
REACH_FRAME = 100
REFERENCE = "nsx-t-performance-on-intel.txt §Jumbo MTU for Higher Throughput"

_STATS_RE = re.compile(r"(?P<sent>\d+) packets transmitted, (?P<recv>\d+) (?:packets )?received")
_LOCAL_RE = re.compile(r"local error: message too long, mtu=(?P<mtu>\d+)", re.I)


def frame_sizes(interface_mtu: int | None) -> tuple[int, ...]:
    """The frame sizes (bytes) to prove from an interface with ``interface_mtu``: 1700, and the MTU itself when it
    is larger."""
    if interface_mtu and interface_mtu > GENEVE_FABRIC_MTU:
        return (GENEVE_FABRIC_MTU, int(interface_mtu))
    return (GENEVE_FABRIC_MTU,)


def ping_argv(source: str, destination: str, frame_bytes: int) -> tuple[str, ...]:
    """``ping -M do -c 2 -i 0.2 -W 1 -s <frame − 28> -I <source> <destination>`` (IPv4 addresses). Raises ValueError
    for a frame below 68 or above 65535 bytes."""
    if not 68 <= frame_bytes <= 65535:
        raise ValueError(f"frame size {frame_bytes} bytes is outside 68..65535")
    return ("ping", "-M", "do", "-c", str(COUNT), "-i", "0.2", "-W", "1", "-s", str(frame_bytes - ICMP_OVERHEAD),
            "-I", source, destination)


@dataclass(frozen=True)
class MtuPathResult:
    """One size from one host to another: ``client``/``server`` host names, ``source``/``destination`` IPv4
    addresses, ``interface`` the sender's interface (may be ""), ``frame_bytes``; ``ok`` True (replies came back),
    False (a local MTU error, or no reply) or None (the ping could not run: ``detail`` says why); ``detail`` the
    sentence; ``command`` the command line; ``output`` the ping's output (evidence)."""

    client: str
    server: str
    source: str
    destination: str
    interface: str
    frame_bytes: int
    ok: bool | None
    detail: str
    command: str
    output: str

    def line(self) -> str:
        """``"lab-a (10.216.0.1, d0) → lab-b (10.216.0.2): 1700-byte frame: <detail>"``: both ends named."""
        via = f", {self.interface}" if self.interface else ""
        return (f"{self.client} ({self.source}{via}) → {self.server} ({self.destination}): {self.frame_bytes}-byte "
                f"frame with don't-fragment: {self.detail}")


def judge_ping(rc: int | None, output: str, frame_bytes: int) -> tuple[bool | None, str]:
    """(ok, sentence) of one ``ping -M do`` run: replies → (True, "passes"); ``message too long, mtu=N`` → (False,
    "the sender's interface MTU N is below it"); sent but none received → (False, "no reply: dropped on the path,
    or the peer does not answer ICMP echo"); no statistics line → (None, what the ping printed). Pure."""
    local = _LOCAL_RE.search(output)
    stats = _STATS_RE.search(output)
    if local:
        return False, f"the sender's interface MTU {local.group('mtu')} is below {frame_bytes} bytes"
    if stats and int(stats.group("recv")) > 0:
        return True, f"passes ({stats.group('recv')} of {stats.group('sent')} replies)"
    if stats:
        return False, (f"no reply to {stats.group('sent')} pings: frames of {frame_bytes} bytes are dropped on the "
                       "path (or the peer does not answer ICMP echo)")
    last = next((ln.strip() for ln in reversed(output.strip().splitlines()) if ln.strip()), "")
    return None, f"the ping did not run (exit status {rc})" + (f": {last}" if last else "")


def unreachable(detail: str) -> str:
    """The sentence for a peer that does not answer a :data:`REACH_FRAME`-byte ping (``detail``: what that ping
    gave): nothing is proven about the MTU."""
    return (f"no reply even to a {REACH_FRAME}-byte ping ({detail}): the peer is unreachable from this address or "
            "does not answer ICMP echo; nothing is proven about the MTU (name the interface on the TEP network with "
            "--interface)")


def host_verdict(results: list[MtuPathResult]) -> tuple[bool | None, str]:
    """``(mtu_path_ok, evidence)`` of one sending host from its results: False with the failed lines when any size to
    any peer failed; True with the passed lines when every size passed; None (nothing proven) otherwise."""
    failed = [r for r in results if r.ok is False]
    if failed:
        return False, "\n".join(_evidence(r) for r in failed)
    if results and all(r.ok for r in results):
        return True, "\n".join(_evidence(r) for r in results)
    return None, ""


def _evidence(r: MtuPathResult) -> str:
    """The result's sentence and the ping's own decisive line (its local error, else its statistics line)."""
    lines = [ln.strip() for ln in r.output.splitlines() if ln.strip()]
    own = next((ln for ln in lines if _LOCAL_RE.search(ln)), None) or next((ln for ln in lines if _STATS_RE.search(ln)),
                                                                          "")
    return f"{r.line()}" + (f" [ping: {own}]" if own else "")
