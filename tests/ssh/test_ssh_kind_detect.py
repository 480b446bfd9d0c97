"""Issue 27 §13: a Linux host left at kind ESXi (the wizard's default) is detected on contact and audited as Linux:
``esxcfg-nics -l`` is not found there and ``/sys/class/net`` is listed. It got "try --kind linux" (CLI words in the
wizard) and ESXi commands in its "Finish this audit". The host is a real sshd in a network namespace whose real
ethtool, ip and sysfs answer (tests/ssh/conftest.py)."""
from __future__ import annotations

import pytest

from nicadvisor.collect.ssh import collect_ssh
from nicadvisor.parsers.assemble import assemble_host

pytestmark = pytest.mark.root


def test_a_linux_host_given_as_esxi_is_audited_as_linux(lab, linux_netns, known_hosts):
    sshd, inside, _mac = linux_netns
    c = collect_ssh([lab.target(sshd, kind="esxi")], known_hosts=known_hosts)
    assert c.problems == [] and len(c.hosts) == 1
    inputs = c.hosts[0]
    assert inputs.kind == "linux"
    assert not any("--kind" in p.message or "is it an ESXi host" in p.message for p in inputs.problems)
    commands = [cap.command for cap in inputs.captures]
    assert f"cat /sys/class/net/{inside}/mtu" in commands and not any(cmd.startswith("esx") for cmd in commands)
    assert any("audited as a Linux host" in s for s in c.skipped)
    host = assemble_host(inputs)[0]
    assert host.kind == "linux" and [p.name for p in host.pnics] == [inside]
