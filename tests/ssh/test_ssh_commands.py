"""The SSH allowlist: what may be sent, what is refused before it reaches the wire."""
from __future__ import annotations

import shlex

import pytest

from nicadvisor.collect import ssh_commands as sc
from nicadvisor.collect.ssh import SshTarget, _HostAudit, parse_ssh_spec
from nicadvisor.parsers.registry import parsers_for, split_commands


def test_every_esxi_template_has_a_parser_and_replays_as_one_command():
    for tpl in sc.ESXI_TEMPLATES:
        argv = sc.esxi_command(tpl, nic="vmnic1000202", module="nmlx5_core", function="0000:5e:00.1")
        line = sc.check("esxi", argv)
        cmds = split_commands(line)  # the recorded '# command:' header must split back into ONE command
        assert len(cmds) == 1, line
        assert parsers_for(cmds[0]), f"no parser for {line!r}"
        assert shlex.split(line) == list(argv)


def test_targets_of_per_nic_and_per_module_commands():
    nic = sc.esxi_command(sc.template_for("esxi", ("vsish", "-e", "get", "/net/pNics/vmnic3/properties")), nic="vmnic3")
    assert split_commands(sc.check("esxi", nic))[0].target == "vmnic3"
    mod = sc.esxi_command(sc.esxi_templates("module")[0], module="icen")
    assert split_commands(sc.check("esxi", mod))[0].target == "icen"


@pytest.mark.parametrize("argv", [
    ["esxcli", "network", "nic", "set", "-n", "vmnic0", "--mtu", "9000"],      # a write
    ["esxcli", "network", "nic", "get", "-n", "vmnic0;reboot"],                  # injection in the NIC name
    ["esxcli", "network", "nic", "get", "-n", "$(reboot)"],
    ["vsish", "-e", "get", "/net/pNics/../../config/properties"],
    ["vsish", "-e", "set", "/net/pNics/vmnic0/properties"],
    ["esxcfg-module", "-s", "RSS=4", "ixgben"],
    ["esxcfg-module", "-i", "Ixgben;id"],
    ["grep", "-F", "-e", "x", "/etc/shadow"],
    ["reboot"],
    [],
])
def test_esxi_refusals(argv):
    with pytest.raises(sc.CommandRefused):
        sc.check("esxi", argv)


@pytest.mark.parametrize("argv", [
    ["ethtool", "-K", "eth0", "tso", "off"],
    ["ethtool", "-k", "-eth0"],
    ["cat", "/etc/shadow"],
    ["cat", "/sys/class/net/../../../etc/shadow"],
    ["ip", "link", "set", "eth0", "down"],
    ["esxcli", "network", "nic", "list"],     # an ESXi command is not a Linux one
])
def test_linux_refusals(argv):
    with pytest.raises(sc.CommandRefused):
        sc.check("linux", argv)


def test_linux_allowed_and_quoted():
    assert sc.check("linux", ["ethtool", "-k", "enp2s0"]) == "ethtool -k enp2s0"
    assert sc.check("linux", ["cat", "/sys/class/net/eth0/mtu"]) == "cat /sys/class/net/eth0/mtu"
    assert sc.check("linux", ["ip", "-d", "-j", "link", "show"]) == "ip -d -j link show"
    # a sysfs path with shell metacharacters is quoted, so the remote shell reads it literally
    assert sc.check("linux", ["cat", "/sys/class/net/a b;c/mtu"]) == "cat '/sys/class/net/a b;c/mtu'"


def test_placeholder_regexes():
    tpl = sc.esxi_templates("nic")[0]
    for bad in ("eth0", "vmnic", "vmnic0 ", "vmnic0\n", "VMNIC0", "vmnic0/..", ""):
        with pytest.raises(sc.CommandRefused):
            sc.esxi_command(tpl, nic=bad)
    with pytest.raises(sc.CommandRefused):
        sc.esxi_command(sc.esxi_templates("module")[0], module="ixgben --help")
    with pytest.raises(sc.CommandRefused):
        sc.check("freebsd", ["ls"])


def test_refused_command_is_never_sent(monkeypatch):
    sent: list[str] = []

    class FakeSession:
        def run(self, command):  # pragma: no cover - must not be reached
            sent.append(command)
            raise AssertionError("sent")

    t = SshTarget(host="esxi-a", user="root", kind="esxi", password="secret-pw")
    audit = _HostAudit(t, FakeSession(), lambda _m: None, [])
    assert audit.run(["esxcli", "system", "shutdown", "reboot", "-r", "x"]) is None
    assert audit.run(["esxcli", "network", "nic", "get", "-n", "vmnic0; reboot"]) is None
    assert sent == []
    assert len(audit.inputs.problems) == 2
    assert all("not in the ESXi read-only allowlist" in p.message for p in audit.inputs.problems)


def test_target_and_spec():
    assert parse_ssh_spec("root@esxi-a") == ("root", "esxi-a", 22)
    assert parse_ssh_spec("admin@10.0.0.5:2222") == ("admin", "10.0.0.5", 2222)
    assert parse_ssh_spec("root@[fe80::1]:22") == ("root", "fe80::1", 22)
    for bad in ("esxi-a", "root@", "root@host:port", "root@a b"):
        with pytest.raises(ValueError):
            parse_ssh_spec(bad)
    t = SshTarget.parse("root@esxi-a:2222", kind="esxi", password="s3cret-value")
    assert (t.host, t.port, t.user, t.name) == ("esxi-a", 2222, "root", "esxi-a:2222")
    assert t.source == "ssh://root@esxi-a:2222"
    assert "s3cret-value" not in repr(t)
    with pytest.raises(ValueError):
        SshTarget(host="h", user="root", kind="windows", password="x")
    with pytest.raises(ValueError):
        SshTarget(host="h;reboot", user="root", kind="esxi", password="x")
    with pytest.raises(ValueError):
        SshTarget(host="h", user="root", kind="esxi")  # neither password nor key


def test_a_pci_function_is_named_in_decimal_as_vsish_names_it_and_nothing_else_passes():
    """vsish names the nodes under /hardware/pci by the address in decimal (pci2numa.sh of
    github.com/vbondzio/sowasvonunsupported converts them back with printf "%02x")."""
    (tpl,) = sc.esxi_templates("function")
    argv = sc.esxi_command(tpl, function="0000:5e:00.1")
    assert argv == ("vsish", "-e", "get", "/hardware/pci/seg/0/bus/94/slot/0/func/1/pciConfigHeader")
    assert sc.check("esxi", argv) == shlex.join(argv)
    for bad in ("5e:00.1", "0000:5e:20.0", "0000:5e:00.1;reboot", None):
        with pytest.raises(sc.CommandRefused):
            sc.esxi_command(tpl, function=bad)
    with pytest.raises(sc.CommandRefused):  # a placeholder value that is not a decimal number
        sc.check("esxi", ("vsish", "-e", "get", "/hardware/pci/seg/0/bus/5e/slot/0/func/1/pciConfigHeader"))
