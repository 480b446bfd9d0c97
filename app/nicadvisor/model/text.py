"""One way to write a fact's value as text, for rule messages and audit comparisons."""
from __future__ import annotations

from typing import Any


def fact_text(value: Any, unknown: str = "unknown") -> str:
    """``True`` → ``"yes"``, ``False`` → ``"no"``, floats without trailing zeros (``8.0`` → ``"8"``), lists joined
    by ``", "``, None → ``unknown``; anything else as ``str()``."""
    if value is None:
        return unknown
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value))
    return str(value)
