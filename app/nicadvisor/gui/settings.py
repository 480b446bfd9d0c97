"""What the wizard remembers between runs (QSettings, an INI file ``wizard.conf`` in the app's one configuration folder,
``platformdirs.user_config_dir("nic-advisor")`` — ``~/.config/nic-advisor`` on Linux, beside ``known_hosts``,
``tls_pins`` and the user's rules): the window geometry, the last input (source and capture paths), the SSH hosts and
vCenters entered on the Connect page (never a password: those stay in the OS keyring when the user ticked "remember")
and the last export folder. Settings an older NIC Advisor kept apart (``~/.config/nicadvisor/NIC Advisor.conf``) are
moved there on first use."""
from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

log = logging.getLogger(__name__)

#: Where older versions kept the settings (QSettings' organisation and application names).
ORGANIZATION, APPLICATION = "nicadvisor", "NIC Advisor"
#: The app's configuration folder's platformdirs name, shared with known_hosts, tls_pins and the user's rules.
CONFIG_NAME = "nic-advisor"
FILE_NAME = "wizard.conf"
_migrated: set[str] = set()
GEOMETRY, SOURCE, CAPTURES, EXPORT_FOLDER = "window/geometry", "input/source", "input/captures", "export/folder"
SSH_TARGETS, VCENTER_TARGETS = "targets/ssh", "targets/vcenter"
#: The fields of a target that are remembered (a password never is; nor a status, an inventory or a host key read).
SSH_FIELDS = ("spec", "kind", "key_file", "remember", "trusted_fingerprint")
VCENTER_FIELDS = ("url", "user", "remember", "thumbprint", "datacenter", "cluster", "host_names", "esxcli")


def settings_path() -> Path:
    """The settings file: ``wizard.conf`` in ``platformdirs.user_config_dir("nic-advisor")``."""
    import platformdirs

    return Path(platformdirs.user_config_dir(CONFIG_NAME)) / FILE_NAME


def settings() -> QSettings:
    """The app's QSettings (INI format, :func:`settings_path`); the first call of a process moves an older version's
    settings file there (:func:`migrate_old`)."""
    path = settings_path()
    s = QSettings(str(path), QSettings.Format.IniFormat)
    if str(path) not in _migrated:
        _migrated.add(str(path))
        migrate_old(s)
    return s


def migrate_old(new: QSettings) -> bool:
    """Move the settings an older NIC Advisor kept in QSettings' own place (``~/.config/nicadvisor/NIC Advisor.conf``)
    into ``new`` — unless ``new`` already holds settings, which win — and delete the old file (and its folder when
    empty). Returns whether anything was moved. An old file that cannot be deleted is left (it is not read again
    once ``new`` holds settings)."""
    old = QSettings(ORGANIZATION, APPLICATION)
    old_file = Path(old.fileName())
    if not old_file.is_file() or old_file == Path(new.fileName()):
        return False
    moved = False
    if not new.allKeys():
        for key in old.allKeys():
            new.setValue(key, old.value(key))
            moved = True
        new.sync()
    del old
    try:
        old_file.unlink()
    except OSError as exc:
        log.warning("the old settings file %s was not deleted (%s); it is not read again", old_file,
                    exc.strerror or exc)
        return moved
    with contextlib.suppress(OSError):  # the folder goes only when empty: other files of the user's are kept
        os.rmdir(old_file.parent)
    return moved


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


def save_targets(ssh: list, vcenters: list) -> None:
    """Remember the SSH hosts (:class:`~nicadvisor.gui.state.SshSpec`) and vCenters (``VcenterSpec``) of the Connect
    page as JSON lists of :data:`SSH_FIELDS` / :data:`VCENTER_FIELDS` — never a password."""
    import json

    s = settings()
    s.setValue(SSH_TARGETS, json.dumps([{f: getattr(t, f) for f in SSH_FIELDS} for t in ssh]))
    s.setValue(VCENTER_TARGETS, json.dumps([{f: list(v) if isinstance(v := getattr(t, f), tuple) else v
                                              for f in VCENTER_FIELDS} for t in vcenters]))


def load_targets() -> tuple[list, list]:
    """The remembered (SSH hosts, vCenters) as new ``SshSpec`` / ``VcenterSpec`` with no password (the keyring's is
    used when "remember" was ticked); a damaged entry is skipped."""
    import json

    from nicadvisor.gui.state import SshSpec, VcenterSpec

    def read(key: str, make, fields: tuple[str, ...]) -> list:
        try:
            rows = json.loads(str(settings().value(key, "[]") or "[]"))
        except ValueError:
            return []
        out = []
        for row in rows if isinstance(rows, list) else []:
            try:
                kwargs = {f: row[f] for f in fields if f in row}
                if "host_names" in kwargs:
                    kwargs["host_names"] = tuple(str(h) for h in kwargs["host_names"])
                out.append(make(**kwargs))
            except (TypeError, KeyError, ValueError):
                continue
        return out

    return read(SSH_TARGETS, SshSpec, SSH_FIELDS), read(VCENTER_TARGETS, VcenterSpec, VCENTER_FIELDS)
