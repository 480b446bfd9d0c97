"""Benchmark page: a one-click quick benchmark (loopback, network namespaces, or between the audited hosts over SSH
after the user confirmed the plan of changes, with the TEP mesh between ESXi TEPs and Linux hosts), charted and
tabulated."""
from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING, Any, Callable

from PySide6.QtCore import Qt, QTimer, Signal, Slot
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView, QButtonGroup, QCheckBox, QComboBox, QDoubleSpinBox, QHBoxLayout, QHeaderView, QLabel,
    QMessageBox, QPushButton, QRadioButton, QSpinBox, QTableWidgetItem, QTabWidget, QVBoxLayout, QWidget,
)

from nicadvisor.bench.figures import chart_label, percentile_rows, sweep_series
from nicadvisor.model.path_tests import MESH_COLUMNS, mesh_table

from nicadvisor.gui import audit_cache
from nicadvisor.gui.backend import Backend
from nicadvisor.gui.pages.task_page import TaskPage
from nicadvisor.gui.state import WizardState
from nicadvisor.gui.probes import snapshot
from nicadvisor.gui.tasks import TaskHandle, TaskRunner
from nicadvisor.gui.trust import HostKeyAsker
from nicadvisor.gui.widgets.common import (
    CHART_MIN_HEIGHT, FitScrollArea, detail_browser, message_label, readonly_table, share_width, splitter,
)
from nicadvisor.gui.widgets.formatting import esc

if TYPE_CHECKING:
    from nicadvisor.services.between import BetweenOutcome, PreparedBetween


def _is_between(obj: Any, name: str) -> bool:
    """``isinstance(obj, nicadvisor.services.between.<name>)`` without importing that module on the GUI thread (it
    loads the SSH stack): an object of it exists only once a worker imported it."""
    module = sys.modules.get("nicadvisor.services.between")
    return module is not None and isinstance(obj, getattr(module, name))


#: The "what to run" choice of the MTU path check alone (between hosts; read-only, no plan to confirm).
MTU_ONLY = "mtu"
HOSTS_COLUMNS = ("Use", "Host (SSH)", "Interface or TEP vmknic to test from (empty: its SSH address, on ESXi its TEPs)")
TABLE_COLUMNS = ("Test", "Tool", "Where it ran", "Measured", "Expected", "Compared", "Basis of expectation",
                 "Duration", "Command")


#: The command line's options as the services' sentences name them, and this page's own control for each: the page
#: told the user to use --rate-mbit, which the wizard has no field for.
PAGE_WORDS = ((re.compile(r"\(--rate-mbit\)"), "(tick “shape the namespace link to” above)"),
              (re.compile(r"--rate-mbit\b"), "“shape the namespace link to” above"),
              (re.compile(r"\(--interface [^)\s]*=IF\)"), "(in the “Interface to test from” column)"),
              (re.compile(r"\bwith --interface\b"), "in the “Interface to test from” column"))


def page_words(text: str) -> str:
    """``text`` with the command line's options replaced by the controls of this page (:data:`PAGE_WORDS`)."""
    for pattern, words in PAGE_WORDS:
        text = pattern.sub(words, text)
    return text


def measured_text(result: Any) -> str:
    """TCP_STREAM: ``"12.3 Gbit/s"`` (``"47.9 Mbit/s"`` below 1 Gbit/s); TCP_RR: ``"31.2 µs (32,051 trans/s)"``;
    ``"—"`` when unknown."""
    if result.throughput_gbps is not None:
        g = result.throughput_gbps
        return f"{g:.2f} Gbit/s" if g >= 1 else f"{g * 1000:.3g} Mbit/s"
    if result.latency_us is not None:
        tps = f" ({result.transactions_per_s:,.0f} trans/s)" if result.transactions_per_s else ""
        return f"{result.latency_us:.1f} µs{tps}"
    if result.transactions_per_s is not None:
        return f"{result.transactions_per_s:,.0f} trans/s"
    return "—"


def expected_text(result: Any) -> tuple[str, str]:
    """(``"0.043…0.0478 Gbit/s"`` for a band or ``"≈ 20 Gbit/s"``, basis) of ``result.expected``, or
    (``"no expectation"``, why none fits the path)."""
    exp = result.expected
    if exp is None:
        return "no expectation", page_words(getattr(result, "no_expectation", "") or "")
    return exp.text(), page_words(exp.basis or "")


def compared_text(result: Any) -> str:
    """``"PASS: within band"``, ``"FAIL: 30 % slower than expected; …"`` or the comparison alone without a band: the
    words of :meth:`nicadvisor.bench.results.BenchResult.comparison`, as in every report."""
    verdict = result.verdict()
    return (f"{verdict.upper()}: " if verdict else "") + page_words(result.comparison())


#: The TEP mesh tab before any mesh was checked: how to fill it.
MESH_EMPTY = ("<i>No TEP mesh checked yet.</i><br>Choose <b>Between audited hosts over SSH</b>, tick <b>Check the TEP "
              "mesh first</b> (or choose <b>Only the TEP mesh</b>), then run: every pair of hosts is pinged with "
              "don't-fragment at the TEP MTU and at 1600 bytes, and each pair and size gets a row here.")

#: Said when fewer than two hosts are ticked for a benchmark between hosts; cleared once two are.
TICK_TWO = "<b>Tick at least two hosts</b> (add them on the Connect page)."



#: How a ``HOST left changed: …`` sentence (``bench.remote.RemoteBench.left_changed``) names the command to run.
_UNDO_BY_HAND = "; undo it by hand there with: "


def left_changed_html(sentences: list[str]) -> str:
    """HTML of the ``HOST left changed: HOST: CHANGE; undo it by hand there with: COMMAND (…)`` sentences of a benchmark
    (the CLI's exit 4): a red heading, then per change the host and what was changed, and the command to run there as
    selectable code. A sentence in another shape is shown whole."""
    out = ["<b style='color:#b00020'>✖ A change on a host could not be put back.</b> Run the command below on that "
           "host (the next benchmark with it also tries again first):"]
    for sentence in sentences:
        head, sep, tail = sentence.removeprefix("HOST left changed: ").partition(_UNDO_BY_HAND)
        if not sep:
            out.append(f"&nbsp;&nbsp;• {esc(sentence)}")
            continue
        command, _, note = tail.partition(" (the next benchmark")
        out.append(f"&nbsp;&nbsp;• {esc(head)}: run <code>{esc(command)}</code>")
    return "<br>".join(out)

class BenchmarkPage(TaskPage):
    """Runs ``backend.bench`` (netperf/iperf3 TCP_STREAM and TCP_RR) on a worker; optional page.

    Charts: measured vs expected throughput (TCP_STREAM, Gbit/s) and latency (TCP_RR, µs). TCP_STREAM has an
    expected value only on a shaped namespace path: on the netns path, "shape the namespace link to N Mbit/s"
    (:attr:`shape_box`, :attr:`rate`) passes ``rate_mbit=N`` (``BenchRequest.rate_mbit``, a tc tbf on the
    veth), and the expectation follows from N (``nicadvisor.bench.expected``); loopback and an unshaped veth
    have no line rate, hence no expected throughput.

    Signals:
        sig_bench_done(object): the benchmark finished; carries the BenchReport.
        sig_bench_cancelled(): the benchmark was cancelled.
        sig_bench_failed(str): the benchmark raised; carries the message.
    """

    sig_bench_done = Signal(object)
    sig_bench_cancelled = Signal()
    sig_bench_failed = Signal(str)

    TASK_NAME = "bench"
    TASK_TITLE = "Benchmark"

    def __init__(self, state: WizardState, runner: TaskRunner, backend: Backend,
                 asker: HostKeyAsker | None = None, parent: QWidget | None = None) -> None:
        super().__init__(state, runner, backend, parent)
        self.asker = asker
        #: Asks the user to confirm a plan of changes (its text lines); True = go. Tests may replace it.
        self.confirm_plan: Callable[[list[str]], bool] = self._confirm_with_dialog
        self._prepared: PreparedBetween | None = None
        self.end_signals = (self.sig_bench_done, self.sig_bench_cancelled, self.sig_bench_failed)
        self.save_handle: TaskHandle | None = None
        self.setTitle("Benchmark (optional)")
        self.setSubTitle("A quick TCP_STREAM throughput and TCP_RR latency test, on this machine or between the "
                         "audited hosts, compared with what that path should reach, and the TEP mesh between them. "
                         "Skip it with Next.")

        self.loopback_radio = QRadioButton("Loopback (127.0.0.1)")
        self.netns_radio = QRadioButton("Between network namespaces over a veth pair (needs root)")
        self.hosts_radio = QRadioButton("Between audited hosts over SSH")
        self.hosts_radio.setToolTip("TCP_STREAM and TCP_RR between the Linux hosts of the Connect page, every pair; "
                                    "the TEP mesh between them and the ESXi hosts' TEPs; the plan of every change "
                                    "on each host is shown before anything changes")
        self.loopback_radio.setChecked(True)
        self.path_group = QButtonGroup(self)
        self.path_group.addButton(self.loopback_radio)
        self.path_group.addButton(self.netns_radio)
        self.path_group.addButton(self.hosts_radio)
        self.hosts_table = readonly_table(HOSTS_COLUMNS, fit=2)
        self.hosts_table.setEditTriggers(QAbstractItemView.EditTrigger.AllEditTriggers)
        self.hosts_table.setMaximumHeight(110)
        self.hosts_hint = message_label()
        self.duration = QDoubleSpinBox()
        self.duration.setRange(1.0, 60.0)
        self.duration.setDecimals(0)
        self.duration.setSingleStep(1.0)
        self.duration.setValue(2.0)
        self.duration.setSuffix(" s per test")
        self.shape_box = QCheckBox("shape the namespace link to")
        self.shape_box.setToolTip("tc tbf on the veth pair (BenchRequest.rate_mbit): TCP_STREAM then has an "
                                  "expected value to compare with; netns path only")
        self.rate = QSpinBox()
        self.rate.setRange(1, 100_000)
        self.rate.setSingleStep(100)
        self.rate.setValue(1000)
        self.rate.setSuffix(" Mbit/s (tc tbf)")
        self.tests_box = QComboBox()
        self.tests_box.addItem("TCP_STREAM + TCP_RR", None)
        self.tests_box.addItem("Quick profile (+ TCP_CRR, UDP_STREAM)", "quick")
        self.tests_box.addItem("Full profile (streams, payload sweep, 3 runs)", "full")
        self.tests_box.addItem("Only the TEP mesh (between hosts, read-only)", MTU_ONLY)
        self.mtu_box = QCheckBox("Check the TEP mesh first (don't-fragment pings at the TEP MTU and 1600 bytes)")
        self.mtu_box.setToolTip("vmkping ++netstack=vxlan -I vmkN -d from every ESXi TEP, ping -M do from every Linux "
                                "host, to every other host's TEPs: at the sender's MTU and at 1600 bytes, and at 56 "
                                "bytes after a size got no reply (read-only); a size that does not pass becomes an "
                                "error on the TEP vmknic at each end")
        self.mtu_result = message_label(selectable=True)
        self.tests_box.setToolTip("The test catalogue as the reference documents run it (on this machine or between "
                                  "the audited hosts); a test no tool can run says so instead of a figure")
        self.run_button = QPushButton("Run quick benchmark")
        self.run_button.setDefault(False)
        self.run_button.setAutoDefault(False)
        self.action_button = self.run_button

        options = QHBoxLayout()  # the paths on one row, what to run on the next: the page fits 1200 px
        options.addWidget(self.loopback_radio)
        options.addWidget(self.netns_radio)
        options.addWidget(self.hosts_radio)
        options.addStretch(1)
        run_row = QHBoxLayout()
        run_row.addWidget(self.tests_box)
        run_row.addWidget(QLabel("Duration:"))
        run_row.addWidget(self.duration)
        run_row.addStretch(1)
        run_row.addWidget(self.run_button)
        shaping = QHBoxLayout()
        shaping.addSpacing(24)  # under the namespace path it belongs to
        shaping.addWidget(self.shape_box)
        shaping.addWidget(self.rate)
        shaping_hint = QLabel("<i>gives TCP_STREAM an expected value (loopback and an unshaped veth have no line "
                              "rate)</i>")
        shaping_hint.setWordWrap(True)  # wraps with a larger font instead of widening the window
        shaping.addWidget(shaping_hint, 1)

        self.problems = message_label(selectable=True)
        # results of another path than the one selected now are greyed out and say so (review: a netns band and
        # PASS stayed on screen under the newly ticked Loopback)
        self.stale_hint = message_label()
        self.stale_hint.hide()
        self._shown_path = ""

        # the charts (pyqtgraph and numpy: about a second of a cold start) are built when first needed, one per event
        # loop turn once the page is shown (_build_next_chart), or at once when a result is drawn: their places first
        measured = QWidget()
        charts_layout = QHBoxLayout(measured)
        charts_layout.setContentsMargins(0, 0, 0, 0)
        percentile_tab, sweep_tab = QWidget(), QWidget()
        for tab in (percentile_tab, sweep_tab):
            QVBoxLayout(tab).setContentsMargins(0, 0, 0, 0)
        #: chart attribute -> (the layout it goes in, how it is made from the bench_chart module)
        self._chart_places: dict[str, tuple[Any, Callable[[Any], QWidget]]] = {
            "throughput_chart": (charts_layout, lambda m: m.MeasuredVsExpectedChart("TCP_STREAM throughput", "Gbit/s")),
            "latency_chart": (charts_layout,
                              lambda m: m.MeasuredVsExpectedChart("TCP_RR latency (lower is better)", "µs")),
            "percentile_chart": (percentile_tab.layout(), lambda m: m.PercentileChart()),
            "sweep_chart": (sweep_tab.layout(), lambda m: m.PayloadSweepChart()),
        }
        self._charts: dict[str, QWidget] = {}
        self._prebuild = False  # prebuild_charts(): build them even while the page is hidden
        # the TEP mesh: one row per pair and frame size (the same table as the CLI, the PDF and the HTML)
        self.mesh_table = readonly_table(MESH_COLUMNS, single=False)
        self.mesh_table.horizontalHeader().setStretchLastSection(True)
        self.mesh_table.horizontalHeader().setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        charts = QTabWidget()
        charts.addTab(measured, "Measured vs expected")
        charts.addTab(percentile_tab, "Latency percentiles")
        charts.addTab(sweep_tab, "Payload sweep")
        self._tab_charts = {percentile_tab: "percentile_chart", sweep_tab: "sweep_chart"}
        charts.currentChanged.connect(self._on_tab_shown)
        # until a mesh was checked the tab says how to fill it (it was an empty table with its titles cut)
        self.mesh_empty = message_label()
        self.mesh_empty.setText(MESH_EMPTY)
        self.mesh_empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        mesh_tab = QWidget()
        mesh_layout = QVBoxLayout(mesh_tab)
        mesh_layout.setContentsMargins(0, 0, 0, 0)
        mesh_layout.addWidget(self.mesh_empty, 1)
        mesh_layout.addWidget(self.mesh_table, 1)
        self.mesh_table.hide()
        self.mesh_tab = mesh_tab
        charts.addTab(mesh_tab, "TEP mesh")
        self.chart_tabs = charts

        self.table = readonly_table(TABLE_COLUMNS, single=False)
        self.table.horizontalHeader().setStretchLastSection(True)
        # titles start at the left of their column: a narrowed column cut a centred title at both ends
        self.table.horizontalHeader().setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        # the selected result in full, scrolled when it is long (a label was cut mid-line without a scroll bar)
        self.result_detail = detail_browser("Select a result to see how it was measured and compared.")

        # the page scrolls when its options, the host table and the problems leave the charts less than their least
        # height (at 1200×800 in "Between audited hosts" mode they were 90 px tall, unreadable)
        content = QWidget()
        self.scroll = FitScrollArea(content)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.scroll)
        layout = QVBoxLayout(content)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(options)
        layout.addLayout(shaping)
        layout.addLayout(run_row)
        layout.addWidget(self.hosts_table)
        layout.addWidget(self.hosts_hint)
        layout.addWidget(self.mtu_box)
        layout.addWidget(self.progress)
        layout.addWidget(self.problems)
        layout.addWidget(self.mtu_result)
        layout.addWidget(self.stale_hint)
        # charts, every result row and the detail each keep a share of the height: at 1200×800 the table showed one
        # row of two (TCP_RR hidden); _fit_results gives the table the height of its rows
        self.results_area = splitter(Qt.Orientation.Vertical, (charts, 3), (self.table, 2), (self.result_detail, 1))
        charts.setMinimumHeight(CHART_MIN_HEIGHT + charts.tabBar().sizeHint().height())
        lines = self.fontMetrics().lineSpacing()
        self.result_detail.setMinimumHeight(3 * lines + 12)
        self.table.setMinimumHeight(self.table.horizontalHeader().sizeHint().height() + 2 * (lines + 8) + 6)
        layout.addWidget(self.results_area, 1)
        self.run_button.clicked.connect(self.start_bench)
        self.hosts_table.itemChanged.connect(self._on_host_ticked)
        self.table.currentCellChanged.connect(self._on_current_row_changed)
        self.loopback_radio.toggled.connect(self._update_shaping)
        self.netns_radio.toggled.connect(self._update_shaping)
        self.hosts_radio.toggled.connect(self._update_shaping)
        self.shape_box.toggled.connect(self._update_shaping)
        self._results: list[Any] = []
        self._earlier: list[list[Any]] = []  # per result: its earlier runs (services.bench_history.EarlierRun)
        self.earlier_handle: Any = None
        self._update_shaping()

    # --- wizard hooks ----------------------------------------------------------------------------
    def isComplete(self) -> bool:  # Qt override: optional page, but wait for (or cancel) a running test
        return self.outcome != "running"

    def initializePage(self) -> None:  # Qt override
        self._fill_hosts()
        if self.state.bench_report is not None:
            self._show(self.state.bench_report)

    def showEvent(self, event: QShowEvent) -> None:  # Qt override: the charts of the first tab, once shown
        super().showEvent(event)
        QTimer.singleShot(0, self, self._build_next_chart)  # not after the page is gone

    # --- the charts, built when first needed ------------------------------------------------------
    def _chart(self, name: str) -> Any:
        chart = self._charts.get(name)
        if chart is None:
            from nicadvisor.gui.widgets import bench_chart  # loaded on a worker after the first paint (wizard.py)

            layout, make = self._chart_places[name]
            chart = self._charts[name] = make(bench_chart)
            layout.addWidget(chart)
        return chart

    @Slot()
    def _build_next_chart(self) -> None:
        """Build one chart of the tab shown first not built yet, then let the event loop run before the next (each
        takes tens of ms); the other tabs' charts are built when their tab is first shown (:meth:`_on_tab_shown`)."""
        if not self.isVisible() and not self._prebuild:  # passed with Next: built when shown again (or for a result)
            return
        missing = [name for name in ("throughput_chart", "latency_chart") if name not in self._charts]
        if missing:
            self._chart(missing[0])
        if len(missing) > 1:
            QTimer.singleShot(0, self, self._build_next_chart)  # not after the page is gone

    def prebuild_charts(self) -> None:
        """Build the first tab's charts now, hidden, one per event loop turn (the wizard calls it once the charting
        library was imported on its warm-up worker): entering the page then only paints them."""
        self._prebuild = True
        QTimer.singleShot(0, self, self._build_next_chart)

    @Slot(int)
    def _on_tab_shown(self, index: int) -> None:
        name = self._tab_charts.get(self.chart_tabs.widget(index))
        if name is not None:
            self._chart(name)

    @property
    def throughput_chart(self) -> Any:
        """Measured vs expected TCP_STREAM throughput (``bench_chart.MeasuredVsExpectedChart``, Gbit/s)."""
        return self._chart("throughput_chart")

    @property
    def latency_chart(self) -> Any:
        """Measured vs expected TCP_RR latency (``bench_chart.MeasuredVsExpectedChart``, µs)."""
        return self._chart("latency_chart")

    @property
    def percentile_chart(self) -> Any:
        """Latency percentiles (``bench_chart.PercentileChart``, µs)."""
        return self._chart("percentile_chart")

    @property
    def sweep_chart(self) -> Any:
        """Payload sweep (``bench_chart.PayloadSweepChart``)."""
        return self._chart("sweep_chart")

    def _fill_hosts(self) -> None:
        """One row per SSH host of the Connect page (ticked), keeping the interfaces already typed: Linux hosts and ESXi
        hosts (these take part in the TEP mesh; tests with them are planned as their plan says)."""
        typed = self.selected_interfaces()
        specs = [s for s in self.state.ssh_hosts if s.kind in ("linux", "esxi")]
        audit = self.state.audit
        # a target the audit could not read is no endpoint to benchmark: not ticked, and it says why
        read = {src for h in audit.hosts for src in h.inputs} if audit is not None else None
        self.hosts_table.setRowCount(len(specs))
        for row, spec in enumerate(specs):
            use = QTableWidgetItem()
            use.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled)
            try:
                audited = read is None or spec.source in read
            except ValueError:  # a malformed target was never audited
                audited = False
            use.setCheckState(Qt.CheckState.Checked if audited else Qt.CheckState.Unchecked)
            if not audited:
                use.setToolTip("Not ticked: the audit could not read this host (see Discover)")
            name = QTableWidgetItem(spec.spec + (" (ESXi)" if spec.kind == "esxi" else ""))
            name.setFlags(Qt.ItemFlag.ItemIsEnabled)
            name.setData(Qt.ItemDataRole.UserRole, spec)
            iface = QTableWidgetItem(typed.get(spec.source, ""))
            iface.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsEditable | Qt.ItemFlag.ItemIsSelectable)
            for col, item in enumerate((use, name, iface)):
                self.hosts_table.setItem(row, col, item)
        self._update_shaping()

    @Slot()
    def _on_host_ticked(self) -> None:
        """"Tick at least two hosts" goes once two are ticked (it stayed after three were)."""
        if self.problems.text() == TICK_TWO and len(self.selected_hosts()) >= 2:
            self.problems.setText("")

    def selected_hosts(self) -> list[Any]:
        """The ticked :class:`~nicadvisor.gui.state.SshSpec` rows, in table order."""
        out = []
        for row in range(self.hosts_table.rowCount()):
            use, name = self.hosts_table.item(row, 0), self.hosts_table.item(row, 1)
            if use is not None and name is not None and use.checkState() == Qt.CheckState.Checked:
                out.append(self.hosts_table.item(row, 1).data(Qt.ItemDataRole.UserRole))
        return out

    def selected_interfaces(self) -> dict[str, str]:
        """``{spec.source: interface}`` of the rows where an interface was typed."""
        out = {}
        for row in range(self.hosts_table.rowCount()):
            spec, iface = self.hosts_table.item(row, 1), self.hosts_table.item(row, 2)
            if spec is not None and iface is not None and iface.text().strip():
                out[spec.data(Qt.ItemDataRole.UserRole).source] = iface.text().strip()
        return out

    def selected_path(self) -> str:
        """``"netns"``, ``"hosts"`` or ``"loopback"``, as the radio buttons say."""
        if self.hosts_radio.isChecked():
            return "hosts"
        return "netns" if self.netns_radio.isChecked() else "loopback"

    def selected_rate(self) -> int | None:
        """The tc tbf rate in Mbit/s for the netns path when shaping is ticked, else None (unshaped)."""
        if self.netns_radio.isChecked() and self.shape_box.isChecked():
            return int(self.rate.value())
        return None

    @Slot()
    def _update_shaping(self) -> None:
        """Shaping applies to the netns path only; the rate only when shaping is ticked."""
        netns = self.netns_radio.isChecked()
        self.shape_box.setEnabled(netns)
        self.rate.setEnabled(netns and self.shape_box.isChecked())
        hosts = self.hosts_radio.isChecked()
        self.hosts_table.setVisible(hosts)
        self.hosts_hint.setVisible(hosts)
        self.mtu_box.setVisible(hosts)
        count = self.hosts_table.rowCount()
        stale = bool(self._results) and bool(self._shown_path) and self._shown_path != self.selected_path()
        self.results_area.setEnabled(not stale)
        self.stale_hint.setVisible(stale)
        words = {"loopback": "loopback", "netns": "two-namespace", "hosts": "between-hosts"}
        self.stale_hint.setText(f"<i>The results below are of the last run, on the "
                                f"{words.get(self._shown_path, self._shown_path)} path; run again to measure the "
                                "path selected now.</i>" if stale else "")
        self.hosts_hint.setText(
            "Add two or more hosts (SSH: Linux, or ESXi for the TEP mesh) on the Connect page and audit them: their "
            "audited facts set the expected values." if count < 2 else
            "Each result is compared with what the audited facts of both ends (link speed, MTU, PCIe) or a tc tbf "
            "read on the sender allow; you confirm every change before it is made.")

    # --- task ------------------------------------------------------------------------------------
    @Slot()
    def start_bench(self) -> None:
        """Start the quick benchmark with the chosen path and duration (seconds per test)."""
        if self.task_running():
            return
        if self.selected_path() == "hosts":
            self._start_prepare()
            return
        if self.mtu_only():
            self.problems.setText("<b>The TEP mesh runs between hosts:</b> choose \"Between audited hosts over "
                                  "SSH\".")
            return
        path, duration, rate = self.selected_path(), float(self.duration.value()), self.selected_rate()
        bench_fn = self.backend.bench
        shaping = {"rate_mbit": rate} if rate is not None else {}
        profile = self.selected_profile()
        if profile:
            shaping["profile"] = profile

        def task(progress, cancel):
            return bench_fn(path=path, duration_s=duration, progress=progress, cancel=cancel, **shaping)

        self.problems.setText("")
        where = f"{path} shaped to {rate} Mbit/s" if rate is not None else path
        what = f"the {profile} profile" if profile else "TCP_STREAM and TCP_RR"
        self.run_task(task, f"Running {what} on {where}, {duration:g} s each…")

    def selected_profile(self) -> str | None:
        """``"quick"``/``"full"`` (the test catalogue) or None (TCP_STREAM and TCP_RR, or no test), on this machine or
        between hosts."""
        data = self.tests_box.currentData()
        return None if data == MTU_ONLY else data

    def mtu_only(self) -> bool:
        """True when "Only the MTU path check" is chosen: no test runs, nothing changes on a host."""
        return self.tests_box.currentData() == MTU_ONLY

    # --- between audited hosts: prepare (read-only), confirm, run ------------------------------------
    def _start_prepare(self) -> None:
        specs = [snapshot(s) for s in self.selected_hosts()]
        if len(specs) < 2:
            self.problems.setText(TICK_TWO)
            return
        interfaces, duration = self.selected_interfaces(), float(self.duration.value())
        prepare, asker, profile = self.backend.remote_prepare, self.asker, self.selected_profile()
        extra: dict[str, Any] = {"profile": profile} if profile else {}
        if self.mtu_only() or self.mtu_box.isChecked():  # the service runs the MTU check first (read-only)
            extra.update(mtu_check=True, run_tests=not self.mtu_only())

        def task(progress, cancel):
            ask = asker.bound(cancel) if asker is not None else None
            return prepare(specs, interfaces, duration, progress, cancel, ask_host_key=ask, **extra)

        self.problems.setText("")
        self.run_task(task, f"Connecting to {len(specs)} hosts and reading what they offer (nothing is changed)…")

    def _confirm_with_dialog(self, lines: list[str]) -> bool:
        box = QMessageBox(QMessageBox.Icon.Question, "Run the benchmark on these hosts?",
                          "These changes are made on the hosts for the tests and undone afterwards "
                          "(also after Cancel or a crash).", QMessageBox.StandardButton.Yes |
                          QMessageBox.StandardButton.No, self)
        box.setDetailedText("\n".join(lines))
        box.setInformativeText("\n".join(lines[:12]) + ("\n…" if len(lines) > 12 else ""))
        box.setDefaultButton(QMessageBox.StandardButton.No)
        return box.exec() == QMessageBox.StandardButton.Yes

    def _after_prepare(self, prepared: PreparedBetween) -> None:
        """The plan is ready: show it; run it only when the user says yes (tests change the hosts; the MTU check
        alone is read-only and needs no yes), else close the connections."""
        notes = prepared.reach_problems()
        if notes:
            self.problems.setText("<b>Problems:</b> " + esc(page_words("; ".join(notes))))
        if not prepared.can_run:
            self.progress.end("No test can run between these hosts: nothing was changed.", 0.0)
            self._close_prepared(prepared)
            return
        # the plan was read, nothing ran yet: the bar is empty while the user reads it (it read 100 %), and stays so
        # when the user declines
        if prepared.needs_confirmation:
            self.progress.show_progress(0.0, "The plan of changes is ready: nothing runs until you confirm it.")
        if prepared.needs_confirmation and not self.confirm_plan(prepared.plan_lines()):
            self.progress.end("Benchmark declined: nothing was changed on any host.", 0.0)
            self._close_prepared(prepared)
            return
        self._prepared = prepared
        run, audit, store = self.backend.remote_run, self.state.audit, self.state.store
        tests = len(prepared.plan.tests) if prepared.needs_confirmation else 0
        what = (["Pinging the TEP mesh (read-only)"] if prepared.request.mtu_check else []) + \
            ([f"running {tests} test(s) between the hosts; every change is undone afterwards"] if tests else [])
        status = ", then ".join(what)

        def between(progress, cancel):
            outcome = run(prepared, audit, progress, cancel, store=store)
            audit_cache.warm(getattr(outcome, "audit", None))  # on the worker: the pages show it next
            return outcome

        self.run_task(between, status[:1].upper() + status[1:] + "…")

    def task_cancelled(self) -> None:  # TaskPage hook: a cancelled run between hosts may have left a change
        super().task_cancelled()
        self._say_left_changed()

    def task_failed(self, message: str) -> None:  # TaskPage hook
        super().task_failed(message)
        self._say_left_changed()

    def _say_left_changed(self) -> None:
        """After a run between hosts that was cancelled or failed: the changes it could not put back (the CLI's
        exit 4), as the red error :func:`left_changed_html` writes, with the command to run on each host."""
        bench = getattr(self._prepared, "bench", None)
        self._prepared = None  # said once: a later run's end does not repeat it
        left = list(getattr(bench, "left_changed", None) or [])
        if left:
            self.progress.set_failed(True)
            self.progress.end("Stopped, but a host was left changed: undo it by hand (below).", 1.0)
            self.problems.setText(left_changed_html(left))

    def _close_prepared(self, prepared: PreparedBetween) -> None:
        close = self.backend.remote_close
        self.runner.start(self.runner.prepare("bench-close", lambda _p, _c: close(prepared)))

    def _after_end(self, which: int, *args: Any) -> None:  # TaskPage: the plan stage is not the end
        if args and _is_between(args[0], "PreparedBetween"):
            prepared = args[0]
            super()._after_end(-1)
            self._after_prepare(prepared)
            return
        super()._after_end(which, *args)

    def task_finished(self, report: Any) -> Any:  # TaskPage hook
        if _is_between(report, "PreparedBetween"):
            self.progress.end("Read what each host offers; nothing was changed.", 1.0)
            return report
        self._prepared = None
        outcome = report if _is_between(report, "BetweenOutcome") else None
        if outcome is not None:  # between hosts: the service added the results to the audit (and the history)
            report = outcome.tests_report()
            if outcome.audit is not None:
                self.state.audit = outcome.audit
        self.state.bench_report = report
        if outcome is None and self.state.audit is not None:
            self.state.audit.benchmarks = list(report.results)
            self._save_to_history(self.state.audit)
        self._show_mtu(outcome)
        self.progress.end(f"Benchmark finished: {len(report.results)} result(s)"
                          + (f", {len(outcome.mtu_paths)} TEP mesh ping(s)." if outcome and
                             outcome.request.mtu_check else "."), 1.0)
        self._earlier = []
        self._show(report)
        self._load_earlier(report)
        return report

    def _show_mtu(self, outcome: BetweenOutcome | None) -> None:
        """The TEP mesh: its table (one row per pair and frame size, the "TEP mesh" tab, brought to the front), a
        summary line (passed, failed, not run) and what was recorded in the audit."""
        if outcome is None or not outcome.request.mtu_check:
            self.mtu_result.setText("")
            self.mesh_table.setRowCount(0)
            self.mesh_table.hide()
            self.mesh_empty.show()
            return
        rows = mesh_table(outcome.mtu_paths)
        self.mesh_table.setRowCount(len(rows))
        self.mesh_table.setVisible(bool(rows))
        self.mesh_empty.setVisible(not rows)
        for i, row in enumerate(rows):
            for col, key in enumerate(MESH_COLUMNS):
                item = QTableWidgetItem(row[key])
                item.setToolTip(row[key])
                if key == "Result" and row[key] == "FAIL":
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                self.mesh_table.setItem(i, col, item)
        self.chart_tabs.setCurrentWidget(self.mesh_tab)
        for col in range(len(MESH_COLUMNS) - 1):  # both ends whole; the cause takes the rest (whole in its tooltip)
            self.mesh_table.resizeColumnToContents(col)
        counts = {w: sum(1 for r in rows if r["Result"] == w) for w in ("PASS", "FAIL", "NOT RUN")}
        summary = (f"{counts['PASS']} pass, <b>{counts['FAIL']} FAIL</b>, {counts['NOT RUN']} did not run"
                   if rows else "no ping could be sent (no TEP or test address on two hosts)")
        failed = [r for r in rows if r["Result"] == "FAIL"]
        first = f"<br>{esc(failed[0]['From'])} → {esc(failed[0]['To'])}: {esc(failed[0]['Cause'])}" if failed else ""
        self.mtu_result.setText(f"<b>TEP mesh:</b> {summary} (the “TEP mesh” tab below){first}<br>"
                                + "<br>".join(esc(n) for n in outcome.notes))

    def _load_earlier(self, report: Any) -> None:
        """Read the earlier runs of these tests from the history on a worker, then draw them on the charts;
        :attr:`earlier_handle` is the task, None without a history."""
        from nicadvisor.services.bench_history import load_earlier

        store, audit = self.state.store, self.state.audit
        self.earlier_handle = None
        if store is None or not report.results:
            return
        exclude = getattr(audit, "history_id", None)
        results = list(report.results)
        handle = self.runner.prepare("bench-earlier",
                                     lambda _p, _c: load_earlier(store, results, exclude_audit=exclude))

        def done(earlier: Any, report: Any = report) -> None:
            if self.state.bench_report is report:  # not a later run's
                self._earlier = list(earlier)
                self._show(report)

        handle.sig_finished.connect(done)
        self.earlier_handle = handle
        self.runner.start(handle)

    def _save_to_history(self, audit: Any) -> None:
        """Store the results with the audit in the history (``AuditStore.set_benchmarks``, on a worker);
        :attr:`save_handle` is the task, None when there is no history or the audit is not in it."""
        store = self.state.store
        self.save_handle = None
        if store is None or getattr(audit, "history_id", None) is None:
            return
        history_id, results = audit.history_id, list(audit.benchmarks)
        handle = self.runner.prepare("history-bench", lambda _p, _c: store.set_benchmarks(history_id, results))
        handle.sig_failed.connect(self._on_save_failed)
        self.save_handle = handle
        self.runner.start(handle)

    @Slot(str)
    def _on_save_failed(self, message: str) -> None:
        self.problems.setText(f"<b>The results could not be saved in the audit history:</b> {esc(message)}")

    # --- display ---------------------------------------------------------------------------------
    def _show(self, report: Any) -> None:
        left = list(getattr(report, "left_changed", None) or [])
        if left:  # the CLI's exit 4: a change on a host could not be put back — an error, with the command to run
            self.progress.set_failed(True)
            self.progress.end("Benchmark finished, but a host was left changed: undo it by hand (below).", 1.0)
        if report.problems or left:
            self.problems.setText("<br>".join([left_changed_html(left)] if left else [])
                                  + ("<br>" if left and report.problems else "")
                                  + ("<b>Problems:</b> " + esc(page_words("; ".join(report.problems)))
                                     if report.problems else ""))
        else:
            self.problems.setText("")
        earlier = self._earlier if len(self._earlier) == len(report.results) else [[] for _ in report.results]
        stream = [i for i, r in enumerate(report.results) if r.throughput_gbps is not None]
        rr = [i for i, r in enumerate(report.results) if r.latency_us is not None]
        for chart, picked, unit, value in ((self.throughput_chart, stream, "Gbit/s", "throughput_gbps"),
                                           (self.latency_chart, rr, "µs", "latency_us")):
            rows = [report.results[i] for i in picked]
            mine = [r.expected if r.expected is not None and r.expected.unit == unit else None for r in rows]
            chart.set_bars([chart_label(r.to_dict()) for r in rows], [getattr(r, value) for r in rows],
                           [e.value if e is not None else None for e in mine],
                           bands=[(e.low, e.high) if e is not None and e.is_band else None for e in mine],
                           verdicts=[r.verdict() for r in rows],
                           history=[[run.value for run in earlier[i] if run.unit == unit] for i in picked])
        docs = [r.to_dict() for r in report.results]
        self.percentile_chart.set_rows(percentile_rows(docs))
        self.sweep_chart.set_series(sweep_series(docs))
        self._results = list(report.results)
        shown = next((r.path for r in report.results), "")
        self._shown_path = "hosts" if shown == "remote" else shown  # as selected_path() names it
        self._update_shaping()
        self.table.setRowCount(len(report.results))
        for i, r in enumerate(report.results):
            expected, basis = expected_text(r)
            values = (r.spec or r.test, r.tool, r.endpoints or r.path, measured_text(r), expected, compared_text(r), basis,
                      f"{r.duration_s:g} s" if r.duration_s is not None else "", r.command or "")
            for col, value in enumerate(values):
                item = QTableWidgetItem(str(value))
                item.setToolTip(str(value))
                self.table.setItem(i, col, item)
        self.table.horizontalHeader().setSectionResizeMode(len(TABLE_COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        self._fit_columns()
        self._fit_results()
        if self._results:
            self.table.setCurrentCell(0, 0)
            self._on_current_row_changed(0, 0, -1, -1)

    def _fit_results(self) -> None:
        """Give the results table the height of its rows (up to 6), the detail pane four lines, the charts the rest."""
        total = sum(self.results_area.sizes())
        if total <= 0 or not self._results:
            return
        rows = min(6, self.table.rowCount())
        scroll = self.table.horizontalScrollBar().sizeHint().height()
        wanted = (self.table.horizontalHeader().sizeHint().height() + sum(self.table.rowHeight(r) for r in range(rows))
                  + 2 * self.table.frameWidth() + scroll + 2)
        detail = self.result_detail.minimumHeight() + self.fontMetrics().lineSpacing()
        charts = max(self.results_area.widget(0).minimumHeight(), total - wanted - detail)
        table = max(self.table.minimumHeight(), min(wanted, total - charts - detail))
        self.results_area.setSizes([charts, table, total - charts - table])

    def _fit_columns(self) -> None:
        """Every column whole when the table is wide enough, the command (last) keeping 200 px; otherwise the widest
        are narrowed (their full text is in the tooltip and the detail below), never below their title."""
        share_width(self.table, len(TABLE_COLUMNS) - 1, self.table.viewport().width() - 200)

    def resizeEvent(self, event: Any) -> None:  # Qt override: the table keeps the height of its rows
        super().resizeEvent(event)
        if self._results:
            self._fit_columns()
        self._fit_results()

    @Slot(int, int, int, int)
    def _on_current_row_changed(self, row: int, _col: int, _prev_row: int, _prev_col: int) -> None:
        if not 0 <= row < len(self._results):
            self.result_detail.clear()
            return
        r = self._results[row]
        expected, basis = expected_text(r)
        expectation = (f"expected {esc(expected)}" + (f" — <i>{esc(basis)}</i>" if basis else "")
                       if r.expected is not None else f"no expectation: {esc(basis)}" if basis
                       else "no expected value is known for this test and path")
        expectation += f"<br><b>Compared:</b> {esc(compared_text(r))}"
        runs = self._earlier[row] if row < len(self._earlier) else []
        if runs:
            expectation += "<br><b>Earlier runs:</b> " + esc("; ".join(run.text() for run in runs))
        self.result_detail.setHtml(
            f"<b>{esc(r.test)}</b> with {esc(r.tool)} on {esc(r.path)}: {esc(measured_text(r))}; {expectation}"
            # a break opportunity after each comma: a netperf -k selector list is one long word otherwise
            + f"<br><b>Command:</b> <code>{esc(r.command or '').replace(',', ',&#8203;')}</code>")
