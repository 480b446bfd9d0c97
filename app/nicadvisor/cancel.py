"""Cancellation shared by every long-running use-case: a ``threading.Event`` checked between steps."""
from __future__ import annotations

import threading


class Cancelled(Exception):
    """Raised by a use-case when its cancel event was set; nothing half-done is returned."""


def check(cancel: threading.Event | None) -> None:
    """Raise :class:`Cancelled` if ``cancel`` is set."""
    if cancel is not None and cancel.is_set():
        raise Cancelled("cancelled by the user")
