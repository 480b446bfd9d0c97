"""Fixtures of the SSH tests: a real OpenSSH sshd with the ESXi personality, a throw-away test user,
client keys, a Linux sshd inside a network namespace, an in-memory keyring.

How passwords are tested (documented choice): sshd runs with ``UsePAM yes``,
``KbdInteractiveAuthentication yes`` and ``PasswordAuthentication no`` — keyboard-interactive is the
only password method, as on ESXi — and logs in a local account created for the session with
``useradd`` + ``chpasswd`` (removed at teardown). The zero-prompt keyboard-interactive round some servers
send, and the ``password``-method fallback, are tested against a paramiko ServerInterface on loopback
(``test_ssh_auth_paramiko_server.py``) because OpenSSH+PAM cannot be made to send them.
Everything is skipped when not root (sshd must switch to the test user; namespaces need root).
"""
from __future__ import annotations

import json
import shutil
import socket
import sys
import threading
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import sshd_harness as H  # noqa: E402

from capturetools import CAPTURES  # noqa: E402
from paramiko_answers import PasswordServer  # noqa: E402

from nicadvisor.collect.known_hosts import KnownHosts  # noqa: E402
from nicadvisor.collect.ssh import SshTarget  # noqa: E402


class Lab:
    """The session's SSH lab: ``user``, ``client_key`` (authorised), ``wrong_key`` (not authorised),
    ``esxi`` (sshd with the ESXi personality), ``behaviour`` (its fault-injection file)."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.user = H.TestUser(base)
        self.client_key = H.keygen(base / "client_key")
        self.wrong_key = H.keygen(base / "wrong_key")
        self.authorized_keys = base / "authorized_keys"
        self.authorized_keys.write_text(Path(str(self.client_key) + ".pub").read_text())
        self.authorized_keys.chmod(0o644)
        self.behaviour = base / "behaviour.json"
        self.set_behaviour()
        self.esxi = H.Sshd(base, self.user.name, self.authorized_keys,
                           force_command=H.personality_command(CAPTURES, self.behaviour))

    def set_behaviour(self, **faults) -> None:
        """Fault injection for the personality: ``sleep={cmd: s}``, ``die=[cmd]``, ``garbage=[cmd]``."""
        self.behaviour.write_text(json.dumps(faults))
        self.behaviour.chmod(0o644)

    def target(self, sshd: "H.Sshd | None" = None, **kw) -> SshTarget:
        sshd = sshd or self.esxi
        args = dict(host=sshd.listen, port=sshd.port, user=self.user.name, kind="esxi",
                    key_filename=str(self.client_key), trusted_fingerprint=sshd.fingerprint,
                    connect_timeout_s=5.0, command_timeout_s=10.0)
        args.update(kw)
        return SshTarget(**args)

    def new_sshd(self, **kw) -> "H.Sshd":
        kw.setdefault("force_command", H.personality_command(CAPTURES, self.behaviour))
        return H.Sshd(self.base, self.user.name, self.authorized_keys, **kw)


@pytest.fixture(scope="session")
def lab():
    why = H.available()
    if why:
        pytest.skip(f"real-sshd tests skipped: {why}")
    base = H.make_base()
    lab = None
    try:
        lab = Lab(base)
        lab.esxi.start()
        yield lab
    finally:
        if lab is not None:
            lab.esxi.stop()
            lab.user.remove()
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def no_faults(lab):
    lab.set_behaviour()
    yield lab
    lab.set_behaviour()


@pytest.fixture
def known_hosts(tmp_path) -> KnownHosts:
    return KnownHosts(tmp_path / "config" / "known_hosts")



@pytest.fixture
def linux_netns(lab):
    """A namespace with a plain sshd inside, reached over a veth pair (see H.sshd_in_netns).
    Yields (sshd, inside interface name, its MAC)."""
    with H.sshd_in_netns(lab.base, lab.user.name, lab.authorized_keys, "ssh", 8) as found:
        yield found


@pytest.fixture(scope="module")
def host_key():
    """The host key of the paramiko servers of a test module."""
    import paramiko

    return paramiko.RSAKey.generate(2048)


@pytest.fixture
def servers(host_key):
    """``start(answer) -> (port, server)``: one-connection :class:`~paramiko_answers.PasswordServer` on 127.0.0.1
    answering with ``answer`` (None: never acknowledging an exec request, until the test ends)."""
    import paramiko

    release = threading.Event()
    threads: list[threading.Thread] = []
    listeners: list[socket.socket] = []

    def serve(listener: socket.socket, iface: PasswordServer) -> None:
        try:
            conn, _ = listener.accept()
        except OSError:  # closed at teardown before a client came
            return
        t = paramiko.Transport(conn)
        t.add_server_key(host_key)
        t.start_server(server=iface)
        channels = []  # a garbage-collected paramiko Channel closes itself
        while t.is_active() and not release.is_set():
            chan = t.accept(0.2)
            if chan is not None:
                channels.append(chan)
        t.close()

    def start(answer) -> tuple[int, PasswordServer]:
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        listeners.append(listener)
        iface = PasswordServer(answer, release)
        th = threading.Thread(target=serve, args=(listener, iface), daemon=True)
        th.start()
        threads.append(th)
        return listener.getsockname()[1], iface

    yield start
    release.set()
    for s in listeners:
        s.close()
    for th in threads:
        th.join(timeout=5)
