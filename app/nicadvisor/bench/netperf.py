"""netperf 2.7 driver: ``netserver`` on a free port, ``netperf`` omni tests, and a pure parser of the
omni output.

Commands (the form measured in performance-baselines.md §4)::

    netserver -D -f -4 -L 127.0.0.1 -p PORT        # foreground, no child per test, always stopped
    netperf -H 127.0.0.1 -p PORT -t TCP_STREAM -l SECS -P 0 -- -o SELECTORS -m 65536
    netperf -H 127.0.0.1 -p PORT -t TCP_RR -l SECS -P 0 -- -o SELECTORS -r 1,1
    netperf ... -t TCP_CRR ... -- -o SELECTORS -r 1,1
    netperf ... -t UDP_STREAM ... -- -o SELECTORS -m 1400

``-m 65536`` because netperf's default 16 KiB send size is 3.4x slower on veth
(performance-baselines.md §2.4); ``-m 1400`` keeps UDP datagrams under a 1500-byte MTU.

Omni output (``-o`` CSV with ``-P 0``; with ``-P 1`` a "MIGRATED ... TEST" banner and a line of
human-readable column names come first; ``-k`` prints ``NAME=value`` lines instead), e.g. from a run
on this machine (tests/bench/data/netperf_tcp_rr_omni.txt)::

    22509.97,Trans/s,22509.970,44.38,49,66,1.00,0.18,0.18,TCP,Send|Recv
"""
from __future__ import annotations

import shutil
import threading
from typing import Callable

from . import BenchError
from .journal import Journal
from .procs import LOOPBACK, Endpoints, ServerProcess, netns_argv, run_client
from .results import BenchResult
from .sysutil import free_tcp_port

#: Omni output selectors requested, in this order.
SELECTORS: tuple[str, ...] = (
    "THROUGHPUT", "THROUGHPUT_UNITS", "TRANSACTION_RATE", "MEAN_LATENCY", "P50_LATENCY", "P99_LATENCY",
    "ELAPSED_TIME", "LOCAL_SEND_THROUGHPUT", "REMOTE_RECV_THROUGHPUT", "PROTOCOL", "DIRECTION",
)
TESTS = ("TCP_STREAM", "TCP_RR", "TCP_CRR", "UDP_STREAM")

#: THROUGHPUT_UNITS → factor to Gbit/s (netperf prints 10^6bits/s by default; -f g/k change it).
_UNIT_TO_GBPS = {
    "10^9bits/s": 1.0, "10^6bits/s": 1e-3, "10^3bits/s": 1e-6, "bits/s": 1e-9,
    "2^30bytes/s": 8 * 2**30 / 1e9, "2^20bytes/s": 8 * 2**20 / 1e9, "2^10bytes/s": 8 * 2**10 / 1e9,
    "bytes/s": 8e-9,
}


def available() -> bool:
    """True when both ``netperf`` and ``netserver`` are on PATH."""
    return shutil.which("netperf") is not None and shutil.which("netserver") is not None


def netserver_argv(bind: str, port: int) -> list[str]:
    """``netserver -D -f -4 -L bind -p port``: foreground (-D), serial tests without forking (-f)."""
    return ["netserver", "-D", "-f", "-4", "-L", bind, "-p", str(port)]


def netperf_argv(test: str, host: str, port: int, duration_s: float,
                 selectors: tuple[str, ...] = SELECTORS) -> list[str]:
    """The netperf client command for ``test`` (one of :data:`TESTS`) lasting ``duration_s`` seconds
    (netperf takes whole seconds: rounded, at least 1). Raises ValueError for an unknown test."""
    if test not in TESTS:
        raise ValueError(f"netperf test {test!r} is not one of {TESTS}")
    secs = max(1, round(duration_s))
    argv = ["netperf", "-H", host, "-p", str(port), "-t", test, "-l", str(secs), "-P", "0",
            "--", "-o", ",".join(selectors)]
    if test == "TCP_STREAM":
        argv += ["-m", "65536"]
    elif test == "UDP_STREAM":
        argv += ["-m", "1400"]
    else:
        argv += ["-r", "1,1"]
    return argv


def _is_number(tok: str) -> bool:
    try:
        float(tok)
    except ValueError:
        return False
    return True


def parse_omni(text: str, selectors: tuple[str, ...] = SELECTORS) -> dict[str, str]:
    """Read netperf omni output into ``{selector: text value}``. Pure; never raises.

    Accepts the ``-o`` CSV form (the last line with exactly ``len(selectors)`` comma-separated fields
    whose first field is a number; banner and column-name lines are skipped) and the ``-k``
    ``NAME=value`` form (only names in ``selectors`` are kept). Returns ``{}`` when neither is found
    (e.g. ``establish control: are you sure there is a netserver listening ...``).
    """
    keyval: dict[str, str] = {}
    csv_row: list[str] | None = None
    wanted = set(selectors)
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if "=" in line and "," not in line:
            name, _, value = line.partition("=")
            if name.strip() in wanted:
                keyval[name.strip()] = value.strip()
            continue
        fields = [f.strip() for f in line.split(",")]
        if len(fields) == len(selectors) and _is_number(fields[0]):
            csv_row = fields
    if keyval:
        return keyval
    if csv_row is not None:
        return dict(zip(selectors, csv_row))
    return {}


def _num(values: dict[str, str], key: str) -> float | None:
    tok = values.get(key)
    if tok is None:
        return None
    try:
        v = float(tok)
    except ValueError:
        return None
    return v if v >= 0 else None  # netperf prints -1 for "not applicable"


def omni_figures(values: dict[str, str], test: str) -> tuple[float | None, float | None, float | None]:
    """``(throughput_gbps, transactions_per_s, latency_us)`` from :func:`parse_omni` values. Pure.

    Stream tests: REMOTE_RECV_THROUGHPUT (what arrived; for UDP it is less than what was sent),
    else THROUGHPUT, converted from THROUGHPUT_UNITS to Gbit/s; None if the unit is unknown.
    RR/CRR tests: TRANSACTION_RATE (else THROUGHPUT in ``Trans/s``); latency = 1e6 / rate µs.
    """
    if test.endswith("_STREAM"):
        factor = _UNIT_TO_GBPS.get(values.get("THROUGHPUT_UNITS", ""))
        value = _num(values, "REMOTE_RECV_THROUGHPUT")
        if value is None or value == 0:
            value = _num(values, "THROUGHPUT")
        if factor is None or value is None:
            return None, None, None
        return value * factor, None, None
    rate = _num(values, "TRANSACTION_RATE")
    if rate is None and values.get("THROUGHPUT_UNITS") == "Trans/s":
        rate = _num(values, "THROUGHPUT")
    if not rate:
        return None, None, None
    return None, rate, 1e6 / rate


def run_netperf(test: str, journal: Journal, *, endpoints: Endpoints = LOOPBACK, duration_s: float = 2.0,
                cancel: threading.Event | None = None,
                on_tick: Callable[[float], None] | None = None) -> BenchResult:
    """Run one netperf ``test`` against a fresh netserver on ``endpoints`` and return its result
    (``expected`` None; the service attaches it).

    The netserver listens on a free port, is journaled and is always stopped. Raises
    :class:`BenchError` when netserver or netperf fails or prints no readable result,
    :class:`Cancelled` when ``cancel`` is set (both processes stopped first).
    """
    port = free_tcp_port()
    server = ServerProcess(netns_argv(endpoints.server_ns, netserver_argv(endpoints.server_addr, port)),
                           port, journal, cancel=cancel)
    argv = netperf_argv(test, endpoints.server_addr, port, duration_s)
    full = netns_argv(endpoints.client_ns, argv)
    with server:
        rc, out, err = run_client(full, timeout_s=max(1, round(duration_s)) + 20, cancel=cancel, on_tick=on_tick)
    values = parse_omni(out)
    gbps, tps, lat = omni_figures(values, test)
    if rc != 0 or (gbps is None and tps is None):
        detail = (err.strip() or out.strip()).splitlines()
        raise BenchError(f"netperf {test} failed (rc={rc})" + (f": {detail[-1]}" if detail else ""))
    elapsed = _num(values, "ELAPSED_TIME") or float(max(1, round(duration_s)))
    raw = out if not err.strip() else out + "\n# stderr:\n" + err
    return BenchResult(test=test, tool="netperf", path=endpoints.path, throughput_gbps=gbps,
                       transactions_per_s=tps, latency_us=lat, duration_s=elapsed, expected=None,
                       raw=raw, command=" ".join(full))

