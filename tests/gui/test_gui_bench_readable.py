"""Issue 27 §2: the benchmark charts are readable at 1200×800 in "Between audited hosts over SSH" mode with the host
table and the problems shown (their plots were ~90 px tall): every chart keeps a plot tall enough to read, its axis
always includes the measured value, the expected bar of a band is labelled with the band (a 70.6–77.4 µs band read
"74"), and the legend covers no part of the plot. The bars are a real shaped namespace benchmark (tc tbf); the band
values of the second check are the chart's inputs. Needs root. Screenshot: wizard-benchmark-readable."""
from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt

from guitools import to_page
from nicadvisor.bench.netns import can_create
from nicadvisor.gui.state import SshSpec
from nicadvisor.gui.widgets.bench_chart import MeasuredVsExpectedChart
from nicadvisor.gui.wizard import PageId

#: The least plot height (px) a chart keeps at 1200×800; the plots were about 90 px tall.
READABLE_PX = 140


def labels(chart) -> list[str]:
    return [i.toPlainText() for i in chart._items if isinstance(i, pg.TextItem)]


def check_chart(chart, measured: list[float], band_tops: list[float]) -> None:
    box = chart.getViewBox()
    assert box.height() >= READABLE_PX, (chart.windowTitle(), box.height())
    low, high = box.viewRange()[1]
    assert low < 0 and all(low <= v <= high for v in measured + band_tops), (low, high, measured, band_tops)
    assert not chart.legend.sceneBoundingRect().intersects(box.sceneBoundingRect())


@pytest.mark.skipif(can_create() is not None, reason=str(can_create()))
def test_charts_are_readable_at_1200x800_with_the_host_table_and_problems(make_wizard, qtbot, screenshot):
    wizard = make_wizard(store=None)
    bench = to_page(wizard, qtbot, PageId.BENCHMARK)
    bench.netns_radio.setChecked(True)
    bench.shape_box.setChecked(True)
    bench.rate.setValue(200)
    bench.duration.setValue(1)
    with qtbot.waitSignal(bench.sig_bench_done, timeout=60_000) as blocker:
        qtbot.mouseClick(bench.run_button, Qt.MouseButton.LeftButton)
    report = blocker.args[0]
    stream = [r for r in report.results if r.test == "TCP_STREAM"]
    assert stream and stream[0].expected is not None, report.problems
    # the between-hosts mode of the review: three hosts in the table, a problem line, the stale-results hint
    for name in ("linux-a", "linux-b", "linux-c"):
        wizard.state.ssh_hosts.append(SshSpec(spec=f"root@{name}.example.com", kind="linux"))
    bench._fill_hosts()
    bench.hosts_radio.setChecked(True)
    bench.problems.setText("<b>Problems:</b> " + "the TEP mesh could not be checked between two of the hosts; " * 3)
    wizard.resize(1200, 800)
    qtbot.waitUntil(lambda: bench.hosts_table.isVisible())
    qtbot.wait(100)
    check_chart(bench.throughput_chart, [r.throughput_gbps for r in stream],
                [r.expected.high for r in stream if r.expected.is_band])
    rr = [r for r in report.results if r.latency_us is not None]
    check_chart(bench.latency_chart, [r.latency_us for r in rr], [])
    # the charts can be scrolled to when the page is shorter than they need
    bench.scroll.ensureWidgetVisible(bench.chart_tabs)
    screenshot(wizard, "benchmark-readable")


def test_the_axis_includes_the_measured_value_and_the_band_is_labelled(qtbot):
    chart = MeasuredVsExpectedChart("TCP_RR latency (lower is better)", "µs")
    qtbot.addWidget(chart)
    chart.resize(560, 300)
    chart.show()
    qtbot.waitExposed(chart)
    chart.set_bars(["TCP_STREAM"], [14.2], [22.5], bands=[(20.0, 25.0)], verdicts=["fail"])
    qtbot.wait(50)
    check_chart(chart, [14.2], [25.0])
    assert "14.2" in labels(chart) and "20–25" in labels(chart)
    chart.set_bars(["TCP_RR"], [81.0], [74.0], bands=[(70.6, 77.4)], verdicts=["warn"])
    qtbot.wait(50)
    check_chart(chart, [81.0], [77.4])
    assert "70.6–77.4" in labels(chart) and "74" not in labels(chart)
