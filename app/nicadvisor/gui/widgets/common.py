"""Widget factories the pages and panels share: a read-only table, a detail pane, a splitter, a button."""
from __future__ import annotations

from typing import Any, Callable, Sequence

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import (
    QAbstractItemView, QComboBox, QFrame, QHeaderView, QLabel, QMessageBox, QPushButton, QScrollArea, QSplitter, QTableWidget, QTextBrowser,
    QWidget,
)

#: The least height of a benchmark chart widget (px): its plot keeps about 150 px under the title, over the axis and
#: legend (:mod:`nicadvisor.gui.widgets.bench_chart`; here so that a page can size a chart's place before the charting
#: library is loaded).
CHART_MIN_HEIGHT = 260


def readonly_table(columns: Sequence[str], single: bool = True, alternating: bool = False,
                   fit: int | None = None) -> QTableWidget:
    """A QTableWidget with ``columns``, no rows, not editable, whole-row selection (one row when
    ``single``), no row numbers, no word wrap. ``fit``: the columns before it resize to their contents, that
    one stretches (None: leave the header alone)."""
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels(list(columns))
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    if single:
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    if alternating:
        table.setAlternatingRowColors(True)
    table.setWordWrap(False)
    if fit is not None:
        header = table.horizontalHeader()
        for col in range(fit):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(fit, QHeaderView.ResizeMode.Stretch)
    return table


def detail_browser(placeholder: str) -> QTextBrowser:
    """A read-only rich-text pane (links are not followed) showing ``placeholder`` while empty."""
    browser = QTextBrowser()
    browser.setOpenLinks(False)
    browser.setPlaceholderText(placeholder)
    return browser


def splitter(orientation: Qt.Orientation, *parts: tuple[QWidget, int]) -> QSplitter:
    """A QSplitter of ``(widget, stretch factor)`` parts whose children cannot be collapsed."""
    split = QSplitter(orientation)
    for i, (widget, stretch) in enumerate(parts):
        split.addWidget(widget)
        split.setStretchFactor(i, stretch)
    split.setChildrenCollapsible(False)
    return split


def button(text: str, tooltip: str = "") -> QPushButton:
    """A push button that is not a default button (Return in a form must not click it)."""
    b = QPushButton(text)
    b.setAutoDefault(False)
    if tooltip:
        b.setToolTip(tooltip)
    return b


def message_label(colour: str = "", selectable: bool = False) -> QLabel:
    """An empty word-wrapped QLabel for status / error lines, in ``colour`` (``"#b00020"``) when given."""
    label = QLabel("")
    label.setWordWrap(True)
    if colour:
        label.setStyleSheet(f"QLabel {{ color: {colour}; }}")
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def share_width(table: QTableWidget, columns: int, room: int, minimum: int = 40) -> None:
    """Size the first ``columns`` columns of ``table`` to their contents (title included) when they fit in ``room``
    pixels; otherwise narrow the widest of them, all to one width (never below ``minimum`` nor below a title), until
    they do. Texts are cut with "…" only when the table has no room for them (they were cut while space was free)."""
    header = table.horizontalHeader()
    fm = header.fontMetrics()
    natural, titles = [], []
    for col in range(columns):
        table.resizeColumnToContents(col)
        natural.append(table.columnWidth(col))
        item = table.horizontalHeaderItem(col)
        titles.append(fm.horizontalAdvance(item.text()) + 16 if item is not None else minimum)
    widths = natural
    if sum(natural) > room > 0:  # water-filling: the widest columns share what is left
        cap = max(natural)
        while cap > minimum and sum(min(w, max(cap, t)) for w, t in zip(natural, titles)) > room:
            cap -= 4
        widths = [min(w, max(cap, t)) for w, t in zip(natural, titles)]
    for col, width in enumerate(widths):
        table.setColumnWidth(col, width)


def ask_first(parent: QWidget, title: str, text: str, go: str, keep: str,
              answered: Callable[[bool], None]) -> QMessageBox:
    """Open (window-modal, not blocking) a question whose safe answer ``keep`` is the default and the Escape answer,
    and ``go`` the destructive one; ``answered(True)`` when the user chose ``go``, ``answered(False)`` otherwise.
    Returns the open box (its ``buttons()`` are named ``go`` and ``keep``)."""
    box = QMessageBox(QMessageBox.Icon.Question, title, text, QMessageBox.StandardButton.NoButton, parent)
    go_button = box.addButton(go, QMessageBox.ButtonRole.DestructiveRole)
    keep_button = box.addButton(keep, QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(keep_button)
    box.setEscapeButton(keep_button)
    box.setWindowModality(Qt.WindowModality.WindowModal)
    box.buttonClicked.connect(lambda button: answered(button is go_button))
    box.open()
    return box


#: Characters of a name shown whole in a chooser; longer names are elided in the middle (whole in the tooltip).
NAME_CHARS = 44


def name_chooser() -> QComboBox:
    """A combo box of host names that never widens the window: it asks for room for :data:`NAME_CHARS` characters,
    not for its longest item (a 70-character host name grew the window past 1200 px); add items with
    :func:`add_name_item`."""
    box = QComboBox()
    box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    box.setMinimumContentsLength(24)
    box.view().setTextElideMode(Qt.TextElideMode.ElideMiddle)
    return box


def add_name_item(box: QComboBox, name: str, data: object, suffix: str = "") -> None:
    """Add ``name`` + ``suffix`` to ``box`` with ``data``; a name longer than :data:`NAME_CHARS` is elided in the
    middle (``esxi-prod-rack…-node-0123``), the whole text in the item's tooltip."""
    shown = elide_middle(name, NAME_CHARS)
    box.addItem(shown + suffix, data)
    if shown != name:
        box.setItemData(box.count() - 1, name + suffix, Qt.ItemDataRole.ToolTipRole)


def elide_middle(text: str, chars: int) -> str:
    """``text`` when at most ``chars`` characters, else its start and end around "…" (``chars`` in all)."""
    if len(text) <= chars:
        return text
    head = (chars - 1) // 2
    return text[:head] + "…" + text[len(text) - (chars - 1 - head):]


class FitScrollArea(QScrollArea):
    """A vertical scroll area whose content fills the view when its least height (at the view's width: wrapped labels
    counted) fits, and scrolls when it does not. A resizable QScrollArea sized a layout with wrapped labels to its
    preferred height for the width instead, so a page of charts scrolled at every window size."""

    def __init__(self, content: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(False)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setWidget(content)
        content.installEventFilter(self)

    def fit(self) -> None:
        """Size the content to the view's width and the larger of the view's height and the content's least height."""
        content, width = self.widget(), self.viewport().width()
        layout = content.layout()
        least = layout.minimumHeightForWidth(width) if layout is not None and layout.hasHeightForWidth() else -1
        least = max(least, content.minimumSizeHint().height())
        content.resize(width, max(self.viewport().height(), least))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt override: the content's layout changed
        if watched is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.fit()
        return super().eventFilter(watched, event)

    def resizeEvent(self, event: Any) -> None:  # Qt override
        super().resizeEvent(event)
        self.fit()
