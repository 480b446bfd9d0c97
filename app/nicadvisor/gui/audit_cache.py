"""What the wizard's views derive from the audit they show, computed once per audit on the worker that made it.

``Audit.verdict`` computes :func:`nicadvisor.model.verdict.verdict_of` afresh at each read (each host's readiness,
its capability matrix, the read-only commands still needed: about 25 ms a host of the demo lab on a loaded machine),
and the Inspect page built every host's capability matrix again. The wizard read the verdict six times on the GUI
thread after an audit (the banner, the per-host progress rows, the Finish panel twice) and again on Inspect, Findings
and Export: stalls of 60–300 ms (``benchmarks/gui_stalls.py``). The worker that produced an audit calls
:func:`warm`; every view calls :func:`verdict` / :func:`capability_rows` and gets what the worker made.

An entry is keyed by the audit object itself (held weakly) and a signature of what the views can change on it (the
lists of hosts, findings and inputs not understood, by identity and length, and the completion fields): an audit
changed so, or another audit object, is computed again. Both values are pure functions of the audit
(:func:`~nicadvisor.model.verdict.verdict_of`, :func:`~nicadvisor.model.capabilities.capability_matrix`), so a kept
one is the one a fresh computation would give.
"""
from __future__ import annotations

import threading
import weakref
from typing import Any, Callable

from nicadvisor.model.capabilities import Row, capability_matrix, switch_port_cell

_lock = threading.Lock()
#: (what, id(audit)) -> (weak reference to the audit, its signature, the value)
_cache: dict[tuple[str, int], tuple[weakref.ref, tuple, Any]] = {}


def _signature(audit: Any) -> tuple:
    hosts, findings = audit.hosts, getattr(audit, "findings", ())  # a summary-only audit has no findings list
    problems = getattr(audit, "inputs_not_understood", ())
    return (id(hosts), len(hosts), id(findings), len(findings), id(problems), len(problems),
            getattr(audit, "completion", None), getattr(audit, "hosts_expected", None),
            getattr(audit, "target_nsx", None), len(getattr(audit, "inputs", ())))


def _forget(ref: weakref.ref, key: tuple[str, int]) -> None:
    with _lock:
        entry = _cache.get(key)
        if entry is not None and entry[0] is ref:
            del _cache[key]


def _kept(what: str, audit: Any, compute: Callable[[Any], Any]) -> Any:
    key, sig = (what, id(audit)), _signature(audit)
    with _lock:
        entry = _cache.get(key)
    if entry is not None and entry[0]() is audit and entry[1] == sig:
        return entry[2]
    value = compute(audit)
    try:
        ref = weakref.ref(audit, lambda r, k=key: _forget(r, k))
    except TypeError:  # an object that cannot be weakly referenced (a test's namespace): not kept
        return value
    with _lock:
        _cache[key] = (ref, sig, value)
    return value


def verdict(audit: Any) -> Any:
    """``audit.verdict`` (a :class:`nicadvisor.model.verdict.Verdict`), computed at most once while ``audit`` is
    unchanged (see the module docstring). Safe from any thread; raises only what ``audit.verdict`` raises."""
    return _kept("verdict", audit, lambda a: a.verdict)


def capability_rows(audit: Any) -> list[tuple[Row, Any, str]]:
    """Every host's capability matrix rows (:func:`nicadvisor.model.capabilities.capability_matrix`), in host
    order, each with its pNIC (``Host.pnic``) and its switch port text (``switch_port_cell``: LLDP/CDP); computed at
    most once while ``audit`` is unchanged. Do not change the list returned."""
    def compute(a: Any) -> list[tuple[Row, Any, str]]:
        out = []
        for host in a.hosts:
            for row in capability_matrix(host, a.findings):
                pnic = host.pnic(row.pnic)
                out.append((row, pnic, switch_port_cell(host, pnic)))
        return out

    return _kept("capability_rows", audit, compute)


def warm(audit: Any) -> Any:
    """Compute ``audit``'s verdict and capability rows now (on the worker thread that made ``audit``, so that the GUI
    thread finds them made); returns ``audit``. None passes through."""
    if audit is not None:
        verdict(audit)
        capability_rows(audit)
    return audit
