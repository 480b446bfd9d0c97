"""The TEP mesh: don't-fragment pings at Geneve frame size between every pair of audited TEPs (ESXi ``vmkping`` on the
TEP netstack from each TEP vmknic, Linux ``ping -M do`` from the test address), read into one
:class:`~nicadvisor.model.entities.PathTest` per pair and size. PURE here (argv, sizes, reading the outputs, the
cause in words, the order of the pings); :mod:`nicadvisor.bench.remote` runs the pings over SSH. Read-only: nothing
is started or changed on a host but the ping itself, so no plan needs confirming.

Sizes, per sender (``ping -s`` = frame − 28 for IPv4: IP header 20, RFC 791, + ICMP echo header 8, RFC 792; − 48
for IPv6, RFC 8200):

* the sender's own MTU (the TEP vmknic's, the Linux interface's): the configured MTU must cross the path, or frames
  between 1600 bytes and it are dropped;
* 1600 bytes, the minimum NSX needs ("ping ++netstack=vxlan … -d -s 1572 … for 1600 mtu",
  nsx-t-performance-on-intel.txt §1.5 "Checking MTU on an ESXi Host"; the public captures in
  shared/design/research/esxi-public/4_vmkping.md test 1572);
* 56 bytes (the default echo, an 84-byte frame), only after a size got no reply: answered, the path drops the large
  frames; unanswered, the peer is unreachable as addressed.

Pings run largest first: once a frame crossed, every smaller size of that pair passes without being sent (a path
that carries 1700-byte don't-fragment frames carries 1600-byte ones), and is marked so.

Causes (:data:`~nicadvisor.model.entities.PATH_CAUSES`), from the recorded outputs:

* ESXi ``sendto() failed (Message too long)`` (shared/fixtures/captures/esxi_vmkping-d_message_too_long_mtu_mismatch
  .txt, 4_vmkping.md §4.1) and iputils ``ping: local error: message too long, mtu=N``: the frame cannot leave the
  sender — its vmknic / switch (or interface) MTU is below it (``local-mtu``);
* no reply at the size while the 56-byte ping is answered: the path between drops frames of that size; it carries
  the largest size that crossed (``path-drops``);
* no reply at all: unreachable (``unreachable``); no reply while the 56-byte ping could not run: ``no-reply``;
* the ping did not run (not installed, the session lost, a refusal): ``not-run``, ``ok`` None.
"""
from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, replace
from typing import Callable

from nicadvisor.collect.ssh_commands import PATH_PINGS, check_path_ping
from nicadvisor.model.entities import (
    PATH_DROPS, PATH_LOCAL_MTU, PATH_NO_REPLY, PATH_NOT_RUN, PATH_PASS, PATH_UNREACHABLE, PathTest,
)
from nicadvisor.parsers.esxi.ping import read_ping_text

from . import path_rtt

#: The smallest frame (bytes) NSX carries Geneve in (nsx-t-performance-on-intel.txt §1.5).
GENEVE_MIN_FRAME = 1600
#: The echo payload (bytes) that tells "unreachable" from "large frames dropped": ping's default.
REACH_PAYLOAD = 56
COUNT = 3
#: The largest ICMP echo payload ping sends (bytes): 65535 (the IPv4 total length field) - 20 (IPv4 header) - 8 (ICMP
#: header), RFC 791/792; iputils ping and vmkping refuse more, and the catalogue checks the same bound
#: (collect/ssh_commands.py). A sender whose MTU is larger (``lo``: 65536) is tested at this payload.
MAX_PAYLOAD = 65507
#: Said on the row of a payload bounded to :data:`MAX_PAYLOAD`.
BOUNDED = ("the sender's MTU {mtu} is more than any ping can fill: tested at {payload} bytes of payload, the largest "
           "ICMP echo (a {frame}-byte frame)")
REFERENCE = "nsx-t-performance-on-intel.txt §1.5 Checking MTU on an ESXi Host"

_LINUX_LOCAL_RE = re.compile(r"local error: message too long, mtu=(?P<mtu>\d{2,6})", re.I)


def overhead(address: str) -> int:
    """Bytes a ping adds to its payload: 28 for IPv4, 48 for IPv6. Raises ValueError for a bad address."""
    return 48 if ipaddress.ip_address(address).version == 6 else 28


def payload_sizes(mtu: int | None, address: str) -> tuple[int, ...]:
    """The ``-s`` payloads (bytes) to prove from a sender with ``mtu`` toward ``address``, largest first: its MTU
    (when above 1600) and 1600 bytes, each minus :func:`overhead`; at most :data:`MAX_PAYLOAD` (``lo``'s MTU 65536
    gave 65508, which ping and the catalogue refuse: the mesh crashed between hosts reached through loopback)."""
    extra = overhead(address)
    sizes = [GENEVE_MIN_FRAME - extra]
    if mtu and mtu > GENEVE_MIN_FRAME:
        sizes.insert(0, min(int(mtu) - extra, MAX_PAYLOAD))
    return tuple(sizes)


def _filled(words: tuple[str, ...], values: dict[str, str], destination: str) -> tuple[str, ...]:
    """The catalogue words with their placeholders filled (the last ``{address}`` is the destination), checked by
    :func:`nicadvisor.collect.ssh_commands.check_path_ping`: its CommandRefused (a ValueError) names what does not
    fit."""
    out = [*words]
    out[len(out) - 1 - out[::-1].index("{address}")] = destination
    for i, w in enumerate(out):
        for name, value in values.items():
            w = w.replace("{" + name + "}", value)
        out[i] = w
    argv = tuple(out)
    check_path_ping(argv)
    return argv


def linux_argv(source: str, destination: str, payload: int) -> tuple[str, ...]:
    """``ping -M do -c 3 -i 0.2 -W 1 -s PAYLOAD -I SOURCE DESTINATION`` (iputils; addresses as the probe read them),
    the catalogue's Linux path-test ping (:data:`nicadvisor.collect.ssh_commands.PATH_PINGS`). Raises ValueError for
    a payload outside 0..65507 or a bad address."""
    words = next(w for w in PATH_PINGS if w[0] == "ping")
    return _filled(words, {"size": str(payload), "address": source}, destination)


def esxi_argv(vmknic: str, netstack: str, destination: str, payload: int) -> tuple[str, ...]:
    """``vmkping ++netstack=NETSTACK -I VMKN -d -s PAYLOAD -c 3 [-6] DESTINATION``, the catalogue's TEP ping (the TEP
    netstack and vmknic: the management netstack would test another path). Raises ValueError for a bad vmknic,
    netstack, payload or address."""
    words = next(w for w in PATH_PINGS if w[0] == "vmkping" and ("-6" in w) == (":" in destination))
    return _filled(words, {"netstack": netstack, "vmk": vmknic, "size": str(payload)}, destination)


@dataclass(frozen=True)
class Endpoint:
    """One end of the mesh: ``host`` (its name), ``kind`` (``esxi``/``linux``), ``interface`` (the TEP vmknic on
    ESXi, the interface on Linux; ``""`` when not known), ``address`` (IPv4 or IPv6), ``mtu`` bytes (None: not
    known), ``netstack`` (ESXi: the vmknic's, ``vxlan``)."""

    host: str
    kind: str
    interface: str
    address: str
    mtu: int | None = None
    netstack: str = ""

    def argv(self, destination: str, payload: int) -> tuple[str, ...]:
        """The ping of ``payload`` bytes from this end to ``destination``."""
        if self.kind == "esxi":
            return esxi_argv(self.interface, self.netstack or "vxlan", destination, payload)
        return linux_argv(self.address, destination, payload)


@dataclass(frozen=True)
class Ping:
    """What one ping printed, read: ``ran`` (a statistics line or a local error was printed), ``sent``/``received``
    echoes, ``local_error`` (the sender refused the frame: its words), ``local_mtu`` (iputils names the MTU),
    ``rtt`` (min, avg, max µs) or None, and the ``text``."""

    ran: bool
    sent: int | None
    received: int | None
    local_error: str
    local_mtu: int | None
    rtt: tuple[float, float, float] | None
    text: str


def read_ping(rc: int | None, text: str) -> Ping:
    """An ESXi ``vmkping`` or iputils ``ping`` output read into a :class:`Ping`. Round trips come from the summary
    (``round-trip min/avg/max = …``, ``rtt min/avg/max/mdev = …``) or, when it is missing (a cut output), from the
    reply lines' ``time=`` values. Reads at most the last 64 KiB. Pure; never raises."""
    tail = text[-65536:]
    esxi = read_ping_text(tail)
    linux = _LINUX_LOCAL_RE.search(tail)
    stats = path_rtt._STATS_RE.search(tail)
    sent = int(stats.group("sent")) if stats else esxi["sent"]
    received = int(stats.group("recv")) if stats else esxi["received"]
    got = path_rtt.parse_ping(tail)
    rtt = (got.min_us, got.avg_us, got.max_us) if got is not None else None
    if rtt is None:
        times = [float(m.group("ms")) * 1000 for m in path_rtt._TIME_RE.finditer(tail)]
        if times:
            rtt = (min(times), sum(times) / len(times), max(times))
            if received is None:
                received = len(times)
    local = str(esxi["error"] or "") or ("message too long" if linux else "")
    ran = stats is not None or bool(local) or esxi["sent"] is not None or rtt is not None
    return Ping(ran=ran, sent=sent, received=received, local_error=local,
                local_mtu=int(linux.group("mtu")) if linux else None, rtt=rtt, text=text)


def _last_line(text: str) -> str:
    return next((ln.strip() for ln in reversed(text.strip().splitlines()) if ln.strip()), "")


Runner = Callable[[tuple[str, ...]], "tuple[int | None, str]"]
"""Runs a ping on the sender and returns ``(exit status or None, output)``; raises nothing (a lost session is an
output saying so with status None)."""


def _row(a: Endpoint, b: Endpoint, payload: int, **kw: object) -> PathTest:
    return PathTest(client=a.host, server=b.host, client_if=a.interface, server_if=b.interface, source=a.address,
                    destination=b.address, payload_bytes=payload, frame_bytes=payload + overhead(b.address),
                    netstack=a.netstack if a.kind == "esxi" else "", **kw)  # type: ignore[arg-type]


def _measured(a: Endpoint, b: Endpoint, payload: int, argv: tuple[str, ...], rc: int | None, text: str,
              where: str) -> tuple[PathTest, Ping]:
    got = read_ping(rc, text)
    frame = payload + overhead(b.address)
    rtt = dict(zip(("rtt_min_us", "rtt_avg_us", "rtt_max_us"), got.rtt or (None, None, None)))
    common = dict(sent=got.sent, received=got.received, command=f"{' '.join(argv)}   # on {where}", output=text,
                  **rtt)
    if got.received:
        detail = f"passes ({got.received} of {got.sent or got.received} replies)"
        return _row(a, b, payload, ok=True, cause=PATH_PASS, detail=detail, **common), got
    if got.local_error:
        own = f"{a.interface} (MTU {a.mtu})" if a.interface and a.mtu else a.interface or a.address
        what = "its vmknic or the switch it is on" if a.kind == "esxi" else "its interface"
        mtu = f" (the sender names MTU {got.local_mtu})" if got.local_mtu else ""
        detail = (f"{frame}-byte frames cannot leave {own} on {a.host}: {what} has a smaller MTU{mtu} "
                  f"(\"{got.local_error}\")")
        return _row(a, b, payload, ok=False, cause=PATH_LOCAL_MTU, detail=detail, **common), got
    if got.ran and got.sent:
        return _row(a, b, payload, ok=False, cause=PATH_NO_REPLY,
                    detail=f"no reply to {got.sent} pings of {frame}-byte frames", **common), got
    why = "ping is not installed" if rc == 127 else f"exit status {rc}" if rc is not None else "no exit status"
    last = _last_line(text)
    return _row(a, b, payload, ok=None, cause=PATH_NOT_RUN,
                detail=f"the ping did not run ({why})" + (f": {last}" if last else ""), **common), got


def link_down_row(a: Endpoint, b: Endpoint, detail: str, command: str) -> PathTest:
    """The one row of the pair ``a`` → ``b`` when an end's test interface has no link (read before any ping):
    failed, cause ``unreachable``, ``detail`` the sentence naming the interface and host that are down and
    ``command`` the read that says so (``ip -o link show dev IF   # on HOST``). No ping is sent: none could cross."""
    return _row(a, b, REACH_PAYLOAD, ok=False, cause=PATH_UNREACHABLE, detail=detail, command=command)


def probe_pair(a: Endpoint, b: Endpoint, run: Runner, where: str = "") -> list[PathTest]:
    """The rows of the ordered pair ``a`` → ``b`` (sizes of :func:`payload_sizes`, largest first; a smaller size
    passes without a ping once a larger crossed; the 56-byte ping after the first size without a reply; the other
    sizes are not tried once the peer proved unreachable). ``run(argv)`` runs a ping on ``a``'s host (``where``
    names it in the command). The no-reply rows then say the cause (``path-drops`` naming the largest frame that
    crossed, ``unreachable`` or ``no-reply``). Raises ValueError for a bad endpoint."""
    rows: list[PathTest] = []
    crossed: int | None = None
    reach: Ping | None = None
    for payload in payload_sizes(a.mtu, b.address):
        frame = payload + overhead(b.address)
        if crossed is not None:
            rows.append(_row(a, b, payload, ok=True, cause=PATH_PASS,
                             detail=f"passes: {crossed}-byte frames crossed this path with don't-fragment, so "
                                    f"{frame}-byte frames do (not sent)"))
            continue
        argv = a.argv(b.address, payload)
        rc, text = run(argv)
        row, got = _measured(a, b, payload, argv, rc, text, where or a.host)
        if a.mtu and payload == MAX_PAYLOAD and a.mtu - overhead(b.address) > MAX_PAYLOAD:
            row = replace(row, detail=f"{row.detail}; " + BOUNDED.format(mtu=a.mtu, payload=payload, frame=frame))
        rows.append(row)
        if row.ok:
            crossed = frame
        elif row.cause == PATH_NO_REPLY and reach is None:
            argv = a.argv(b.address, REACH_PAYLOAD)
            rc, text = run(argv)
            small, reach = _measured(a, b, REACH_PAYLOAD, argv, rc, text, where or a.host)
            if small.cause == PATH_NO_REPLY:
                small = replace(small, cause=PATH_UNREACHABLE,
                                detail=f"no reply even to {small.frame_bytes}-byte pings: {b.address} is unreachable "
                                       f"from {a.interface or a.address} (address, VLAN or routing), or does not "
                                       "answer ICMP echo")
            rows.append(small)
            if small.cause == PATH_UNREACHABLE:
                break
    return _explain(rows, reach, b)


def _explain(rows: list[PathTest], reach: Ping | None, b: Endpoint) -> list[PathTest]:
    """Give each no-reply row its cause, once the pair's other sizes are known."""
    passed = [r.frame_bytes for r in rows if r.ok and r.payload_bytes != REACH_PAYLOAD]
    small = next((r for r in rows if r.payload_bytes == REACH_PAYLOAD), None)
    out = []
    for r in rows:
        if r.cause == PATH_NO_REPLY and r.payload_bytes != REACH_PAYLOAD:
            base = f"no reply to {r.sent} pings of {r.frame_bytes}-byte frames"
            if small is not None and small.ok:
                carries = (f"it carries {max(passed)}-byte frames (the largest that crossed) but not "
                           f"{r.frame_bytes}" if passed else
                           f"it carries none of the sizes tried (less than {min(x.frame_bytes for x in rows if x.payload_bytes != REACH_PAYLOAD)} bytes)")
                r = replace(r, cause=PATH_DROPS, detail=f"{base} while {small.frame_bytes}-byte pings are answered: "
                                                        f"the path to {b.address} drops large frames; {carries}")
            elif small is not None and small.cause == PATH_UNREACHABLE:
                r = replace(r, cause=PATH_UNREACHABLE, detail=f"{base}, nor to {small.frame_bytes}-byte pings: "
                                                              f"{b.address} is unreachable as addressed")
            else:
                why = small.detail if small is not None else "it was not sent"
                r = replace(r, detail=f"{base}; whether {b.address} answers at all is not known (the "
                                      f"{REACH_PAYLOAD}-byte ping: {why}): unreachable, or large frames dropped")
        out.append(r)
    return out


def host_verdict(rows: list[PathTest]) -> tuple[bool | None, str]:
    """``(mtu_path_ok, evidence)`` of a host from the rows it sent and received: True with the passed lines when every
    row passed; False with the failed lines when one failed; None (nothing proven) otherwise."""
    failed = [r for r in rows if r.ok is False]
    if failed:
        return False, "\n".join(r.line() for r in failed)
    if rows and all(r.ok for r in rows):
        return True, "\n".join(r.line() for r in rows)
    return None, ""


def tep_endpoints(host: str, esxcfg_vmknic_l: str, vmknics: object = None) -> list[Endpoint]:
    """The TEP vmknics of ``host`` in the text of ``esxcfg-vmknic -l`` (netstack ``vxlan`` or an NSX overlay stack:
    :func:`nicadvisor.parsers.esxi.vmknic.is_tep_netstack`), as mesh ends: each with its MTU and netstack and its
    first IPv4 address (else its first IPv6 one); a TEP without an address is left out. ``vmknics`` (a list of
    :class:`~nicadvisor.model.entities.VmkernelNic`) is used instead of the text when given: the audited facts (the
    NSX API or vCenter may know TEPs the listing does not). Pure; never raises."""
    from nicadvisor.model.entities import VmkernelNic
    from nicadvisor.parsers.registry import parse_output

    if vmknics is None:
        found: dict[str, VmkernelNic] = {}
        for result in parse_output("esxcfg-vmknic -l", esxcfg_vmknic_l):
            for name, facts in result.vmknics.items():
                v = found.setdefault(name, VmkernelNic(name=name))
                for field_name, fact in facts.items():
                    if getattr(v, field_name, None) is None:
                        setattr(v, field_name, fact.value)
        vmknics = list(found.values())
    out = []
    for v in vmknics or []:  # type: ignore[union-attr]
        if not v.is_tep or not VMK_NAME_RE.match(v.name):
            continue
        addrs = [a for a in (v.addresses or []) if _version(a)]
        addr = next((a for a in addrs if _version(a) == 4), None) or next(iter(addrs), None)
        if addr:
            out.append(Endpoint(host=host, kind="esxi", interface=v.name, address=addr, mtu=v.mtu,
                                netstack=v.netstack or "vxlan"))
    return out


VMK_NAME_RE = re.compile(r"^vmk\d{1,4}\Z")


def _version(address: str) -> int | None:
    try:
        return ipaddress.ip_address(address).version
    except ValueError:
        return None
