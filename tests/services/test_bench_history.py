"""Earlier runs of the same benchmark tests, from the audit history (services/bench_history.py): only the same test
on the same path counts, newest first, the current audit left out; the PDF and HTML chart and list them."""
from __future__ import annotations

import dataclasses
import subprocess

import pytest

from nicadvisor.bench.results import BenchResult, Expected
from nicadvisor.model.audit import Audit
from nicadvisor.services.bench_history import earlier_runs, for_audit, load_earlier, run_key
from nicadvisor.store import AuditStore


def _stream(gbps: float, client: str = "a", server: str = "b", *, spec: str = "TCP_STREAM 1 stream",
            expected: Expected | None = None) -> BenchResult:
    return BenchResult(test="TCP_STREAM", tool="netperf", path="remote", throughput_gbps=gbps, transactions_per_s=None,
                       latency_us=None, duration_s=10.0, expected=expected, raw="", command="netperf ...",
                       endpoints=f"{client} → {server}", client=client, server=server, spec=spec, payload_bytes=65536)


def _rr(rtt: float, client: str = "a", server: str = "b") -> BenchResult:
    return BenchResult(test="TCP_RR", tool="netperf", path="remote", throughput_gbps=None, transactions_per_s=1e6 / rtt,
                       latency_us=rtt, duration_s=10.0, expected=None, raw="", command="netperf ...",
                       client=client, server=server, spec="TCP_RR 1 B", payload_bytes=1, rtt_us=rtt)


def _saved(store: AuditStore, created_at: str, results: list[BenchResult]) -> int:
    audit = Audit(created_at=created_at)
    audit.benchmarks = list(results)
    return store.save(audit)


def test_only_the_same_test_on_the_same_path_is_an_earlier_run(tmp_path):
    band = Expected(value=9.4, unit="Gbit/s", basis="link", low=8.5, high=9.4)
    with AuditStore(tmp_path / "h.sqlite3") as store:
        first = _saved(store, "2026-11-20T10:00:00", [_stream(9.1, expected=band), _rr(60.0)])
        other_tool = dataclasses.replace(_stream(7.0), tool="agent")
        _saved(store, "2026-11-21T10:00:00", [_stream(5.0, "a", "c"), _stream(3.0, spec="TCP_STREAM 4 streams"),
                                              other_tool])
        second = _saved(store, "2026-11-22T10:00:00", [_stream(8.0), _rr(55.0)])
        now = [_stream(9.3), _rr(50.0), _stream(1.0, "x", "y")]
        runs = load_earlier(store, now)
        assert [[(r.audit_id, r.value) for r in rs] for rs in runs] == [[(second, 8.0), (first, 9.1)],
                                                                      [(second, 55.0), (first, 60.0)], []]
        assert runs[0][1].verdict == "pass" and runs[0][1].unit == "Gbit/s" and runs[1][0].unit == "\u00b5s"
        assert runs[0][1].text() == f"9.1 Gbit/s with netperf, audit #{first} of 2026-11-20 (PASS)"
        assert earlier_runs([], store.benchmark_runs()) == []
        assert run_key(now[0].to_dict()) != run_key(_stream(9.3, "b", "a").to_dict())  # the other direction
        # the same test run twice in one audit (bench --between adds to it): the first run is an earlier run of the
        # second, and the current results themselves are not
        again = _stream(9.2)
        audit = store.load(second)
        store.set_benchmarks(second, [*audit.benchmarks, again])
        (mine,) = load_earlier(store, [again], exclude_audit=second)
        assert [(r.audit_id, r.value) for r in mine] == [(second, 8.0), (first, 9.1)]
        # two identical current tests both get their earlier runs
        assert [len(rs) for rs in load_earlier(store, [_stream(9.3), _stream(9.4)])] == [3, 3]


def test_runs_over_a_differently_shaped_path_are_not_earlier_runs(tmp_path):
    """Benchmark review: a run over a 200 Mbit/s tbf was listed as an earlier run "of the same test and path" beside
    a 50 Mbit/s one, though both shapings were read and stored. The path conditions read before a run are part of
    what makes it the same path."""
    shaped = {rate: dataclasses.replace(_stream(rate / 1100), path_conditions=f"tc tbf {rate} Mbit/s on a; MTU 1500 "
                                                                              "on a, 1500 on b")
              for rate in (200, 50)}
    with AuditStore(tmp_path / "h.sqlite3") as store:
        old = _saved(store, "2026-11-20T10:00:00", [shaped[200], shaped[50]])
        (runs,) = load_earlier(store, [dataclasses.replace(shaped[50], throughput_gbps=0.046)])
        assert [(r.audit_id, r.value) for r in runs] == [(old, pytest.approx(50 / 1100))]
        (none,) = load_earlier(store, [_stream(0.046)])  # a run that read no conditions matches none that did
        assert none == []


def test_the_pdf_and_html_chart_and_list_the_earlier_runs(tmp_path):
    from nicadvisor.report.html_export import to_html
    from nicadvisor.services.export import export_audit

    with AuditStore(tmp_path / "h.sqlite3") as store:
        first = _saved(store, "2026-11-20T10:00:00", [_stream(9.1)])
        audit = Audit(created_at="2026-11-25T10:00:00")
        audit.benchmarks = [_stream(9.3)]
        audit.history_id = _saved(store, audit.created_at, audit.benchmarks)
        earlier = for_audit(store, audit)
        assert [[r.audit_id for r in rs] for rs in earlier] == [[first]]
        pdf, html = tmp_path / "r.pdf", tmp_path / "r.html"
        export_audit(audit, pdf=pdf, html=html, store=store)
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    assert "Earlier runs of the same tests" in text
    assert f"TCP_STREAM 1 stream (netperf) a→b: 9.1 Gbit/s with netperf, audit #{first} of 2026-11-20" in \
        " ".join(text.split())
    assert "newest earlier run, same test and path" in text  # the chart's fourth bar
    page = html.read_text(encoding="utf-8")
    assert "Earlier runs of the same tests" in page and f"audit #{first} of 2026-11-20" in page
    assert "newest earlier run" in page  # in the inline SVG chart
    assert "Earlier runs" not in to_html(audit)  # without the history: nothing claimed


def test_a_history_that_cannot_be_read_loses_no_report(tmp_path):
    import sqlite3

    path = tmp_path / "h.sqlite3"
    audit = Audit(created_at="2026-11-25T10:00:00")
    audit.benchmarks = [_stream(9.3)]
    with AuditStore(path) as store:
        _saved(store, "2026-11-20T10:00:00", [_stream(9.1)])
        with sqlite3.connect(path) as other:  # another program breaks the file under the open store
            other.execute("DROP TABLE audits")
        assert for_audit(store, audit) is None  # the report is written without earlier runs
    assert for_audit(None, audit) is None
