"""Use-case: earlier runs of the same benchmark tests, from the audit history, to draw beside today's results.

A run is "the same test" only on the same path with the same tool: the same catalogue test (or netperf test),
payload, streams and direction, the same tool, and the same ends: for a result between audited hosts the same two
hosts *and addresses* (``endpoints`` names both), for a run on the machine running NIC Advisor the same path, machine,
MTU and shaping (``endpoints`` says them), and between hosts the same path conditions read before the run (the
sender's tbf rate and both ends' MTU: ``path_conditions``; a run that read none matches only runs that read none).
So an earlier run is never compared across paths, shapings or tools, as the expectations are not either. A change
of link speed between two runs over the same addresses is not seen: the earlier run's audit says what was true
then.

:func:`earlier_runs` is pure (result documents in, runs out); :func:`load_earlier` reads the history.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from nicadvisor.bench.results import comparison_of, verdict_of

if TYPE_CHECKING:
    from nicadvisor.model.audit import Audit
    from nicadvisor.store.history import AuditStore

#: Earlier runs kept per result (newest first).
PER_RESULT = 5
#: How many of the newest audits with benchmark results :func:`load_earlier` reads.
SEARCH_DEPTH = 50


@dataclass(frozen=True)
class EarlierRun:
    """One earlier run of a test: ``audit_id`` and ``when`` (its audit's ``created_at``), the measured ``value`` in
    ``unit`` (``"Gbit/s"`` for a stream test, ``"µs"`` round trip for a request/response test), its ``tool``, and the
    ``verdict``/``comparison`` it had against its own expectation then (``""`` without one)."""

    audit_id: int
    when: str
    value: float
    unit: str
    tool: str
    verdict: str = ""
    comparison: str = ""

    def text(self) -> str:
        """``"9.41 Gbit/s with netperf, audit #12 of 2026-11-20 (PASS)"`` (the date is the audit's: a run added to an
        audit later carries no date of its own)."""
        verdict = f" ({self.verdict.upper()})" if self.verdict else ""
        return f"{self.value:,.3g} {self.unit} with {self.tool}, audit #{self.audit_id} of {self.when[:10]}{verdict}"


def run_key(doc: Mapping[str, Any]) -> tuple[Any, ...]:
    """What makes two result documents the same test on the same path with the same tool (module docstring)."""
    return (doc.get("spec") or doc.get("test"), doc.get("test"), doc.get("tool"), doc.get("payload_bytes"),
            doc.get("streams") or 1, doc.get("direction") or "send", doc.get("path"), doc.get("client"),
            doc.get("server"), doc.get("endpoints"), doc.get("path_conditions") or "")


def _same_result(doc: Mapping[str, Any]) -> tuple[Any, ...]:
    """A result document as stored, to tell a current result from an earlier run kept in the same audit."""
    return (run_key(doc), doc.get("command"), doc.get("throughput_gbps"), doc.get("transactions_per_s"),
            doc.get("latency_us"), doc.get("duration_s"))


def figure(doc: Mapping[str, Any]) -> tuple[float, str] | None:
    """The figure a chart draws for a result document: ``(Gbit/s, "Gbit/s")`` for a stream test, ``(µs, "µs")``
    round trip for a request/response test; None when it was not measured."""
    for key, unit in (("throughput_gbps", "Gbit/s"), ("latency_us", "\u00b5s")):
        value = doc.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
            return float(value), unit
    return None


def earlier_runs(current: Iterable[Mapping[str, Any]], history: Iterable[tuple[int, str, list[Mapping[str, Any]]]],
                 *, exclude_audit: int | None = None, per_result: int = PER_RESULT) -> list[list[EarlierRun]]:
    """For each of the ``current`` result documents (in order), its earlier runs, newest first (at most
    ``per_result``): the results of the ``history`` rows (``(audit id, created_at, documents)``, newest first, as
    :meth:`~nicadvisor.store.history.AuditStore.benchmark_runs` gives) with the same :func:`run_key` and a figure in
    the same unit. In the audit ``exclude_audit`` (the one the current results belong to) the current results
    themselves are left out, and the other runs it holds (a benchmark run again and added to it) count, newest
    first. Pure."""
    current = list(current)
    wanted: dict[tuple[Any, ...], list[int]] = {}
    for i, d in enumerate(current):
        wanted.setdefault(run_key(d), []).append(i)
    mine = {_same_result(d) for d in current}
    units = {i: (figure(d) or (None, None))[1] for i, d in enumerate(current)}
    out: list[list[EarlierRun]] = [[] for _ in current]
    for audit_id, when, docs in history:
        own = audit_id == exclude_audit
        for doc in reversed(docs):  # an audit keeps its runs in the order they were added: newest last
            if own and _same_result(doc) in mine:
                continue
            got = figure(doc)
            if got is None:
                continue
            run = EarlierRun(audit_id, when, got[0], got[1], str(doc.get("tool") or ""), verdict_of(doc),
                             comparison_of(doc))
            for i in wanted.get(run_key(doc), ()):
                if got[1] == units[i] and len(out[i]) < per_result:
                    out[i].append(run)
    return out


def load_earlier(store: "AuditStore", results: Iterable[Any], *, exclude_audit: int | None = None,
                 per_result: int = PER_RESULT) -> list[list[EarlierRun]]:
    """:func:`earlier_runs` of ``results`` (``BenchResult`` objects or their documents) from the history in ``store``
    (the :data:`SEARCH_DEPTH` newest audits with results), leaving out the audit ``exclude_audit`` they belong to.
    Raises :class:`nicadvisor.store.HistoryError` when the history cannot be read."""
    from nicadvisor.report.json_export import benchmark_entry

    current = [r if isinstance(r, Mapping) else benchmark_entry(r) for r in results]
    if not current:
        return []
    return earlier_runs(current, store.benchmark_runs(SEARCH_DEPTH), exclude_audit=exclude_audit,
                        per_result=per_result)


def for_audit(store: "AuditStore | None", audit: "Audit") -> list[list[EarlierRun]] | None:
    """The earlier runs of ``audit.benchmarks`` for a report (None without a history or results). A history that
    cannot be read gives None too: a report is never lost for its history."""
    import sqlite3

    from nicadvisor.store import HistoryError

    if store is None or not audit.benchmarks:
        return None
    try:
        return load_earlier(store, audit.benchmarks, exclude_audit=audit.history_id)
    except (HistoryError, OSError, sqlite3.Error):
        return None
