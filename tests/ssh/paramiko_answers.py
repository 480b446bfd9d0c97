"""What the in-process paramiko test servers answer to an exec request: the real ``esxcli network nic
list`` capture of an ESXi 7.0.2 host, anything else refused like an unknown command."""
from __future__ import annotations

import contextlib
import time

from capturetools import capture_path

from nicadvisor.collect.sources import read_capture

NIC_LIST = read_capture(capture_path("esxi_g_esxcli_network_nic_list_igbn_esxi702_skyao.txt")).text
PASSWORD = "Esx-test-pw-1"


def answer_exec(channel, cmd: str) -> None:
    """Answer ``cmd`` on ``channel`` (run on a thread of its own).

    paramiko's server acknowledges the exec request only after ``check_channel_exec_request`` returns;
    answering before that would make the client see "Channel closed" (OpenSSH acknowledges first). The
    client may already have closed the connection after the exit status: a failed write is then no failure.
    """
    time.sleep(0.05)
    with contextlib.suppress(EOFError, OSError):
        if cmd == "esxcli network nic list":
            channel.sendall(NIC_LIST.encode())
            channel.send_exit_status(0)
        else:
            channel.sendall_stderr(f"no capture for {cmd}\n".encode())
            channel.send_exit_status(1)
        channel.close()
