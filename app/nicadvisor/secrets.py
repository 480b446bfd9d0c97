"""Passwords in the operating system's keyring, never anywhere else.

A thin wrapper over the ``keyring`` library (architecture-anchors.md §3.6): the keyring service is
``nic-advisor/<service_id>`` where ``service_id`` names purpose and target (``ssh:esxi-a:22``,
``vcenter:vc.lab``), the keyring user is the account name. When the active backend is not a secure
store — ``keyring.backends.fail.Keyring`` (no backend at all, the usual case on a headless Linux),
the ``null`` backend, a plaintext file backend (``keyrings.alt``), or a chainer holding none of the
secure ones — every call raises :class:`SecretStoreUnavailable`, so the UI can visibly offer "ask for the
password every time" instead of silently writing a secret to disk. Secrets are never logged and never
appear in exception messages.
"""
from __future__ import annotations

import keyring
import keyring.errors
from keyring.backend import KeyringBackend

SERVICE_PREFIX = "nic-advisor/"


class SecretStoreUnavailable(RuntimeError):
    """No secure keyring backend (or the keyring refused the operation); the message says why and
    never holds the secret."""


def _insecure_reason(backend: KeyringBackend) -> str | None:
    cls = type(backend)
    name = f"{cls.__module__}.{cls.__qualname__}"
    if cls.__module__.startswith("keyring.backends.fail"):
        # no module name in parentheses: the wizard shows the reason in parentheses already
        return ("no keyring backend is available on this system: install and unlock a secret service such as GNOME "
                "Keyring or KWallet")
    if cls.__module__.startswith("keyring.backends.null"):
        return "the keyring is disabled (null backend)"
    if cls.__module__.startswith("keyrings.alt") and ("Plaintext" in cls.__name__ or ".file" in cls.__module__):
        return f"the keyring backend {name} stores secrets in a file, not in a secure store"
    if cls.__module__.startswith("keyring.backends.chainer"):
        members = list(getattr(backend, "backends", []) or [])
        secure = [b for b in members if _insecure_reason(b) is None]
        if not secure:
            return "no secure keyring backend is available (the chainer backend holds none)"
    return None


def backend_problem(backend: KeyringBackend | None = None) -> str | None:
    """Why the active keyring backend (or ``backend``) cannot hold secrets, or None when it can."""
    return _insecure_reason(backend if backend is not None else keyring.get_keyring())


def _backend() -> KeyringBackend:
    try:
        backend = keyring.get_keyring()
    except Exception as exc:  # noqa: BLE001 - a broken backend (D-Bus gone, a plug-in that raises) is "no keyring"
        raise SecretStoreUnavailable(f"the keyring cannot be used: {type(exc).__name__}; the password will be "
                                     "asked every time") from None
    why = _insecure_reason(backend)
    if why:
        raise SecretStoreUnavailable(f"passwords cannot be saved: {why}; the password will be asked every time")
    return backend


def _service(service_id: str) -> str:
    if not service_id or not service_id.strip():
        raise ValueError("service_id must name the purpose and target, e.g. 'ssh:esxi-a:22'")
    return SERVICE_PREFIX + service_id


def store_password(service_id: str, user: str, password: str) -> None:
    """Save ``password`` for ``user`` of ``service_id`` in the keyring.

    Raises SecretStoreUnavailable (insecure backend, or the keyring refused: locked, denied),
    ValueError for an empty ``service_id``/``user``.
    """
    if not user:
        raise ValueError("user must not be empty")
    service = _service(service_id)
    backend = _backend()
    try:
        backend.set_password(service, user, password)
    except Exception as exc:  # noqa: BLE001 - KeyringError, and whatever else a backend raises (D-Bus, OSError)
        raise SecretStoreUnavailable(f"the keyring refused to save the password: {type(exc).__name__}") from None


def get_password(service_id: str, user: str) -> str | None:
    """The saved password of ``user`` for ``service_id``, or None when none is saved.
    Raises SecretStoreUnavailable like :func:`store_password`."""
    service = _service(service_id)
    backend = _backend()
    try:
        return backend.get_password(service, user)
    except Exception as exc:  # noqa: BLE001 - KeyringError, and whatever else a backend raises (D-Bus, OSError)
        raise SecretStoreUnavailable(f"the keyring refused to read the password: {type(exc).__name__}") from None


def delete_password(service_id: str, user: str) -> bool:
    """Forget the saved password; returns False when none was saved. Raises SecretStoreUnavailable."""
    service = _service(service_id)
    backend = _backend()
    try:
        backend.delete_password(service, user)
    except keyring.errors.PasswordDeleteError:
        return False
    except Exception as exc:  # noqa: BLE001 - KeyringError, and whatever else a backend raises (D-Bus, OSError)
        raise SecretStoreUnavailable(f"the keyring refused to delete the password: {type(exc).__name__}") from None
    return True


def ssh_service_id(host: str, port: int = 22) -> str:
    """The ``service_id`` of an SSH target: ``ssh:<host>:<port>``."""
    return f"ssh:{host}:{port}"
