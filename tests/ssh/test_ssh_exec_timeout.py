"""A server that never acknowledges the exec request must not block the audit: paramiko's
``Channel.exec_command`` waits for that acknowledgement without a timeout, so :mod:`nicadvisor.collect.ssh`
closes the channel at the command's deadline (``command_timeout_s``) and reports a per-command problem.

The servers are paramiko ServerInterfaces on loopback (conftest's ``servers``, paramiko_answers.PasswordServer):
the hanging one blocks in ``check_channel_exec_request`` (paramiko's server acknowledges only after that
callback returns) until the test ends; the healthy one answers ``esxcli network nic list`` with the body
of a real capture and fails other commands.
"""
from __future__ import annotations

import threading
import time

import pytest

from paramiko_answers import PASSWORD, answer_exec
from nicadvisor.parsers.assemble import assemble_host
from nicadvisor.collect.known_hosts import KnownHosts, fingerprint
from nicadvisor.collect.ssh import DEFAULT_SSH_WORKERS, SshTarget, collect_ssh

TIMEOUT_S = 3.0


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
    hang_port, hang = servers(None)
    ok_port, ok = servers(answer_exec)
    # the hanging server never acknowledges (until the test ends): ending at all is the command timeout's work
    c, _elapsed = _collect_in_thread([_target(hang_port, host_key), _target(ok_port, host_key)], tmp_path, 120)
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


@pytest.mark.parametrize("pty", [False, True], ids=["mesh ping", "ESXi endpoint start"])
def test_a_benchmark_command_never_acknowledged_ends_at_the_command_timeout(servers, host_key, tmp_path, pty):
    """The benchmark's SSH calls are bounded as the audit's: a TEP mesh ping (HostSession.run) and a process the
    ESXi endpoint starts through a pseudo-terminal (HostSession.open, pty) end at the command timeout with a
    BenchError naming the command, not a lost host, instead of waiting for the acknowledgement forever."""
    from nicadvisor.bench import BenchError
    from nicadvisor.bench.mtu_path import esxi_argv
    from nicadvisor.bench.remote import HostSession, RemoteHost

    port, hang = servers(None)
    conn = HostSession(RemoteHost(_target(port, host_key)))
    conn.connect(KnownHosts(tmp_path / "kh"), None, threading.Event())
    argv = esxi_argv("vmk10", "vxlan", "192.0.2.20", 1572)
    box: dict = {}

    def start() -> None:
        try:
            conn.open(argv, pty=True) if pty else conn.run(argv)
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            box["exc"] = exc

    th = threading.Thread(target=start, daemon=True)
    th.start()
    th.join(120)  # a deadline, not a duration: the call gives up after TIMEOUT_S
    try:
        assert not th.is_alive(), "the benchmark's SSH call still blocked after 120 s (exec never acknowledged)"
        assert type(box.get("exc")) is BenchError, box
        assert str(box["exc"]) == (f"'vmkping ++netstack=vxlan -I vmk10 -d -s 1572 -c 3 192.0.2.20' on "
                                   f"127.0.0.1:{port} did not start within {TIMEOUT_S:.0f} s (the server did not "
                                   "acknowledge it)")
        assert hang.commands == ["vmkping ++netstack=vxlan -I vmk10 -d -s 1572 -c 3 192.0.2.20"]
    finally:
        conn.close()


def test_default_pool_is_sixteen_hosts():
    import inspect

    assert DEFAULT_SSH_WORKERS == 16
    assert inspect.signature(collect_ssh).parameters["max_workers"].default == DEFAULT_SSH_WORKERS
