"""Entry point ``nic-advisor-gui``: parse options, create the QApplication and show the wizard.

Options: ``--demo`` (the default input: the bundled demo lab), ``--capture PATH`` (repeatable: a capture
file, a folder of captures, a vm-support bundle or a sosreport; selects the capture input), ``--local`` (this machine).
"""
from __future__ import annotations

import argparse
import sys
import time
from typing import Sequence

from PySide6.QtCore import QEventLoop, Qt
from PySide6.QtWidgets import QApplication, QLabel, QWidget

from nicadvisor.gui import startup
from nicadvisor.gui.state import Source


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Parse the command line; raises SystemExit on bad options (argparse)."""
    parser = argparse.ArgumentParser(prog="nic-advisor-gui",
                                     description="NIC Advisor wizard: NSX Geneve overlay readiness of pNICs.")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--demo", action="store_true", help="audit the bundled demo lab (default)")
    group.add_argument("--local", action="store_true", help="audit this machine (Linux)")
    parser.add_argument("--capture", metavar="PATH", action="append", default=[],
                        help="capture file, folder, vm-support bundle or sosreport (repeatable)")
    args = parser.parse_args(argv)
    if args.capture and (args.demo or args.local):
        parser.error("--capture cannot be combined with --demo or --local")
    return args


def source_of(args: argparse.Namespace) -> tuple[Source, tuple[str, ...]]:
    """The wizard's initial (source, capture paths) for parsed ``args``."""
    if args.capture:
        return Source.CAPTURES, tuple(args.capture)
    if args.local:
        return Source.LOCAL, ()
    return Source.DEMO, ()


#: Longest wait (s) for the window system to show the starting window before the wizard is built anyway.
EXPOSE_WAIT_S = 0.3


def starting_window() -> QLabel:
    """A small frameless window saying that NIC Advisor is starting, painted before the wizard's modules load: a cold
    start showed nothing, then a black window, for seconds (the charting library, the pages, the first paint). A plain
    widget, not a QSplashScreen: that one waits up to a second for the window system to expose it."""
    label = QLabel("<div style='font-size:15pt; font-weight:bold'>NIC Advisor</div>"
                   "<div>NSX Geneve overlay readiness — starting…</div>")
    label.setWindowFlags(Qt.WindowType.SplashScreen | Qt.WindowType.FramelessWindowHint)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setStyleSheet("QLabel { background: #1d4f91; color: white; padding: 24px; }")
    label.resize(460, 120)
    return label


def show_now(window: QWidget, app: QApplication) -> None:
    """Show ``window`` and paint it before returning (waiting at most :data:`EXPOSE_WAIT_S` for the window system)."""
    window.show()
    deadline = time.monotonic() + EXPOSE_WAIT_S
    handle = window.windowHandle()
    while handle is not None and not handle.isExposed() and time.monotonic() < deadline:
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
    window.repaint()
    app.processEvents()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the wizard; returns the Qt exit code. A starting window is painted first (within a second of start, see
    ``benchmarks/gui_stalls.py start``), the wizard replaces it once built."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "nic-advisor-gui"])
    app.setApplicationName("NIC Advisor")
    app.setOrganizationName("nicadvisor")
    starting = starting_window()
    show_now(starting, app)  # painted now, not at the first event loop turn: the wizard takes a while to build
    startup.mark("splash")
    from nicadvisor.gui.wizard import NicAdvisorWizard

    source, paths = source_of(args)
    wizard = NicAdvisorWizard(source=source, capture_paths=paths, remember=True)
    wizard.show()
    starting.close()
    return int(app.exec())


if __name__ == "__main__":
    sys.exit(main())
