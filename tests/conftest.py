"""Shared pytest fixtures."""
from __future__ import annotations

from pathlib import Path

import pytest

from capturetools import SHARED


@pytest.fixture
def shared_dir() -> Path:
    return SHARED
