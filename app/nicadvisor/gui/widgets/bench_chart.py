"""A small pyqtgraph bar chart: measured vs expected, one pair of bars per benchmark result."""
from __future__ import annotations

from typing import Sequence

import pyqtgraph as pg
from PySide6.QtWidgets import QWidget

MEASURED_BRUSH = "#3b6fb6"
EXPECTED_BRUSH = "#b9b9b9"


class MeasuredVsExpectedChart(pg.PlotWidget):
    """Bar pairs (measured, expected) on a category axis; GUI thread only.

    ``set_bars(labels, measured, expected)`` takes one label per pair, values in ``unit``; an
    expected value of None draws no grey bar (no expectation known).
    """

    def __init__(self, title: str, unit: str, parent: QWidget | None = None) -> None:
        super().__init__(parent=parent, background="w")
        self.unit = unit
        self.setTitle(title, color="#222222", size="10pt")
        self.setLabel("left", unit, color="#222222")
        self.getAxis("left").enableAutoSIPrefix(False)  # the unit is fixed: no "Gbit/s (x0.001)" below 1 Gbit/s
        self.setMouseEnabled(x=False, y=False)
        self.hideButtons()
        self.setMenuEnabled(False)
        self.showGrid(x=False, y=True, alpha=0.25)
        for axis in ("left", "bottom"):
            self.getAxis(axis).setPen("#555555")
            self.getAxis(axis).setTextPen("#222222")
        self.getAxis("bottom").setHeight(32)
        self.legend = self.addLegend(offset=(-10, 10), labelTextColor="#222222")
        self.setMinimumHeight(200)
        self._items: list[pg.GraphicsObject] = []
        self.set_bars([], [], [])

    def set_bars(self, labels: Sequence[str], measured: Sequence[float | None],
                 expected: Sequence[float | None]) -> None:
        """Redraw: ``measured``/``expected`` values in :attr:`unit`, None for unknown."""
        for item in self._items:
            self.removeItem(item)
        self._items = []
        self.legend.clear()
        width = 0.38
        xs_m = [i - width / 2 for i, v in enumerate(measured) if v is not None]
        hs_m = [float(v) for v in measured if v is not None]
        xs_e = [i + width / 2 for i, v in enumerate(expected) if v is not None]
        hs_e = [float(v) for v in expected if v is not None]
        if xs_m:
            bars = pg.BarGraphItem(x=xs_m, height=hs_m, width=width, brush=MEASURED_BRUSH, pen="#2a4f85")
            self.addItem(bars)
            self.legend.addItem(bars, "measured")
            self._items.append(bars)
        if xs_e:
            bars = pg.BarGraphItem(x=xs_e, height=hs_e, width=width, brush=EXPECTED_BRUSH, pen="#8a8a8a")
            self.addItem(bars)
            self.legend.addItem(bars, "expected")
            self._items.append(bars)
        top = max(hs_m + hs_e, default=1.0) or 1.0
        for i, (m, e) in enumerate(zip(measured, expected)):
            if m is not None and e is None:
                note = pg.TextItem("no expected\nvalue known", color="#666666", anchor=(0.5, 1.0))
                note.setPos(i + width / 2, top * 0.08)
                self.addItem(note)
                self._items.append(note)
        for x, h in zip(xs_m + xs_e, hs_m + hs_e):
            text = pg.TextItem(f"{h:.3g}", color="#222222", anchor=(0.5, 1.0))
            text.setPos(x, h)
            self.addItem(text)
            self._items.append(text)
        self.getAxis("bottom").setTicks([[(i, label) for i, label in enumerate(labels)]])
        self.setXRange(-0.7, max(len(labels), 1) - 0.3, padding=0)
        self.setYRange(0, top * 1.25, padding=0)
