"""Command-line options of nic-advisor-gui and the Connect page defaults."""
from __future__ import annotations

import pytest
from PySide6.QtWidgets import QWizard

from nicadvisor.gui.app import parse_args, source_of
from nicadvisor.gui.state import Source
from nicadvisor.gui.wizard import PageId


def test_options():
    assert source_of(parse_args([])) == (Source.DEMO, ())
    assert source_of(parse_args(["--demo"])) == (Source.DEMO, ())
    assert source_of(parse_args(["--local"])) == (Source.LOCAL, ())
    assert source_of(parse_args(["--capture", "a.txt", "--capture", "dir"])) == (Source.CAPTURES, ("a.txt", "dir"))
    with pytest.raises(SystemExit):
        parse_args(["--demo", "--capture", "a.txt"])


def test_connect_page(make_wizard, qtbot):
    wizard = make_wizard()
    page = wizard.pages[PageId.CONNECT]
    assert page.demo_radio.isChecked()
    assert not page.capture_edit.isEnabled()
    assert not page.live_radio.isChecked() and page.state.live_specs() == []
    assert wizard.button(QWizard.WizardButton.NextButton).isEnabled()
    page.capture_radio.setChecked(True)
    assert page.capture_edit.isEnabled()
    assert not page.isComplete()  # capture chosen but no path
    assert not wizard.button(QWizard.WizardButton.NextButton).isEnabled()
    page.add_paths(["/tmp/a.txt", "/tmp/b"])
    assert page.isComplete()
    assert page.capture_edit.text() == "/tmp/a.txt ; /tmp/b"


def test_capture_option_preselects_capture(make_wizard):
    wizard = make_wizard(source=Source.CAPTURES, capture_paths=("/x/y.txt",))
    page = wizard.pages[PageId.CONNECT]
    assert page.capture_radio.isChecked()
    assert page.capture_edit.text() == "/x/y.txt"
