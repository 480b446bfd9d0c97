"""A small pyqtgraph bar chart: measured vs expected, one pair of bars per benchmark result."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QWidget

MEASURED_BRUSH = "#3b6fb6"
EXPECTED_BRUSH = "#b9b9b9"
#: Measured bars take the colour of their verdict against the expected band (the same words as every report).
VERDICT_BRUSH = {"pass": "#2e8b57", "warn": "#d4a017", "fail": "#c0392b"}
BAND_PEN = "#333333"
from nicadvisor.gui.widgets.common import CHART_MIN_HEIGHT  # noqa: F401 - the pages read it from here too
HISTORY_PEN = "#222222"


class MeasuredVsExpectedChart(pg.PlotWidget):
    """Bar pairs (measured, expected) on a category axis; GUI thread only.

    ``set_bars(labels, measured, expected, bands, verdicts)`` takes one label per pair, values in ``unit``; an
    expected value of None draws no grey bar (no expectation known); a band ``(low, high)`` is drawn as a whisker
    over the expected bar; a verdict (``pass``/``warn``/``fail``) colours the measured bar (:data:`VERDICT_BRUSH`);
    ``history`` per pair: the values of earlier runs of the same test on the same path (from the audit history,
    :mod:`nicadvisor.services.bench_history`), drawn as hollow circles over the measured bar.
    """

    def __init__(self, title: str, unit: str, parent: QWidget | None = None) -> None:
        super().__init__(parent=parent, background="w", enableMenu=False)  # no context menus built (_plot)
        self.unit = unit
        _plot(self, title, unit)
        self.getAxis("bottom").setHeight(32)
        self.legend = legend_below(self)
        self._items: list[pg.GraphicsObject] = []
        self.set_bars([], [], [])

    def set_bars(self, labels: Sequence[str], measured: Sequence[float | None],
                 expected: Sequence[float | None], bands: Sequence[tuple[float, float] | None] | None = None,
                 verdicts: Sequence[str] | None = None, history: Sequence[Sequence[float]] | None = None) -> None:
        """Redraw: ``measured``/``expected`` values in :attr:`unit`, None for unknown; ``bands`` the expected
        ``(low, high)`` per pair (None: a point figure or none); ``verdicts`` per pair (``""``: none); ``history``
        per pair the earlier runs' values in :attr:`unit` (empty: none)."""
        for item in self._items:
            self.removeItem(item)
        self._items = []
        self.legend.clear()
        width = 0.38
        bands = list(bands) if bands is not None else [None] * len(measured)
        verdicts = list(verdicts) if verdicts is not None else [""] * len(measured)
        xs_m = [i - width / 2 for i, v in enumerate(measured) if v is not None]
        hs_m = [float(v) for v in measured if v is not None]
        brushes = [VERDICT_BRUSH.get(verdicts[i] if i < len(verdicts) else "", MEASURED_BRUSH)
                   for i, v in enumerate(measured) if v is not None]
        xs_e = [i + width / 2 for i, v in enumerate(expected) if v is not None]
        hs_e = [float(v) for v in expected if v is not None]
        if xs_m:
            bars = pg.BarGraphItem(x=xs_m, height=hs_m, width=width, brushes=brushes, brush=MEASURED_BRUSH,
                                   pen="#2a4f85")  # ``brush``: the legend's swatch (``brushes`` paint the bars)
            self.addItem(bars)
            self.legend.addItem(bars, "measured (coloured by verdict)" if any(verdicts) else "measured")
            self._items.append(bars)
        ranged = [(i + width / 2, lo, hi) for i, b in enumerate(bands) if b is not None for lo, hi in [b]]
        if ranged:
            xs, lows, highs = (np.array(col, dtype=float) for col in zip(*ranged))
            mids = (lows + highs) / 2  # ErrorBarItem wants arrays: it does arithmetic on them when it paints
            whisker = pg.ErrorBarItem(x=xs, y=mids, top=highs - mids, bottom=mids - lows, beam=width * 0.6,
                                      pen=pg.mkPen(BAND_PEN, width=2))
            whisker.setZValue(10)  # over the expected bar it spans
            self.addItem(whisker)
            self._items.append(whisker)
        earlier = [(i - width / 2, float(v)) for i, vals in enumerate(history or []) for v in vals]
        if earlier:
            dots = pg.ScatterPlotItem(x=[x for x, _ in earlier], y=[y for _, y in earlier], symbol="o", size=9,
                                      pen=pg.mkPen(HISTORY_PEN, width=1.5), brush=None)
            dots.setZValue(11)
            self.addItem(dots)
            self.legend.addItem(dots, "earlier runs (history)")
            self._items.append(dots)
        if xs_e:
            bars = pg.BarGraphItem(x=xs_e, height=hs_e, width=width, brush=EXPECTED_BRUSH, pen="#8a8a8a")
            self.addItem(bars)
            self.legend.addItem(bars, "expected (whisker: the band)" if ranged else "expected")
            self._items.append(bars)
        top = max(hs_m + hs_e + [hi for _, _, hi in ranged] + [y for _, y in earlier], default=1.0) or 1.0
        for i, (m, e) in enumerate(zip(measured, expected)):
            if m is not None and e is None:
                note = pg.TextItem("no expected\nvalue known", color="#666666", anchor=(0.5, 1.0))
                note.setPos(i + width / 2, top * 0.08)
                self.addItem(note)
                self._items.append(note)
        band_of = {x: (lo, hi) for x, lo, hi in ranged}
        for x, h in zip(xs_m + xs_e, hs_m + hs_e):
            # the expected bar of a band is labelled with the band itself (its mid value "74" read as the figure
            # of a 70.6–77.4 µs band), and its whisker's top is where the label sits
            band = band_of.get(x) if x in xs_e else None
            label = f"{value_text(band[0])}–{value_text(band[1])}" if band else value_text(h)
            text = pg.TextItem(label, color="#222222", anchor=(0.5, 1.0))
            text.setPos(x, max(h, band[1]) if band else h)
            self.addItem(text)
            self._items.append(text)
        self.getAxis("bottom").setTicks([[(i, label) for i, label in enumerate(labels)]])
        self.setXRange(-0.7, max(len(labels), 1) - 0.3, padding=0)
        self._top = top
        self._fit_y()

    def _fit_y(self) -> None:
        """The axis runs from 0 past the highest bar, band or earlier run (so every measured value shows), with headroom
        for the value labels in pixels of the plot as it is now; the legend is under the plot (:func:`legend_below`),
        so it covers nothing."""
        plot_h = self.getViewBox().height()
        room = (self.fontMetrics().height() + 8) / plot_h if plot_h > 0 else 0.2
        top = getattr(self, "_top", 1.0) / (1 - min(max(room, 0.1), 0.5))
        # half a line below 0, so that the 0 tick is labelled: a range starting at 0 dropped its label and the axis
        # read as starting at the first labelled tick (20 under a 14.2 Gbit/s bar)
        below = (self.fontMetrics().height() / 2 + 3) / plot_h if plot_h > 0 else 0.06
        self.setYRange(-top * min(below, 0.2), top, padding=0)

    def resizeEvent(self, event: Any) -> None:  # Qt override: the headroom follows the height
        super().resizeEvent(event)
        if hasattr(self, "_top"):
            self._fit_y()


def value_text(value: float) -> str:
    """A bar's figure as the tables print it: up to 4 significant digits, no trailing zeros (``77.4``, ``9.41``,
    ``1234``); ``.3g`` printed a 77.4 µs band edge as ``77.4`` but a 1234 µs one as ``1.23e+03``."""
    return f"{value:.4g}" if abs(value) < 10_000 else f"{value:,.0f}"


def legend_below(widget: pg.PlotWidget) -> pg.LegendItem:
    """A legend in a row of its own under the plot's bottom axis, its entries side by side: over the plot it covered
    bars and value labels of a short chart (1200×800 with the host table shown)."""
    legend = pg.LegendItem(offset=None, labelTextColor="#222222", colCount=3)
    widget.getPlotItem().layout.addItem(legend, 4, 1)
    return legend


def _plot(widget: pg.PlotWidget, title: str, left: str) -> None:
    """The look every benchmark chart shares: title, fixed unit on the left axis, no mouse zoom, light grid."""
    widget.setTitle(title, color="#222222", size="10pt")
    widget.setLabel("left", left, color="#222222")
    widget.getAxis("left").enableAutoSIPrefix(False)  # the unit is fixed: no "Gbit/s (x0.001)" below 1 Gbit/s
    widget.setMouseEnabled(x=False, y=False)
    widget.hideButtons()
    widget.setMenuEnabled(False)
    widget.showGrid(x=False, y=True, alpha=0.25)
    for axis in ("left", "bottom"):
        widget.getAxis(axis).setPen("#555555")
        widget.getAxis(axis).setTextPen("#222222")
    # title, bottom axis and the legend row under it take ~100 px: 200 px left a 90 px plot at 1200×800
    widget.setMinimumHeight(CHART_MIN_HEIGHT)


PERCENTILE_BRUSH = {"mean": "#3b6fb6", "p50": "#7fa6d9", "p90": "#d4a017", "p99": "#c0392b"}


class PercentileChart(pg.PlotWidget):
    """Latency percentiles per request/response result: grouped bars mean, p50, p90, p99 in µs (the rows of
    :func:`nicadvisor.bench.figures.percentile_rows`); GUI thread only."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent=parent, background="w", enableMenu=False)  # no context menus built (_plot)
        _plot(self, "Latency per transaction: mean and percentiles (lower is better)", "µs")
        self.legend = legend_below(self)
        self._items: list[pg.GraphicsObject] = []
        self.set_rows([])

    def set_rows(self, rows: Sequence[tuple[str, dict[str, float]]]) -> None:
        """Redraw from ``[(label, {"mean"|"p50"|"p90"|"p99": µs})]``."""
        for item in self._items:
            self.removeItem(item)
        self._items = []
        self.legend.clear()
        width = 0.2
        top = 1.0
        for k, name in enumerate(PERCENTILE_BRUSH):
            xs = [i + (k - 1.5) * width for i, (_, v) in enumerate(rows) if name in v]
            hs = [v[name] for _, v in rows if name in v]
            if not xs:
                continue
            bars = pg.BarGraphItem(x=xs, height=hs, width=width, brush=PERCENTILE_BRUSH[name], pen="#555555")
            self.addItem(bars)
            self.legend.addItem(bars, name)
            self._items.append(bars)
            top = max(top, *hs)
        if not rows:
            note = pg.TextItem("no request/response result with percentiles", color="#666666", anchor=(0.5, 0.5))
            note.setPos(0, 0.5)
            self.addItem(note)
            self._items.append(note)
        self.getAxis("bottom").setTicks([[(i, label) for i, (label, _) in enumerate(rows)]])
        self.setXRange(-0.7, max(len(rows), 1) - 0.3, padding=0)
        self.setYRange(-top * 0.06, top * 1.15, padding=0)  # the legend is under the plot; below 0: 0 is labelled


SWEEP_PENS = ("#3b6fb6", "#c0392b", "#2e8b57", "#d4a017", "#7d3c98")


class PayloadSweepChart(pg.PlotWidget):
    """TCP_RR round trip (µs) against the request = response size (bytes, log2 axis), one line per tool and path
    (:func:`nicadvisor.bench.figures.sweep_series`); GUI thread only."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent=parent, background="w", enableMenu=False)  # no context menus built (_plot)
        _plot(self, "TCP_RR payload sweep: round trip by request size (lower is better)", "µs")
        self.setLabel("bottom", "request = response size (bytes)", color="#222222")
        self.legend = legend_below(self)
        self._items: list[pg.GraphicsObject] = []
        self.set_series({})

    def set_series(self, series: dict[str, Sequence[tuple[int, float]]]) -> None:
        """Redraw from ``{label: [(payload bytes, round trip µs), …]}``."""
        for item in self._items:
            self.removeItem(item)
        self._items = []
        self.legend.clear()
        payloads: set[int] = set()
        top = 1.0
        for k, (label, points) in enumerate(series.items()):
            xs = [float(np.log2(p)) for p, _ in points]
            ys = [v for _, v in points]
            line = pg.PlotDataItem(xs, ys, pen=pg.mkPen(SWEEP_PENS[k % len(SWEEP_PENS)], width=2), symbol="o",
                                   symbolSize=7, symbolBrush=SWEEP_PENS[k % len(SWEEP_PENS)])
            self.addItem(line)
            self.legend.addItem(line, label)
            self._items.append(line)
            payloads |= {p for p, _ in points}
            top = max(top, *ys)
        if not series:
            note = pg.TextItem("no payload sweep: run the full profile (TCP_RR 1 … 8192 bytes)", color="#666666",
                               anchor=(0.5, 0.5))
            note.setPos(6.5, 0.5)
            self.addItem(note)
            self._items.append(note)
            payloads = {1, 8192}
        ticks = sorted(payloads)
        self.getAxis("bottom").setTicks([[(float(np.log2(p)), str(p)) for p in ticks]])
        self.setXRange(float(np.log2(min(ticks))) - 0.5, float(np.log2(max(ticks))) + 0.5, padding=0)
        self.setYRange(-top * 0.06, top * 1.15, padding=0)
