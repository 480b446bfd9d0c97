"""The NIC Advisor wizard: Connect → Discover → Inspect → Benchmark → Findings → Export."""
from __future__ import annotations

import enum

from PySide6.QtCore import QSize
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QWidget, QWizard

from nicadvisor.gui.backend import Backend
from nicadvisor.gui.pages.benchmark import BenchmarkPage
from nicadvisor.gui.pages.connect import ConnectPage
from nicadvisor.gui.pages.discover import DiscoverPage
from nicadvisor.gui.pages.export import ExportPage
from nicadvisor.gui.pages.findings import FindingsPage
from nicadvisor.gui.pages.inspect import InspectPage
from nicadvisor.gui.state import Source, WizardState
from nicadvisor.gui.tasks import TaskRunner


class PageId(enum.IntEnum):
    """Page ids, in wizard order."""

    CONNECT = 0
    DISCOVER = 1
    INSPECT = 2
    BENCHMARK = 3
    FINDINGS = 4
    EXPORT = 5


class NicAdvisorWizard(QWizard):
    """The main window: a QWizard whose pages share a :class:`WizardState`, a :class:`TaskRunner`
    and a :class:`Backend`.

    Attributes:
        state: the shared wizard state.
        runner: the task runner every page submits its blocking work to.
        backend: the service callables (the real services unless one is injected).
        pages: page objects by :class:`PageId`.
    """

    def __init__(self, backend: Backend | None = None, source: Source = Source.DEMO,
                 capture_paths: tuple[str, ...] = (), parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = WizardState(source=source, capture_paths=tuple(capture_paths))
        self.backend = backend or Backend.real()
        self.runner = TaskRunner(self)
        self.setWindowTitle("NIC Advisor — NSX Geneve overlay readiness")
        self.setWizardStyle(QWizard.WizardStyle.ModernStyle)
        self.setOption(QWizard.WizardOption.NoBackButtonOnStartPage, True)
        self.setOption(QWizard.WizardOption.HaveHelpButton, False)
        # "Cancel" is the task button on the Discover/Benchmark/Export pages; the wizard's own is "Quit".
        self.setButtonText(QWizard.WizardButton.CancelButton, "Quit")
        self.pages = {
            PageId.CONNECT: ConnectPage(self.state),
            PageId.DISCOVER: DiscoverPage(self.state, self.runner, self.backend),
            PageId.INSPECT: InspectPage(self.state),
            PageId.BENCHMARK: BenchmarkPage(self.state, self.runner, self.backend),
            PageId.FINDINGS: FindingsPage(self.state),
            PageId.EXPORT: ExportPage(self.state, self.runner, self.backend),
        }
        for pid, page in self.pages.items():
            self.setPage(int(pid), page)
        self.setStartId(int(PageId.CONNECT))
        self.resize(1200, 800)

    def sizeHint(self) -> QSize:  # Qt override
        return QSize(1200, 800)

    def shutdown(self, deadline_ms: int = 5000) -> bool:
        """Cancel running tasks and wait for their workers (up to ``deadline_ms``)."""
        return self.runner.shutdown(deadline_ms)

    def done(self, result: int) -> None:  # Qt override: Finish, Cancel, Escape
        self.shutdown()
        super().done(result)

    def closeEvent(self, event: QCloseEvent) -> None:  # Qt override
        self.shutdown()
        super().closeEvent(event)
