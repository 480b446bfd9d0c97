"""Entry point ``nic-advisor-gui``: parse options, create the QApplication and show the wizard.

Options: ``--demo`` (the default input: the bundled demo lab), ``--capture PATH`` (repeatable: a capture
file, a folder of captures or a vm-support bundle; selects the capture input), ``--local`` (this machine).
"""
from __future__ import annotations

import argparse
import sys
from typing import Sequence

from PySide6.QtWidgets import QApplication

from nicadvisor.gui.state import Source


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Parse the command line; raises SystemExit on bad options (argparse)."""
    parser = argparse.ArgumentParser(prog="nic-advisor-gui",
                                     description="NIC Advisor wizard: NSX Geneve overlay readiness of pNICs.")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--demo", action="store_true", help="audit the bundled demo lab (default)")
    group.add_argument("--local", action="store_true", help="audit this machine (Linux)")
    parser.add_argument("--capture", metavar="PATH", action="append", default=[],
                        help="capture file, folder or vm-support bundle (repeatable)")
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


def main(argv: Sequence[str] | None = None) -> int:
    """Run the wizard; returns the Qt exit code."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    from nicadvisor.gui.wizard import NicAdvisorWizard

    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "nic-advisor-gui"])
    app.setApplicationName("NIC Advisor")
    app.setOrganizationName("nicadvisor")
    source, paths = source_of(args)
    wizard = NicAdvisorWizard(source=source, capture_paths=paths, remember=True)
    wizard.show()
    return int(app.exec())


if __name__ == "__main__":
    sys.exit(main())
