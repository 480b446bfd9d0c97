"""An in-memory keyring backend for tests (never a file), shared by the SSH, GUI and end-to-end tests."""
from __future__ import annotations

import keyring
from keyring.backend import KeyringBackend


class MemoryKeyring(KeyringBackend):
    """Passwords in a dict; ``data`` maps (service, user) to the password."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.data: dict[tuple[str, str], str] = {}

    def set_password(self, service, username, password):
        self.data[(service, username)] = password

    def get_password(self, service, username):
        return self.data.get((service, username))

    def delete_password(self, service, username):
        if self.data.pop((service, username), None) is None:
            raise keyring.errors.PasswordDeleteError("not found")
