"""Fixtures for the benchmark tests."""
from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def journal_dir(tmp_path: Path) -> Path:
    """A private journal directory (never the user's state dir)."""
    d = tmp_path / "state"
    d.mkdir()
    return d
