"""The in-process paramiko test servers (:class:`PasswordServer`) and what they answer to an exec request: the real
``esxcli network nic list`` capture of an ESXi 7.0.2 host, anything else refused like an unknown command."""
from __future__ import annotations

import contextlib
import threading
from typing import Callable

import paramiko
from paramiko.common import MSG_CHANNEL_REQUEST

from capturetools import capture_path

from nicadvisor.collect.sources import read_capture

NIC_LIST = read_capture(capture_path("esxi_g_esxcli_network_nic_list_igbn_esxi702_skyao.txt")).text
PASSWORD = "Esx-test-pw-1"

_handle_request = paramiko.Transport._channel_handler_table[MSG_CHANNEL_REQUEST]


def _handle_request_then_say_so(channel, message) -> None:
    """paramiko's own handling of a channel request (the exec callback, then its acknowledgement sent), then the
    channel's ``acknowledged`` event set, if a :class:`PasswordServer` gave it one: its answer waits on that event,
    not on a fixed moment that a loaded machine could outlast."""
    try:
        _handle_request(channel, message)
    finally:
        acknowledged = getattr(channel, "nicadv_acknowledged", None)
        if acknowledged is not None:
            acknowledged.set()


paramiko.Transport._channel_handler_table[MSG_CHANNEL_REQUEST] = _handle_request_then_say_so


def answer_once_acknowledged(answer: Callable, channel, cmd: str) -> None:
    """From ``check_channel_exec_request``: run ``answer(channel, cmd)`` on a thread of its own once the server has
    acknowledged the exec request (a deadline of 120 s for that, never a fixed wait)."""
    channel.nicadv_acknowledged = acknowledged = threading.Event()

    def run() -> None:
        if acknowledged.wait(120):
            answer(channel, cmd)
    threading.Thread(target=run, daemon=True).start()


def answer_exec(channel, cmd: str) -> None:
    """Answer ``cmd`` on ``channel`` (run on a thread of its own, once the exec request was acknowledged).

    paramiko's server acknowledges the exec request only after ``check_channel_exec_request`` returns;
    answering before that would make the client see "Channel closed" (OpenSSH acknowledges first): every
    answer waits for the acknowledgement (:func:`answer_once_acknowledged`). The client may already have closed
    the connection after the exit status: a failed write is then no failure.
    """
    with contextlib.suppress(EOFError, OSError):
        if cmd == "esxcli network nic list":
            channel.sendall(NIC_LIST.encode())
            channel.send_exit_status(0)
        else:
            channel.sendall_stderr(f"no capture for {cmd}\n".encode())
            channel.send_exit_status(1)
        channel.close()


class PasswordServer(paramiko.ServerInterface):
    """A server on loopback accepting :data:`PASSWORD`, session channels and pseudo-terminals (the benchmark starts
    an ESXi endpoint's iperf3 through one). ``answer(channel, cmd)`` answers each exec request on a thread of its own, once acknowledged
    (default :func:`answer_exec`); None: never acknowledge it (block until ``release`` is set, then refuse).
    ``commands``: the commands asked, in order."""

    def __init__(self, answer: Callable | None = answer_exec, release: threading.Event | None = None) -> None:
        self.answer = answer
        self.release = release or threading.Event()
        self.commands: list[str] = []

    def get_allowed_auths(self, username):
        return "password"

    def check_auth_password(self, username, password):
        return paramiko.AUTH_SUCCESSFUL if password == PASSWORD else paramiko.AUTH_FAILED

    def check_channel_request(self, kind, chanid):
        return paramiko.OPEN_SUCCEEDED if kind == "session" else paramiko.OPEN_FAILED_ADMINISTRATIVELY_PROHIBITED

    def check_channel_pty_request(self, channel, term, width, height, pixelwidth, pixelheight, modes):
        return True

    def check_channel_exec_request(self, channel, command):
        cmd = command.decode() if isinstance(command, bytes) else command
        self.commands.append(cmd)
        if self.answer is None:  # paramiko's server acknowledges only after this callback returns
            self.release.wait(60)
            return False
        answer_once_acknowledged(self.answer, channel, cmd)
        return True
