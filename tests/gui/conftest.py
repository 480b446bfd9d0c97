"""pytest-qt fixtures for the wizard tests: offscreen platform, a wizard that is shut down after use,
and a screenshot helper writing ``wizard-<page>.png`` (to $NICADVISOR_SCREENSHOTS, e.g. docs/screenshots)."""
from __future__ import annotations

import os

os.environ["QT_QPA_PLATFORM"] = "offscreen"  # before pytest-qt creates the QApplication

import tempfile
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
# Screenshots go to a scratch folder unless NICADVISOR_SCREENSHOTS names one (``docs/screenshots`` to
# refresh the README's pictures), so a test run never dirties the work tree.
# Under pytest-xdist each worker has its own scratch folder (two workers never write one file at once).
_WORKER = os.environ.get("PYTEST_XDIST_WORKER")
SCREENSHOTS = Path(os.environ.get("NICADVISOR_SCREENSHOTS", Path(tempfile.gettempdir()) /
                                  ("nicadvisor-screenshots" + (f"-{_WORKER}" if _WORKER else ""))))


def pytest_collection_modifyitems(items):
    here = Path(__file__).parent
    for item in items:
        if Path(str(item.fspath)).parent == here:
            item.add_marker(pytest.mark.gui)


@pytest.fixture
def make_wizard(qtbot):
    """Factory: ``make_wizard(ready=True, **kwargs)`` -> a shown NicAdvisorWizard (1200x800), shut down at
    teardown. With ``ready`` it waits for the start-up work of the workers (the keyring check, the history
    opened), so that a test starts from a settled Connect page."""
    from nicadvisor.gui.pages.connect import KEYRING_PENDING
    from nicadvisor.gui.wizard import NicAdvisorWizard, PageId

    made = []

    def factory(ready: bool = True, **kwargs):
        wizard = NicAdvisorWizard(**kwargs)
        qtbot.addWidget(wizard)
        wizard.resize(1200, 800)
        wizard.show()
        qtbot.waitExposed(wizard)
        made.append(wizard)
        if ready:
            connect = wizard.pages[PageId.CONNECT]
            qtbot.waitUntil(lambda: connect.keyring_problem != KEYRING_PENDING and not wizard.state.store_loading,
                            timeout=10_000)
        return wizard

    yield factory
    for wizard in made:
        assert wizard.shutdown(120_000), "a worker did not end within 120 s"  # a deadline, not a duration


@pytest.fixture
def screenshot(qtbot):
    """``screenshot(widget, "connect")`` saves ``docs/screenshots/wizard-connect.png``; returns the path."""

    def save(widget, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        qtbot.wait(50)  # let queued layout/paint events run
        path = SCREENSHOTS / f"wizard-{name}.png"
        assert widget.grab().save(str(path)), f"could not save {path}"
        return path

    return save
