"""Issue 20 §4 for the benchmark between hosts: any server text shown or stored is scrubbed of the secrets sent in
that session. A hostile SSH host that echoes the password it was sent in every answer (a paramiko server on
loopback) put it into the plan's notes (an ESXi host's ``esxcfg-vmknic -l`` refusal) and into each TEP mesh row's
detail and output, which the CLI prints, ``--json`` writes and the audit history keeps. The run goes through the
service the CLI and the wizard call (:mod:`nicadvisor.services.between`)."""
from __future__ import annotations

import contextlib
import json
import socket
import threading
import time

import paramiko
import pytest

from nicadvisor.collect.known_hosts import KnownHosts, fingerprint
from nicadvisor.collect.ssh import SshTarget
from nicadvisor.services.between import BetweenRequest, prepare_between, run_between

PASSWORD = "Echoed-pw-4711"


class _EchoingHost(paramiko.ServerInterface):
    """Accepts ``PASSWORD`` and answers every command with it on stdout and stderr, exit status 1."""

    def get_allowed_auths(self, username):
        return "password"

    def check_auth_password(self, username, password):
        return paramiko.AUTH_SUCCESSFUL if password == PASSWORD else paramiko.AUTH_FAILED

    def check_channel_request(self, kind, chanid):
        return paramiko.OPEN_SUCCEEDED if kind == "session" else paramiko.OPEN_FAILED_ADMINISTRATIVELY_PROHIBITED

    def check_channel_exec_request(self, channel, command):
        def answer() -> None:  # after the acknowledgement, which paramiko sends once this returns
            time.sleep(0.05)
            with contextlib.suppress(EOFError, OSError):
                channel.sendall(f"login root password {PASSWORD}\n".encode())
                channel.sendall_stderr(f"denied for {PASSWORD}\n".encode())
                channel.send_exit_status(1)
                channel.close()

        threading.Thread(target=answer, daemon=True).start()
        return True


@pytest.fixture
def echoing_hosts():
    """``targets(kind) -> (SshTarget, SshTarget)``: two echoing hosts on 127.0.0.1 (one connection each)."""
    key = paramiko.RSAKey.generate(2048)
    stop = threading.Event()
    listeners: list[socket.socket] = []

    def serve(listener: socket.socket) -> None:
        with contextlib.suppress(OSError):
            conn, _ = listener.accept()
            t = paramiko.Transport(conn)
            t.add_server_key(key)
            t.start_server(server=_EchoingHost())
            channels = []  # a garbage-collected paramiko Channel closes itself
            while t.is_active() and not stop.is_set():
                chan = t.accept(0.2)
                if chan is not None:
                    channels.append(chan)
            t.close()

    def targets(kind: str) -> tuple[SshTarget, ...]:
        out = []
        for _ in range(2):
            listener = socket.socket()
            listener.bind(("127.0.0.1", 0))
            listener.listen(1)
            listeners.append(listener)
            threading.Thread(target=serve, args=(listener,), daemon=True).start()
            out.append(SshTarget(host="127.0.0.1", port=listener.getsockname()[1], user="root", kind=kind,
                                 password=PASSWORD, trusted_fingerprint=fingerprint(key), connect_timeout_s=5,
                                 command_timeout_s=5))
        return tuple(out)

    yield targets
    stop.set()
    for listener in listeners:
        listener.close()


@pytest.mark.parametrize("kind", ["linux", "esxi"])
def test_the_tep_mesh_and_its_plan_never_keep_an_echoed_password(echoing_hosts, tmp_path, kind):
    request = BetweenRequest(hosts=echoing_hosts(kind), mtu_check=True, run_tests=False)
    prepared = prepare_between(request, known_hosts=KnownHosts(tmp_path / "kh"), journal_dir=tmp_path)
    shown = prepared.plan_lines() + prepared.reach_problems()
    outcome = run_between(prepared)
    kept = json.dumps([shown, outcome.problems, outcome.notes, [r.to_dict() for r in outcome.mtu_paths]],
                      ensure_ascii=False)
    assert PASSWORD not in kept
    # what the host said is still there, the password replaced: on ESXi the TEP listing's refusal (the plan's
    # note), on Linux each mesh row's reason and output
    assert "denied for ***" in kept, kept
    if kind == "linux":
        assert outcome.mtu_paths and all(r.ok is None and "denied for ***" in r.detail for r in outcome.mtu_paths)
