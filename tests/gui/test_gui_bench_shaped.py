"""Benchmark page, namespace path shaped with tc tbf ("shape the namespace link to N Mbit/s"): TCP_STREAM then has
an expected value (``BenchRequest.rate_mbit`` → ``nicadvisor.bench.expected.expected_stream``), drawn next to
the measured bar. Needs root (network namespaces, veth, tc); the tests run as root.

Screenshot: wizard-benchmark-netns-shaped.
"""
from __future__ import annotations

import dataclasses

import pytest
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWizard

from nicadvisor.bench.expected import expected_stream
from nicadvisor.bench.netns import can_create
from nicadvisor.gui.backend import Backend, _real_bench
from nicadvisor.gui.wizard import PageId

LEFT = Qt.MouseButton.LeftButton
RATE_MBIT = 200


def _to_benchmark(wizard, qtbot):
    discover = wizard.pages[PageId.DISCOVER]
    with qtbot.waitSignal(discover.sig_audit_done, timeout=60_000):
        wizard.next()
    qtbot.waitUntil(lambda: wizard.button(QWizard.WizardButton.NextButton).isEnabled())
    wizard.next()
    wizard.next()
    assert wizard.currentId() == PageId.BENCHMARK
    return wizard.pages[PageId.BENCHMARK]


def test_shaping_applies_to_netns_only(make_wizard, qtbot):
    calls = []

    def bench(**kwargs):
        calls.append({k: v for k, v in kwargs.items() if k not in ("progress", "cancel")})
        return _real_bench(path="loopback", duration_s=1.0, progress=kwargs["progress"], cancel=kwargs["cancel"])

    wizard = make_wizard(store=None, backend=dataclasses.replace(Backend.real(), bench=bench))
    bench_page = _to_benchmark(wizard, qtbot)
    assert not bench_page.shape_box.isEnabled() and not bench_page.rate.isEnabled()  # loopback: no shaping
    bench_page.shape_box.setChecked(True)
    assert bench_page.selected_rate() is None
    bench_page.netns_radio.setChecked(True)
    assert bench_page.shape_box.isEnabled() and bench_page.rate.isEnabled()
    bench_page.rate.setValue(750)
    assert bench_page.selected_rate() == 750
    bench_page.shape_box.setChecked(False)
    assert not bench_page.rate.isEnabled() and bench_page.selected_rate() is None
    bench_page.loopback_radio.setChecked(True)
    bench_page.duration.setValue(1)
    with qtbot.waitSignal(bench_page.sig_bench_done, timeout=60_000):
        qtbot.mouseClick(bench_page.run_button, LEFT)
    assert calls == [{"path": "loopback", "duration_s": 1.0}]  # unshaped: no rate_mbit passed


@pytest.mark.skipif(can_create() is not None, reason=str(can_create()))
def test_netns_shaped_stream_has_an_expected_value(make_wizard, qtbot, screenshot):
    wizard = make_wizard(store=None)
    bench = _to_benchmark(wizard, qtbot)
    bench.netns_radio.setChecked(True)
    bench.shape_box.setChecked(True)
    bench.rate.setValue(RATE_MBIT)
    bench.duration.setValue(1)
    with qtbot.waitSignal(bench.sig_bench_done, timeout=60_000) as blocker:
        qtbot.mouseClick(bench.run_button, LEFT)
        assert f"netns shaped to {RATE_MBIT} Mbit/s" in bench.progress.status.text()
    report = blocker.args[0]
    stream = [r for r in report.results if r.test == "TCP_STREAM"]
    assert len(stream) == 1, report.problems
    result = stream[0]
    assert result.path == "netns" and result.throughput_gbps is not None
    want = expected_stream("TCP_STREAM", rate_mbit=RATE_MBIT, mtu=1500)
    # the same figure as the model's (its basis says whether the MTU was given or assumed)
    assert (result.expected.value, result.expected.unit) == (want.value, "Gbit/s")
    assert want.value == pytest.approx(RATE_MBIT / 1000, rel=0.06)  # goodput of a 200 Mbit/s tbf
    assert f"tc tbf rate {RATE_MBIT} Mbit/s" in result.expected.basis
    assert 0 < result.throughput_gbps <= 1.1 * want.value  # the tbf holds it to the rate
    # The chart draws a measured and an expected bar; the table and detail say the expectation.
    bars = [i for i in bench.throughput_chart._items if isinstance(i, pg.BarGraphItem)]
    assert len(bars) == 2
    row = next(i for i in range(bench.table.rowCount()) if bench.table.item(i, 0).text() == "TCP_STREAM")
    assert bench.table.item(row, 4).text() == want.text() == f"{want.low * 1000:.3g}…{want.high * 1000:.3g} Mbit/s"
    # one verdict, the same words as the reports: the tbf holds the stream inside the band or just below it
    assert bench.table.item(row, 5).text() == f"{result.verdict().upper()}: {result.comparison()}"
    assert result.verdict() in ("pass", "warn")
    bench.table.setCurrentCell(row, 0)
    assert f"expected {want.text()}" in bench.result_detail.toPlainText()
    screenshot(wizard, "benchmark-netns-shaped")


def test_quick_profile_from_the_page_runs_the_catalogue(make_wizard, qtbot, screenshot):
    """The profile box runs the test catalogue on this machine: the agent measures what it can and says what it
    cannot, in the table (never a figure for a test it cannot run)."""
    calls = []

    def bench(**kwargs):
        calls.append(kwargs.get("profile"))
        return _real_bench(path="loopback", duration_s=1.0, progress=kwargs["progress"], cancel=kwargs["cancel"],
                           profile=kwargs.get("profile"))

    wizard = make_wizard(store=None, backend=dataclasses.replace(Backend.real(), bench=bench))
    page = _to_benchmark(wizard, qtbot)
    page.tests_box.setCurrentIndex(page.tests_box.findData("quick"))
    page.duration.setValue(1)
    with qtbot.waitSignal(page.sig_bench_done, timeout=120_000) as blocker:
        qtbot.mouseClick(page.run_button, LEFT)
    report = blocker.args[0]
    assert calls == ["quick"]
    assert [r.spec for r in report.results] == ["TCP_STREAM 1 stream", "TCP_RR 1 B", "TCP_CRR 1 B", "UDP_STREAM 1400 B"]
    rows = [page.table.item(i, 0).text() for i in range(page.table.rowCount())]
    assert rows == [r.spec for r in report.results]
    crr = rows.index("TCP_CRR 1 B")
    assert page.table.item(crr, 5).text() == report.results[crr].comparison()  # measured, or why not
    # the percentile tab: one group per request/response result that reports percentiles, labelled by its test
    with_percentiles = [r for r in report.results if r.p99_latency_us is not None]
    ticks = page.percentile_chart.getAxis("bottom")._tickLevels[0]
    assert [label for _, label in ticks] == [f"{r.spec} · {r.tool} loopback" for r in with_percentiles]
    assert with_percentiles and all(r.p50_latency_us <= r.p99_latency_us for r in with_percentiles)
    assert page.sweep_chart.listDataItems() == []  # one payload is no sweep: the tab says to run the full profile
    page.chart_tabs.setCurrentIndex(1)
    screenshot(wizard, "benchmark-percentiles")
    page.chart_tabs.setCurrentIndex(0)
    page.hosts_radio.setChecked(True)  # the catalogue runs between hosts too (tests/bench/test_bench_remote.py)
    assert page.tests_box.isEnabled() and page.selected_profile() == "quick"


@pytest.mark.skipif(can_create() is not None, reason=str(can_create()))
def test_an_unshaped_namespace_run_names_the_page_control_not_the_cli_flag(make_wizard, qtbot):
    """Issue 19 §2: the page told the user to use --rate-mbit, which it has no field for; it names its own control."""
    wizard = make_wizard(store=None)
    bench = _to_benchmark(wizard, qtbot)
    bench.netns_radio.setChecked(True)
    bench.duration.setValue(1)
    with qtbot.waitSignal(bench.sig_bench_done, timeout=60_000) as blocker:
        qtbot.mouseClick(bench.run_button, LEFT)
    stream = next(r for r in blocker.args[0].results if r.test == "TCP_STREAM")
    assert "(--rate-mbit)" in stream.no_expectation  # what the CLI is told
    row = next(i for i in range(bench.table.rowCount()) if bench.table.item(i, 0).text() == "TCP_STREAM")
    bench.table.setCurrentCell(row, 0)
    shown = " ".join(bench.table.item(row, c).text() for c in range(bench.table.columnCount()))
    shown += bench.result_detail.toPlainText()
    assert "--rate-mbit" not in shown and "shape it (tick “shape the namespace link to” above)" in shown, shown
