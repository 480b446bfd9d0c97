"""A server that never acknowledges the exec request must not block the audit: paramiko's
``Channel.exec_command`` waits for that acknowledgement without a timeout, so :mod:`nicadvisor.collect.ssh`
closes the channel at the command's deadline (``command_timeout_s``) and reports a per-command problem.

The servers are paramiko ServerInterfaces on loopback (as in ``test_ssh_auth_paramiko_server.py``): the
hanging one blocks in ``check_channel_exec_request`` (paramiko's server acknowledges only after that
callback returns) until the test ends; the healthy one answers ``esxcli network nic list`` with the body
of a real capture and fails other commands.
"""
from __future__ import annotations

import socket
import threading
import time

import paramiko
import pytest

from paramiko_answers import PASSWORD, answer_exec
from nicadvisor.parsers.assemble import assemble_host
from nicadvisor.collect.known_hosts import KnownHosts, fingerprint
from nicadvisor.collect.ssh import DEFAULT_SSH_WORKERS, SshTarget, collect_ssh

TIMEOUT_S = 3.0


class _Server(paramiko.ServerInterface):
    """``hang=True``: never acknowledge an exec request (block until ``release`` is set, then refuse)."""

    def __init__(self, hang: bool, release: threading.Event) -> None:
        self.hang = hang
        self.release = release
        self.commands: list[str] = []

    def get_allowed_auths(self, username):
        return "password"

    def check_auth_password(self, username, password):
        return paramiko.AUTH_SUCCESSFUL if password == PASSWORD else paramiko.AUTH_FAILED

    def check_channel_request(self, kind, chanid):
        return paramiko.OPEN_SUCCEEDED if kind == "session" else paramiko.OPEN_FAILED_ADMINISTRATIVELY_PROHIBITED

    def check_channel_exec_request(self, channel, command):
        cmd = command.decode() if isinstance(command, bytes) else command
        self.commands.append(cmd)
        if self.hang:
            self.release.wait(60)
            return False
        threading.Thread(target=answer_exec, args=(channel, cmd), daemon=True).start()
        return True



@pytest.fixture(scope="module")
def host_key():
    return paramiko.RSAKey.generate(2048)


@pytest.fixture
def servers(host_key):
    """``start(hang) -> (port, server)``: one-connection paramiko servers on 127.0.0.1."""
    release = threading.Event()
    threads: list[threading.Thread] = []
    listeners: list[socket.socket] = []

    def serve(listener: socket.socket, iface: _Server) -> None:
        conn, _ = listener.accept()
        t = paramiko.Transport(conn)
        t.add_server_key(host_key)
        t.start_server(server=iface)
        channels = []  # a garbage-collected paramiko Channel closes itself
        while t.is_active() and not release.is_set():
            chan = t.accept(0.2)
            if chan is not None:
                channels.append(chan)
        t.close()

    def start(hang: bool) -> tuple[int, _Server]:
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        listeners.append(listener)
        iface = _Server(hang, release)
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


def _target(port: int, host_key) -> SshTarget:
    return SshTarget(host="127.0.0.1", port=port, user="root", kind="esxi", password=PASSWORD,
                     trusted_fingerprint=fingerprint(host_key), connect_timeout_s=5, command_timeout_s=TIMEOUT_S)


def _collect_in_thread(targets, tmp_path, limit_s: float):
    """collect_ssh on a thread, so that a regression (blocked forever) fails instead of hanging the run."""
    box: dict = {}

    def run() -> None:
        box["c"] = collect_ssh(targets, known_hosts=KnownHosts(tmp_path / "kh"))

    th = threading.Thread(target=run, daemon=True)
    t0 = time.monotonic()
    th.start()
    th.join(limit_s)
    assert not th.is_alive(), f"collect_ssh still blocked after {limit_s:g} s (exec never acknowledged)"
    return box["c"], time.monotonic() - t0


def test_unacknowledged_exec_is_a_command_timeout(servers, host_key, tmp_path):
    hang_port, hang = servers(True)
    ok_port, ok = servers(False)
    c, elapsed = _collect_in_thread([_target(hang_port, host_key), _target(ok_port, host_key)], tmp_path, 20)
    assert elapsed < TIMEOUT_S + 3, elapsed
    assert hang.commands == ["esxcli network nic list"]
    assert c.problems == []  # connection and authentication worked: the problem belongs to the command
    hung, healthy = c.hosts
    # the command that timed out is recorded with its note (no output), and the host lists it as not run
    assert hung.name == f"127.0.0.1:{hang_port}"
    assert [(c.command, c.text, c.notes) for c in hung.captures] == [
        ("esxcli network nic list", "", (f"timed out after {TIMEOUT_S:g} s",))]
    assert [(n.command, n.reason) for n in assemble_host(hung)[0].not_run] == [("esxcli network nic list", "timeout")]
    assert [p.message for p in hung.problems] == [
        f"'esxcli network nic list' did not finish within {TIMEOUT_S:g} s; its output is missing"]
    assert hung.problems[0].command == "esxcli network nic list"
    # the other host is audited as usual (esxi_g_esxcli_network_nic_list_igbn_esxi702_skyao.txt)
    assert healthy.captures[0].command == "esxcli network nic list"
    assert "vmnic1" in healthy.captures[0].text
    assert "esxcli network nic get -n vmnic1" in ok.commands
    assert not any("did not finish" in p.message for p in healthy.problems)


def test_default_pool_is_sixteen_hosts():
    import inspect

    assert DEFAULT_SSH_WORKERS == 16
    assert inspect.signature(collect_ssh).parameters["max_workers"].default == DEFAULT_SSH_WORKERS
