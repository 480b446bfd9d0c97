"""What the wizard remembers between runs (QSettings, in the user's config folder: ``~/.config/nicadvisor``):
the window geometry, the last input (source and capture paths; never a live target or a secret) and the last
export folder."""
from __future__ import annotations

from PySide6.QtCore import QByteArray, QSettings

ORGANIZATION, APPLICATION = "nicadvisor", "NIC Advisor"
GEOMETRY, SOURCE, CAPTURES, EXPORT_FOLDER = "window/geometry", "input/source", "input/captures", "export/folder"


def settings() -> QSettings:
    """The app's QSettings (native format: an INI file under the XDG config folder on Linux)."""
    return QSettings(ORGANIZATION, APPLICATION)


def load_geometry() -> QByteArray | None:
    """The saved window geometry, or None."""
    value = settings().value(GEOMETRY)
    return value if isinstance(value, QByteArray) and not value.isEmpty() else None


def save_geometry(geometry: QByteArray) -> None:
    """Remember the window geometry (``QWidget.saveGeometry()``)."""
    settings().setValue(GEOMETRY, geometry)


def load_input() -> tuple[str, tuple[str, ...]]:
    """The last input: (source value ``demo``/``captures``/``local``, capture paths); ``("demo", ())`` when none."""
    s = settings()
    source = str(s.value(SOURCE, "demo") or "demo")
    paths = s.value(CAPTURES, [])
    if isinstance(paths, str):
        paths = [paths] if paths else []
    return (source if source in ("demo", "captures", "local") else "demo"), tuple(str(p) for p in paths or [])


def save_input(source: str, capture_paths: tuple[str, ...]) -> None:
    """Remember the input of the last audit (live targets are not kept here: the Connect page lists them)."""
    s = settings()
    s.setValue(SOURCE, source if source in ("demo", "captures", "local") else "demo")
    s.setValue(CAPTURES, list(capture_paths))


def load_export_folder() -> str:
    """The folder of the last export, or ``""``."""
    return str(settings().value(EXPORT_FOLDER, "") or "")


def save_export_folder(folder: str) -> None:
    """Remember the folder of the last export."""
    settings().setValue(EXPORT_FOLDER, folder)
