"""A real Linux host over SSH: sshd (no ForceCommand) inside a network namespace, reached over a veth
pair from the root namespace, so the real ethtool, ip and sysfs of the namespace answer."""
from __future__ import annotations

import os

import pytest

from nicadvisor.parsers.assemble import assemble_host
from nicadvisor.collect.sources import gather
from nicadvisor.collect.ssh import collect_ssh, save_captures

pytestmark = pytest.mark.root


def test_linux_audit_in_netns(lab, linux_netns, known_hosts, tmp_path):
    sshd, inside, mac = linux_netns
    target = lab.target(sshd, kind="linux")
    c = collect_ssh([target], known_hosts=known_hosts)
    assert c.problems == [] and len(c.hosts) == 1
    inputs = c.hosts[0]
    assert inputs.kind == "linux"
    # as a non-root user, plain `ethtool IF` prints its output but its Wake-on-LAN query is refused
    (p,) = inputs.problems
    assert "was partly refused" in p.message and p.command.endswith(f"ethtool {inside}")
    commands = [cap.command for cap in inputs.captures]
    assert f"cat /sys/class/net/{inside}/mtu" in commands and f"readlink /sys/class/net/{inside}" in commands
    assert any(cmd.endswith(f"ethtool -i {inside}") for cmd in commands)
    assert any(cmd.endswith("ip -d -j link show") for cmd in commands)
    # only the namespace's interfaces; lo is never audited
    assert not any("/sys/class/net/lo/" in cmd or cmd.endswith("ethtool lo") for cmd in commands)

    host, problems, _ = assemble_host(inputs)
    assert [p.name for p in host.pnics] == [inside]  # the root namespace's NICs are not visible
    p = host.pnic(inside)
    assert (p.mtu, p.mac, p.driver, p.is_physical) == (9000, mac, "veth", False)
    assert p.link_up is True and p.admin_up is True
    root_ifaces = set(os.listdir("/sys/class/net")) - {"lo"}
    assert not root_ifaces & {pn.name for pn in host.pnics}

    save_captures(c.hosts, tmp_path / "linux")
    hosts, gproblems = gather([tmp_path / "linux"])
    assert gproblems == []
    replayed = assemble_host(hosts[0])[0]
    assert replayed.kind == "linux"
    assert [q.facts() for q in replayed.pnics] == [q.facts() for q in host.pnics]


def test_linux_target_on_esxi_personality_is_reported(no_faults, known_hosts):
    """--kind linux against a host that is not Linux: a clear problem, not a crash."""
    c = collect_ssh([no_faults.target(kind="linux")], known_hosts=known_hosts)
    assert any("is it a Linux host?" in p.message for p in c.hosts[0].problems)
