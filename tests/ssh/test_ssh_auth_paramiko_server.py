"""Password authentication details OpenSSH+PAM cannot be made to show, against a paramiko server on
loopback: a keyboard-interactive round with ZERO prompts before the password prompt (the client must
answer it with zero responses), and a server offering only the ``password`` method (fallback).
The server answers ``esxcli network nic list`` with the body of a real capture; other commands fail."""
from __future__ import annotations

import socket
import threading

import paramiko
import pytest

from paramiko_answers import PASSWORD, answer_exec, answer_once_acknowledged
from nicadvisor.parsers.assemble import assemble_host
from nicadvisor.collect.known_hosts import KnownHosts, fingerprint
from nicadvisor.collect.ssh import SshTarget, collect_ssh



class FakeEsxiServer(paramiko.ServerInterface):
    def __init__(self, methods: str) -> None:
        self.methods = methods
        self.rounds: list[list[str]] = []
        self.commands: list[str] = []
        self.exec_event = threading.Event()

    def get_allowed_auths(self, username):
        return self.methods

    def check_auth_interactive(self, username, submethods):
        if "keyboard-interactive" not in self.methods:
            return paramiko.AUTH_FAILED
        return paramiko.InteractiveQuery("", "zero-prompt round")  # no prompt at all

    def check_auth_interactive_response(self, responses):
        self.rounds.append(list(responses))
        if len(self.rounds) == 1:
            if list(responses):
                return paramiko.AUTH_FAILED
            q = paramiko.InteractiveQuery("", "")
            q.add_prompt("Password: ", False)
            return q
        return paramiko.AUTH_SUCCESSFUL if list(responses) == [PASSWORD] else paramiko.AUTH_FAILED

    def check_auth_password(self, username, password):
        if "password" not in self.methods:
            return paramiko.AUTH_FAILED
        self.rounds.append(["<password method>"])
        return paramiko.AUTH_SUCCESSFUL if password == PASSWORD else paramiko.AUTH_FAILED

    def check_channel_request(self, kind, chanid):
        return paramiko.OPEN_SUCCEEDED if kind == "session" else paramiko.OPEN_FAILED_ADMINISTRATIVELY_PROHIBITED

    def check_channel_exec_request(self, channel, command):
        cmd = command.decode() if isinstance(command, bytes) else command
        self.commands.append(cmd)
        answer_once_acknowledged(answer_exec, channel, cmd)
        return True



@pytest.fixture(scope="module")
def host_key():
    return paramiko.RSAKey.generate(2048)


@pytest.fixture
def fake_server(host_key):
    """Start a one-connection paramiko server; yields (port, server interface)."""
    servers = []
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    stop = threading.Event()

    def serve(iface):
        conn, _ = listener.accept()
        t = paramiko.Transport(conn)
        t.add_server_key(host_key)
        t.start_server(server=iface)
        channels = []  # keep a reference: a garbage-collected paramiko Channel closes itself
        while t.is_active() and not stop.is_set():
            chan = t.accept(0.2)
            if chan is not None:
                channels.append(chan)
        t.close()

    def start(methods: str):
        iface = FakeEsxiServer(methods)
        th = threading.Thread(target=serve, args=(iface,), daemon=True)
        th.start()
        servers.append(th)
        return listener.getsockname()[1], iface

    yield start
    stop.set()
    listener.close()
    for th in servers:
        th.join(timeout=5)


def _target(port, host_key, password=PASSWORD):
    return SshTarget(host="127.0.0.1", port=port, user="root", kind="esxi", password=password,
                     trusted_fingerprint=fingerprint(host_key), connect_timeout_s=5, command_timeout_s=5)


def test_zero_prompt_keyboard_interactive_round(fake_server, host_key, tmp_path):
    port, server = fake_server("keyboard-interactive")
    c = collect_ssh([_target(port, host_key)], known_hosts=KnownHosts(tmp_path / "kh"))
    assert c.problems == [], c.problems
    assert server.rounds == [[], [PASSWORD]]  # zero responses to zero prompts, then the password
    assert not any("closed while" in p.message for p in c.hosts[0].problems), c.hosts[0].problems
    assert server.commands[0] == "esxcli network nic list"
    host = assemble_host(c.hosts[0])[0]
    # esxi_g_esxcli_network_nic_list_igbn_esxi702_skyao.txt
    assert [p.name for p in host.pnics] == ["vmnic0", "vmnic1"]
    assert host.pnic("vmnic0").driver == "igbn"
    assert "esxcli network nic get -n vmnic1" in server.commands  # discovered NICs were queried
    assert "esxcli system module parameters list -m igbn" in server.commands


def test_password_method_fallback(fake_server, host_key, tmp_path):
    port, server = fake_server("password")
    c = collect_ssh([_target(port, host_key)], known_hosts=KnownHosts(tmp_path / "kh"))
    assert c.problems == [] and server.rounds == [["<password method>"]]


def test_wrong_password_is_sent_once(fake_server, host_key, tmp_path):
    port, server = fake_server("keyboard-interactive,password")
    c = collect_ssh([_target(port, host_key, password="wrong")], known_hosts=KnownHosts(tmp_path / "kh"))
    assert "the password was refused" in c.problems[0].message
    assert server.rounds == [[], ["wrong"]]  # keyboard-interactive only; not retried with 'password'
