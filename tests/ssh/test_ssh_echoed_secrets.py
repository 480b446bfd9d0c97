"""Issue 20 §4 for the benchmark between hosts: any server text shown or stored is scrubbed of the secrets sent in
that session. A hostile SSH host that echoes the password it was sent in every answer (conftest's paramiko server
on loopback) put it into the plan's notes (an ESXi host's ``esxcfg-vmknic -l`` refusal) and into each TEP mesh
row's detail and output, which the CLI prints, ``--json`` writes and the audit history keeps. The run goes through
the service the CLI and the wizard call (:mod:`nicadvisor.services.between`)."""
from __future__ import annotations

import contextlib
import json

import pytest

from paramiko_answers import PASSWORD
from nicadvisor.collect.known_hosts import KnownHosts, fingerprint
from nicadvisor.collect.ssh import SshTarget
from nicadvisor.services.between import BetweenRequest, prepare_between, run_between


def _echo(channel, cmd: str) -> None:
    """Answer every command with the password on stdout and stderr, exit status 1 (after the acknowledgement,
    which paramiko sends once the exec callback returns; :class:`PasswordServer` calls this after it)."""
    with contextlib.suppress(EOFError, OSError):
        channel.sendall(f"login root password {PASSWORD}\n".encode())
        channel.sendall_stderr(f"denied for {PASSWORD}\n".encode())
        channel.send_exit_status(1)
        channel.close()


@pytest.fixture
def echoing_hosts(servers, host_key):
    """``targets(kind) -> (SshTarget, SshTarget)``: two echoing hosts on 127.0.0.1."""
    def targets(kind: str) -> tuple[SshTarget, ...]:
        return tuple(SshTarget(host="127.0.0.1", port=servers(_echo)[0], user="root", kind=kind, password=PASSWORD,
                               trusted_fingerprint=fingerprint(host_key), connect_timeout_s=5, command_timeout_s=5)
                     for _ in range(2))

    return targets


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
