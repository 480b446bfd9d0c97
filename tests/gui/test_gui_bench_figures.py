"""The payload sweep and the latency percentiles, drawn from a real netperf TCP_RR sweep on loopback: the figures
(bench/figures.py), the wizard's chart tabs and the PDF/HTML charts say the same. Screenshot:
wizard-benchmark-payload-sweep."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from nicadvisor.bench.catalogue import payload_sweep, run_spec
from nicadvisor.bench.figures import chart_label, percentile_rows, sweep_series
from nicadvisor.bench.journal import Journal
from nicadvisor.bench.results import BenchReport
from nicadvisor.gui.wizard import PageId
from nicadvisor.model.audit import Audit

pytestmark = pytest.mark.skipif(shutil.which("netperf") is None, reason="netperf is installed by the setup")
PAYLOADS = (1, 64, 1024, 8192)


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    journal = Journal(tmp_path_factory.mktemp("journal"))
    try:
        return [run_spec(spec, "netperf", journal) for spec in payload_sweep(duration_s=1, repetitions=1,
                                                                           payloads=PAYLOADS)]
    finally:
        journal.close()


def test_the_sweep_is_one_series_of_round_trips_by_request_size(sweep):
    docs = [r.to_dict() for r in sweep]
    ((name, points),) = sweep_series(docs).items()
    assert name == "netperf loopback" and [p for p, _ in points] == list(PAYLOADS)
    assert [v for _, v in points] == pytest.approx([r.rtt_us for r in sweep])  # 1e6 / transactions per second
    rows = percentile_rows(docs)
    assert [label for label, _ in rows] == [chart_label(d) for d in docs] == [f"TCP_RR {p} B · netperf loopback"
                                                                           for p in PAYLOADS]
    assert all(v["p50"] <= v["p99"] for _, v in rows)
    assert sweep_series(docs[:1]) == {}  # one size is no sweep


def test_the_wizard_and_the_pdf_draw_the_sweep(sweep, make_wizard, qtbot, tmp_path, screenshot):
    from nicadvisor.report.html_export import to_html
    from nicadvisor.report.pdf import write_pdf

    wizard = make_wizard(store=None)
    page = wizard.pages[PageId.BENCHMARK]
    page._show(BenchReport(results=list(sweep), problems=[]))
    (line,) = page.sweep_chart.listDataItems()
    xs, ys = line.getData()
    assert [round(2 ** x) for x in xs] == list(PAYLOADS) and list(ys) == pytest.approx([r.rtt_us for r in sweep])
    page.chart_tabs.setCurrentIndex(2)
    page.resize(1200, 800)
    screenshot(page, "benchmark-payload-sweep")

    audit = Audit(created_at="2026-11-25T10:00:00")
    audit.benchmarks = list(sweep)
    pdf = write_pdf(audit, tmp_path / "sweep.pdf")
    text = " ".join(subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True)
                    .stdout.split())
    assert "TCP_RR payload sweep: round trip by request size" in text and "8192 B" in text
    assert "Latency per transaction: mean and percentiles" in text and "p99 latency (µs)" in text
    html = to_html(audit)
    assert "Benchmarks: TCP_RR payload sweep" in html and "netperf loopback: TCP_RR round trip" in html
