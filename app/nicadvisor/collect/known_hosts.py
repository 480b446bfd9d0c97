"""NIC Advisor's own SSH host-key store, trust on first use, never silent.

The store is a text file in OpenSSH ``known_hosts`` format (``host key-type base64`` for port 22,
``[host]:port key-type base64`` otherwise; readable by ``ssh-keygen -lf``), by default
``known_hosts`` under ``platformdirs.user_config_dir("nic-advisor")``; the path is injectable (tests).
It is written atomically with owner-only permissions. The user's ``~/.ssh/known_hosts`` is not read or
written.

Decisions (:meth:`KnownHosts.verify`, also behind :class:`TrustOnFirstUsePolicy`):

* a key whose SHA-256 fingerprint is stored for ``host:port`` is accepted;
* a host with no stored key (first contact) is accepted only when the caller supplied the same
  fingerprint (CLI ``--trust-host-key SHA256:...``) or the ``ask(host, port, key_type, fingerprint)``
  callback (GUI dialog, CLI prompt) returns True; the key is then stored;
* a host whose stored key differs (changed key, or a key of another type than the stored one) is
  always refused; the message names the stored and the presented fingerprints.

A store that cannot be read — not UTF-8, a folder, unreadable, or a line for the host that does not hold a key —
raises :class:`KnownHostsError` naming the file (and the line): the connection is refused rather than the host
treated as first contact (which would ask to trust whatever key answers).

Fingerprints are written as OpenSSH prints them: ``SHA256:`` + base64 of the SHA-256 of the key blob,
without ``=`` padding. paramiko's auto-add and warning policies are never used.
"""
from __future__ import annotations

import base64
import hashlib
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import paramiko
from paramiko.pkey import UnknownKeyType

from nicadvisor.atomic_file import write_private_lines

AskFn = Callable[[str, int, str, str], bool]
"""``ask(host, port, key_type, fingerprint) -> bool``: may the first-contact key be trusted?"""


class HostKeyError(paramiko.SSHException):
    """A host key that is not (or no longer) trusted. ``reason`` is ``"unknown"`` (first contact
    without trust) or ``"changed"`` (differs from the stored key); ``fingerprint`` is the presented
    key's, ``stored`` the stored fingerprints (empty on first contact)."""

    def __init__(self, message: str, reason: str, host: str, port: int, key_type: str, fingerprint: str,
                 stored: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.reason = reason
        self.host = host
        self.port = port
        self.key_type = key_type
        self.fingerprint = fingerprint
        self.stored = stored


class KnownHostsError(OSError):
    """The host-key store cannot be used: the message names the file, and the line when one is at fault."""


def fingerprint(key: paramiko.PKey) -> str:
    """``SHA256:<base64 without padding>`` of the public key blob, as ``ssh-keygen -lf`` prints it."""
    digest = hashlib.sha256(key.asbytes()).digest()
    return "SHA256:" + base64.b64encode(digest).decode("ascii").rstrip("=")


def normalise_fingerprint(text: str) -> str:
    """``SHA256:abc=`` / ``sha256:abc`` → ``SHA256:abc``. Raises ValueError for anything that is not a
    SHA-256 fingerprint (43 base64 characters; MD5 ``aa:bb:..`` fingerprints are refused)."""
    t = text.strip()
    if t[:7].upper() != "SHA256:":
        raise ValueError(f"not a SHA256 host key fingerprint (expected 'SHA256:...' as ssh-keygen -lf prints): "
                         f"{text!r}")
    body = t[7:].rstrip("=")
    if len(body) != 43 or not all(c.isalnum() or c in "+/" for c in body):
        raise ValueError(f"not a SHA256 host key fingerprint (43 base64 characters after 'SHA256:'): {text!r}")
    return "SHA256:" + body


def host_entry(host: str, port: int) -> str:
    """The known_hosts name of ``host:port``: ``host`` for port 22, else ``[host]:port`` (OpenSSH rule)."""
    return host if port == 22 else f"[{host}]:{port}"


def default_path() -> Path:
    """``known_hosts`` in the app's configuration folder (platformdirs ``user_config_dir("nic-advisor")``)."""
    import platformdirs

    return Path(platformdirs.user_config_dir("nic-advisor")) / "known_hosts"


@dataclass(frozen=True)
class StoredKey:
    """One stored host key: the ``known_hosts`` name, key type, public key and its fingerprint."""

    entry: str
    key_type: str
    key: paramiko.PKey

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.key)


class KnownHosts:
    """The app's host-key store (see the module docstring). Thread-safe: workers of one audit share it.

    ``path`` defaults to :func:`default_path`; it is read on each lookup, so a key trusted by one
    process is seen by the next. Lines that cannot be read are skipped (kept on rewrite).
    """

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else default_path()
        self._lock = threading.RLock()
        self._ask_lock = threading.Lock()

    # --- reading -------------------------------------------------------------------------------
    def _lines(self) -> list[str]:
        """The store's lines; [] when it does not exist. Raises KnownHostsError naming the file (and the line)
        when it cannot be read or is not UTF-8 text."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise KnownHostsError(f"the SSH host-key store {self.path} cannot be read ({exc.strerror or exc}); "
                                  "no host key can be checked, so the connection was refused") from None
        try:
            return raw.decode("utf-8").splitlines()
        except UnicodeDecodeError as exc:
            line = raw.count(b"\n", 0, exc.start) + 1
            raise KnownHostsError(f"the SSH host-key store {self.path} is damaged: line {line} is not UTF-8 text; "
                                  "fix or remove that line (the connection was refused)") from None

    def keys_for(self, host: str, port: int) -> list[StoredKey]:
        """The keys stored for ``host:port``. Raises KnownHostsError (an OSError) naming the file when it cannot
        be read, and its line when a line for ``host:port`` is damaged (no key, not base64, not a key of its type):
        refusing is safer than treating the host as unknown. A key type paramiko does not know is skipped; lines of
        other hosts are not judged."""
        entry = host_entry(host, port)
        out = []
        with self._lock:
            for n, line in enumerate(self._lines(), 1):
                parts = line.split()
                if not parts or line.lstrip().startswith("#") or entry not in parts[0].split(","):
                    continue
                try:
                    if len(parts) < 3:
                        raise ValueError("no key type and key")
                    key = paramiko.PKey.from_type_string(parts[1], base64.b64decode(parts[2], validate=True))
                except UnknownKeyType:
                    continue  # a key type paramiko cannot use (written by a newer tool): not a trusted key
                except (ValueError, TypeError, paramiko.SSHException) as exc:
                    raise KnownHostsError(
                        f"the SSH host-key store {self.path} is damaged: line {n} ({entry}) holds no readable key "
                        f"({type(exc).__name__}: {exc}); fix or remove that line, then trust the host's key again "
                        "(the connection was refused)") from None
                out.append(StoredKey(entry, parts[1], key))
        return out

    # --- writing -------------------------------------------------------------------------------
    def add(self, host: str, port: int, key: paramiko.PKey) -> None:
        """Store ``key`` for ``host:port`` (replacing nothing: a changed key must be removed first).
        Writes atomically with mode 0600; raises OSError when the folder cannot be written."""
        with self._lock:
            if any(s.fingerprint == fingerprint(key) for s in self.keys_for(host, port)):
                return
            lines = self._lines() + [f"{host_entry(host, port)} {key.get_name()} {key.get_base64()}"]
            self._write(lines)

    def remove(self, host: str, port: int) -> int:
        """Forget every key of ``host:port`` (the user's explicit "the key change is expected" action);
        returns how many lines were removed."""
        entry = host_entry(host, port)
        with self._lock:
            lines = self._lines()
            keep = [ln for ln in lines if not (ln.split() and entry in ln.split()[0].split(","))]
            if len(keep) != len(lines):
                self._write(keep)
            return len(lines) - len(keep)

    def _write(self, lines: list[str]) -> None:
        write_private_lines(self.path, lines)

    # --- the decision --------------------------------------------------------------------------
    def verify(self, host: str, port: int, key: paramiko.PKey, trusted_fingerprint: str | None = None,
               ask: AskFn | None = None) -> str:
        """Accept or refuse the key ``host:port`` presented (rules in the module docstring).

        Returns ``"known"`` (stored key) or ``"trusted"`` (first contact, now stored). Raises
        :class:`HostKeyError` (reason ``changed`` or ``unknown``) with a message that names the
        fingerprints and how to proceed; ValueError for a malformed ``trusted_fingerprint``.
        """
        fp = fingerprint(key)
        key_type = key.get_name()
        where = f"{host}:{port}"
        stored = self.keys_for(host, port)
        if any(s.fingerprint == fp for s in stored):
            return "known"
        if stored:
            old = ", ".join(f"{s.key_type} {s.fingerprint}" for s in stored)
            raise HostKeyError(
                f"host key of {where} has CHANGED: stored {old}, presented {key_type} {fp}. The connection was "
                f"refused (this can be a man-in-the-middle, or a reinstalled host). If the change is expected, "
                f"remove the old key from {self.path} and trust the new one.",
                "changed", host, port, key_type, fp, tuple(s.fingerprint for s in stored))
        if trusted_fingerprint is not None:
            if normalise_fingerprint(trusted_fingerprint) == fp:
                self.add(host, port, key)
                return "trusted"
            raise HostKeyError(
                f"host key of {where} is {key_type} {fp}, not the fingerprint given to trust "
                f"({normalise_fingerprint(trusted_fingerprint)}); the connection was refused.",
                "unknown", host, port, key_type, fp)
        if ask is not None:
            with self._ask_lock:  # one question at a time, even with many workers
                if self.keys_for(host, port):  # answered meanwhile by another worker
                    return self.verify(host, port, key)
                if ask(host, port, key_type, fp):
                    self.add(host, port, key)
                    return "trusted"
            raise HostKeyError(f"host key of {where} ({key_type} {fp}) was not trusted; the connection was refused.",
                               "unknown", host, port, key_type, fp)
        raise HostKeyError(
            f"host key of {where} is not known yet: {key_type} {fp}. Compare it with the host's own fingerprint "
            f"(on the host: ssh-keygen -lf /etc/ssh/ssh_host_{_short_type(key_type)}_key.pub), then trust it "
            f"with --trust-host-key {fp}.",
            "unknown", host, port, key_type, fp)

    def policy(self, host: str, port: int, trusted_fingerprint: str | None = None,
               ask: AskFn | None = None) -> "TrustOnFirstUsePolicy":
        """A paramiko policy bound to this store and one ``host:port``."""
        return TrustOnFirstUsePolicy(self, host, port, trusted_fingerprint, ask)

    def load_into(self, client: paramiko.SSHClient, host: str, port: int) -> None:
        """Put the stored keys of ``host:port`` into ``client``'s host keys, so paramiko negotiates the
        stored key type, accepts the stored key and raises ``BadHostKeyException`` for another one."""
        hk = client.get_host_keys()
        for s in self.keys_for(host, port):
            hk.add(s.entry, s.key_type, s.key)


def _short_type(key_type: str) -> str:
    return {"ssh-ed25519": "ed25519", "ssh-rsa": "rsa"}.get(key_type, "ecdsa" if "ecdsa" in key_type else "*")


class TrustOnFirstUsePolicy(paramiko.MissingHostKeyPolicy):
    """paramiko policy: :meth:`KnownHosts.verify` for the ``host:port`` it was made for.

    paramiko calls it when the client's own host keys hold no key for the server; it raises
    :class:`HostKeyError` to refuse (paramiko then closes the connection).
    """

    def __init__(self, store: KnownHosts, host: str, port: int, trusted_fingerprint: str | None = None,
                 ask: AskFn | None = None) -> None:
        self.store = store
        self.host = host
        self.port = port
        self.trusted_fingerprint = trusted_fingerprint
        self.ask = ask
        self.outcome: str | None = None

    def missing_host_key(self, client: paramiko.SSHClient, hostname: str, key: paramiko.PKey) -> None:
        self.outcome = self.store.verify(self.host, self.port, key, self.trusted_fingerprint, self.ask)
