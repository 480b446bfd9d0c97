"""SSH with an account without root privileges, on a real Linux host (sshd in a network namespace, the real
ethtool / ip / sysfs answering as the test's non-root account).

What fails for real here (checked by hand with ``runuser -u nobody`` and by this test): of the allowlisted
Linux commands only the plain ``ethtool IF`` is partly refused: it prints the link settings, exit status 0,
and ``netlink error: Operation not permitted`` on stderr (its Wake-on-LAN query needs CAP_NET_ADMIN). Every
sysfs read, ``ip -d -j link show`` and ``ethtool -i/-k/-l`` work; ``ethtool -x/-c/-g`` fail on a veth with
"Operation not supported" (the driver, not the account: informational). No public capture holds an ESXi
"permission denied" answer (shared/fixtures/captures), so the ESXi side is not tested here.
"""
from __future__ import annotations

import pytest

from nicadvisor.parsers.assemble import assemble_host
from nicadvisor.collect.known_hosts import KnownHosts
from nicadvisor.collect.ssh import collect_ssh
from nicadvisor.parsers.registry import parse_output

pytestmark = pytest.mark.root


def test_non_root_linux_account_partly_refused_ethtool_is_a_problem(ssh_lab, linux_netns, tmp_path):
    sshd, inside, mac = linux_netns
    target = ssh_lab.target(sshd, kind="linux")
    col = collect_ssh([target], known_hosts=KnownHosts(tmp_path / "known_hosts"))
    assert col.problems == []
    (inputs,) = col.hosts
    # exactly one problem: the plain ethtool query, with the real error text, naming account and host
    (p,) = inputs.problems
    assert p.source == f"ssh://{ssh_lab.user.name}@{sshd.listen}:2222"
    assert p.command.endswith(f"ethtool {inside}") and " -" not in p.command
    assert p.message == (f"'{p.command}' was partly refused to user '{ssh_lab.user.name}' on {sshd.listen}:2222: "
                         "netlink error: Operation not permitted; the rest of its output was read (part of this "
                         "query needs more privileges than the account has: root on Linux)")
    # its output is kept, with the error as a note, and its facts are read
    cap = next(c for c in inputs.captures if c.command == p.command)
    assert cap.notes == ("stderr: netlink error: Operation not permitted",)
    assert "Speed: 10000Mb/s" in cap.text and "Link detected: yes" in cap.text
    # the driver's own refusals (veth has no RSS table, coalescing or ring settings) stay informational
    assert not any("-x" in q.command or "-c" in q.command or "-g" in q.command for q in inputs.problems)

    host, problems, _ = assemble_host(inputs)
    assert problems == inputs.problems
    nic = host.pnic(inside)
    assert (nic.mtu, nic.mac, nic.driver, nic.is_physical, nic.link_up) == (9000, mac, "veth", False, True)
    assert nic.link_speed_mbps == 10000
    # the partly refused output is still understood: the same speed read from it
    (result,) = parse_output(cap.command, cap.text)
    assert result.pnics[inside]["link_speed_mbps"].value == 10000
