"""A private test path: two network namespaces joined by a veth pair, optionally with an MTU and a
``tc tbf`` rate limit. Needs root (CAP_SYS_ADMIN/CAP_NET_ADMIN) and iproute2.

Layout (``<pid>`` = owner process, ``<t>`` = 6 hex digits of the run)::

    nicadv-<pid>-<t>a  (client)  nv0 10.213.0.1/30  <==veth==>  nv1 10.213.0.2/30  nicadv-<pid>-<t>b  (server)

The veth ends are created directly inside the namespaces (``ip link add nv0 netns A type veth peer
name nv1 netns B``), so nothing is ever added to the host's own namespace, and the addresses exist
only inside these two namespaces: test traffic cannot leave them. Each namespace is journaled
before it is created (:mod:`nicadvisor.bench.journal`), so a crash leaves nothing that
``restore_from_journal()`` cannot delete.

Shaping uses ``tc qdisc add dev nv0 root tbf rate <R>mbit burst <B> latency 50ms`` on both veth
ends (this kernel has no netem; performance-baselines.md §2.1). ``mbit`` is 10^6 bit/s.
"""
from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field

from . import BenchError
from .journal import Journal, delete_netns
from .procs import Endpoints
from .sysutil import IP, TC, run_cmd

CLIENT_ADDR = "10.213.0.1"
SERVER_ADDR = "10.213.0.2"
PREFIX_LEN = 30
CLIENT_IF = "nv0"
SERVER_IF = "nv1"
TBF_LATENCY = "50ms"


class NetnsError(BenchError):
    """The namespace path could not be set up (not root, no ``ip``, or a command failed)."""


def can_create() -> str | None:
    """None when this process can build the namespace path, else the reason as a sentence."""
    if os.geteuid() != 0:
        return f"the netns path needs root (network namespaces and veth pairs); running as uid {os.geteuid()}"
    if shutil.which(IP) is None:
        return "the netns path needs iproute2's 'ip' command, which is not on PATH"
    return None


def tbf_burst_bytes(rate_mbit: int, mtu: int) -> int:
    """tbf bucket size in bytes: 5 ms worth of ``rate_mbit`` but at least 4 full frames
    (``mtu`` + 14-byte Ethernet header), so that a frame always fits the bucket."""
    return max(4 * (mtu + 14), int(rate_mbit * 1e6 / 8 * 0.005))


@dataclass
class NetnsPair:
    """A built path: namespace names, interface names, addresses, MTU (bytes, None = default 1500)
    and tbf rate (Mbit/s, None = unshaped). ``entries`` maps namespace name → journal entry id."""

    client_ns: str
    server_ns: str
    client_addr: str = CLIENT_ADDR
    server_addr: str = SERVER_ADDR
    client_if: str = CLIENT_IF
    server_if: str = SERVER_IF
    mtu: int | None = None
    rate_mbit: int | None = None
    entries: dict[str, str] = field(default_factory=dict)

    def endpoints(self) -> Endpoints:
        """The :class:`Endpoints` for tests on this path (server in ``server_ns``)."""
        return Endpoints("netns", self.server_addr, server_ns=self.server_ns, client_ns=self.client_ns)


def _must(argv: list[str]) -> None:
    res = run_cmd(argv)
    if not res.ok:
        raise NetnsError(f"netns setup failed: {res.describe()}")


def create_pair(journal: Journal, *, mtu: int | None = None, rate_mbit: int | None = None) -> NetnsPair:
    """Create the two namespaces, the veth pair, addresses, optional MTU and tbf shaping.

    ``mtu`` in bytes (68..65535), ``rate_mbit`` in Mbit/s (> 0). Raises ValueError for bad values,
    :class:`NetnsError` when not permitted or a command fails; in that case whatever was created is
    deleted again before raising.
    """
    if mtu is not None and not 68 <= mtu <= 65535:
        raise ValueError(f"MTU {mtu} is outside 68..65535 bytes")
    if rate_mbit is not None and rate_mbit <= 0:
        raise ValueError(f"rate {rate_mbit} Mbit/s must be positive")
    reason = can_create()
    if reason:
        raise NetnsError(reason)
    base = f"nicadv-{os.getpid()}-{journal.token}"
    pair = NetnsPair(client_ns=base + "a", server_ns=base + "b", mtu=mtu, rate_mbit=rate_mbit)
    try:
        for ns in (pair.client_ns, pair.server_ns):
            pair.entries[ns] = journal.record("netns", name=ns)
            _must([IP, "netns", "add", ns])
        _must([IP, "link", "add", pair.client_if, "netns", pair.client_ns, "type", "veth",
               "peer", "name", pair.server_if, "netns", pair.server_ns])
        for ns, dev, addr in ((pair.client_ns, pair.client_if, pair.client_addr),
                              (pair.server_ns, pair.server_if, pair.server_addr)):
            _must([IP, "-n", ns, "link", "set", "lo", "up"])
            if mtu is not None:
                _must([IP, "-n", ns, "link", "set", "dev", dev, "mtu", str(mtu)])
            _must([IP, "-n", ns, "addr", "add", f"{addr}/{PREFIX_LEN}", "dev", dev])
            _must([IP, "-n", ns, "link", "set", "dev", dev, "up"])
            if rate_mbit is not None:
                burst = tbf_burst_bytes(rate_mbit, mtu or 1500)
                _must([TC, "-n", ns, "qdisc", "add", "dev", dev, "root", "tbf", "rate", f"{rate_mbit}mbit",
                       "burst", str(burst), "latency", TBF_LATENCY])
    except BaseException:
        destroy_pair(pair, journal)
        raise
    return pair


def destroy_pair(pair: NetnsPair, journal: Journal) -> list[str]:
    """Delete both namespaces (stopping any process still inside) and their journal entries.
    Returns problem sentences for namespaces that could not be deleted (their entries stay)."""
    problems = []
    for ns in (pair.server_ns, pair.client_ns):
        entry = pair.entries.get(ns)
        if entry is None:
            continue
        if delete_netns(ns):
            journal.done(entry)
            del pair.entries[ns]
        else:
            problems.append(f"could not delete network namespace {ns}; restore_from_journal() will retry")
    return problems
