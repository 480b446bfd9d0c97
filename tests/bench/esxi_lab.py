"""The ESXi lab: an ESXi host and a Linux host, each a network namespace with its own real sshd (tests/bench/
remote_lab.py, tests/ssh/sshd_harness.py), joined by a switch (a Linux bridge in a third namespace).

The ESXi host is the one of a public recording, chall32.github.io "NSX Ping Testing and Troubleshooting"
(esxi-site-a-1): ``esxcfg-vmknic -l`` lists its TEPs vmk10 192.168.11.2 and vmk11 192.168.11.3 on the vxlan netstack
at MTU 1700, and ``vmkping ++netstack=vxlan 192.168.11.1 -d -s 1672`` got 1700-byte replies from 192.168.11.1. So the
lab gives the namespace two real interfaces named vmk10 and vmk11 with those addresses and MTU, and the Linux host
the address 192.168.11.1. Its sshd's ForceCommand is tests/bench/esxi_shell.py, which answers ESXi commands only
with recorded outputs, verbatim (:data:`RECORDED`); the other ESXi commands the audit sends (the NIC list, ...) are
those of tests/ssh/esxi_personality.py's coherent host. The Linux host runs a plain sshd (real ``ping``).

Layout (``<t>`` the lab's tag; management as in remote_lab.py, 10.215.N.0/30, sshd on :2222)::

    nicadvrl-<t>0 "ESXi"  vmk10 192.168.11.2/24 mtu 1700 ──veth── e10 ┐
                          vmk11 192.168.11.3/24 mtu 1700 ──veth── e11 ├ br0   nicadvrl-<t>s (the switch)
    nicadvrl-<t>1 Linux   d0    192.168.11.1/24 mtu 1700 ──veth── l0  ┘

The switch port toward vmk11 (``e11``) has MTU :attr:`EsxiLab.vmk11_port_mtu` (1600 by default): the path to vmk11
carries 1600-byte frames but drops 1700-byte ones, a fault of the switch between the TEPs, as in the recording of
4_vmkping.md §4.1 (a switch at a smaller MTU than the TEPs). The ESXi namespace answers ARP for each address only
on its own interface and sends from each address through it (policy routing), so the two TEP paths are apart.

What no public recording shows is not answered: ``vmkping`` from vmk11, at 1572 bytes or at 56 bytes, gets "no
recorded output" (the mesh then says the ping did not run); so does the allowed-IP list of any ruleset but sshServer
(the tool then leaves the list as it is, and its plan says the range is open to every address while the test runs).

The firewall (:data:`RECORDED`, :data:`STATES`): ESXi 5.x's ``firewall get``, 8.0 U2b's ``ruleset list`` (its
remoteSerialPort disabled, Enable/Disable and Allowed IP configurable), remoteSerialPort's rules (inbound TCP 1024-65535,
outbound TCP 0-65535) and its state, recorded disabled and enabled; ``ruleset set -r remoteSerialPort -e`` changes the
lab's state (:meth:`EsxiLab.state`). The lab host has no packet filter: the tests read the order of the commands it
was sent (:meth:`EsxiLab.commands`) and its state back. Its ``/usr/lib/vmware/vsan/bin`` is the folder
:attr:`EsxiLab.vsan_bin` with a real iperf3 (tests/bench/esxi_shell.py). Needs root.
"""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "ssh"))
sys.path.insert(0, str(HERE.parent))

import esxi_personality  # noqa: E402
from capturetools import CAPTURES, TEST_CAPTURES  # noqa: E402
from remote_lab import SSH_PORT, RemoteLab, _run, running_lab  # noqa: E402

from nicadvisor.bench.remote import RemoteHost  # noqa: E402
from nicadvisor.collect.ssh import SshTarget  # noqa: E402

ESXI_TEPS = {"vmk10": "192.168.11.2", "vmk11": "192.168.11.3"}
LINUX_ADDR = "192.168.11.1"
TEP_MTU = 1700
SHELL = HERE / "esxi_shell.py"
ESXI_CAPTURES = HERE / "esxi_captures"

#: The commands the lab's ESXi host answers, each with the recording that answers it (verbatim body). Where the
#: recording was made with other options than the tool sends, the difference is named.
RECORDED: dict[str, Path] = {
    # the coherent host of the SSH tests, less its vmknic listings (this host's are chall32's)
    **{cmd: CAPTURES / name for cmd, name in esxi_personality.TABLE.items()
       if cmd not in ("esxcfg-vmknic -l", "esxcli network ip interface list")},
    "esxcfg-vmknic -l": TEST_CAPTURES / "esxi_esxcfg-vmknic-l_vxlan_vmk10_vmk11_mtu1700_chall32.txt",
    # recorded as "vmkping ++netstack=vxlan 192.168.11.1 -d -s 1672 -c 5" (no -I; five echoes, not three)
    "vmkping ++netstack=vxlan -I vmk10 -d -s 1672 -c 3 192.168.11.1":
        TEST_CAPTURES / "esxi_vmkping_vxlan_1672_pass_to_gateway_chall32.txt",
    # the firewall: ESXi 5.x's get, 8.0 U2b's ruleset list (with the configurable flags), remoteSerialPort's rules
    "esxcli network firewall get": ESXI_CAPTURES / "esxi5x_firewall_get_elatov.txt",
    "esxcli network firewall ruleset list": ESXI_CAPTURES / "esxi80u2b_firewall_ruleset_list_dod.txt",
    "esxcli network firewall ruleset rule list -r remoteSerialPort":
        ESXI_CAPTURES / "esxi5x_firewall_ruleset_rule_list_r_remoteSerialPort_elatov.txt",
}
#: Commands answered with the recording of the lab's state (a ruleset recorded disabled and enabled).
STATES: dict[str, dict[str, Path]] = {
    "esxcli network firewall ruleset list -r remoteSerialPort": {
        "false": ESXI_CAPTURES / "esxi5x_firewall_ruleset_list_r_remoteSerialPort_false_elatov.txt",
        "true": ESXI_CAPTURES / "esxi5x_firewall_ruleset_list_r_remoteSerialPort_true_elatov.txt"},
}


class EsxiLab(RemoteLab):
    """Host 0 the ESXi host (shell :data:`SHELL`), host 1 the Linux host, the switch between (module docstring).
    ``vmk11_port_mtu``: the MTU of the switch port toward vmk11."""

    def __init__(self, vmk11_port_mtu: int = 1600) -> None:
        self._begin()
        self.vmk11_port_mtu = vmk11_port_mtu
        try:
            self.vsan_bin = self.base / "vsan-bin"  # stands for /usr/lib/vmware/vsan/bin: a real iperf3 in it
            self.vsan_bin.mkdir()
            shutil.copy2(shutil.which("iperf3") or "/usr/bin/iperf3", self.vsan_bin / "iperf3")
            self.state_file, self.log = self.base / "esxi_state.json", self.base / "esxi_shell.log"
            self.state_file.write_text(json.dumps({"rulesets": {"remoteSerialPort": False},
                                                   "exec_installed_only": False}))
            self.log.write_text("")
            for path in (self.vsan_bin, self.vsan_bin / "iperf3", self.state_file, self.log):
                shutil.chown(path, self.user.name)
            self.config = self.base / "esxi_shell.json"
            self.config.write_text(json.dumps({
                "recorded": {k: str(v) for k, v in RECORDED.items()},
                "states": {k: {s: str(p) for s, p in v.items()} for k, v in STATES.items()},
                "state": str(self.state_file), "log": str(self.log), "vsan_bin": str(self.vsan_bin),
                "ps": str(ESXI_CAPTURES / "esxi_ps_c_J_netserver_intel_mfd.txt"),
                "exec_refused": str(ESXI_CAPTURES / "esxi80u2_execinstalledonly_refusal_rsync.txt"),
                "listen_refused": str(ESXI_CAPTURES / "esxi7_vsan_iperf3_server_refused.txt")}))
            self.config.chmod(0o644)
            shell = f"/usr/bin/python3 -I -S {SHELL} --config {self.config}"
            self._host(0, (), force_command=shell, tty=True)
            self._host(1, ())
            self._switch()
        except BaseException:
            self.close()
            raise

    def _switch(self) -> None:
        esxi, linux = self.namespaces
        sw = f"nicadvrl-{self.tag}s"
        _run("ip", "netns", "add", sw)
        self.namespaces.append(sw)
        _run("ip", "-n", sw, "link", "add", "br0", "type", "bridge")
        ports = [(esxi, "vmk10", "e10", TEP_MTU), (esxi, "vmk11", "e11", self.vmk11_port_mtu),
                 (linux, "d0", "l0", TEP_MTU)]
        for ns, inside, port, port_mtu in ports:
            _run("ip", "link", "add", inside, "netns", ns, "type", "veth", "peer", "name", port, "netns", sw)
            _run("ip", "-n", ns, "link", "set", inside, "mtu", str(TEP_MTU))
            _run("ip", "-n", sw, "link", "set", port, "mtu", str(port_mtu), "master", "br0")
            _run("ip", "-n", sw, "link", "set", port, "up")
        _run("ip", "-n", sw, "link", "set", "br0", "up")
        for sysctl in ("net.ipv4.conf.all.arp_ignore=1", "net.ipv4.conf.all.arp_announce=2",
                       "net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0"):
            _run("ip", "netns", "exec", esxi, "sysctl", "-q", "-w", sysctl)
        for table, (vmk, addr) in enumerate(ESXI_TEPS.items(), start=10):
            _run("ip", "netns", "exec", esxi, "sysctl", "-q", "-w", f"net.ipv4.conf.{vmk}.rp_filter=0")
            _run("ip", "-n", esxi, "addr", "add", f"{addr}/24", "dev", vmk)
            _run("ip", "-n", esxi, "link", "set", vmk, "up")
            _run("ip", "-n", esxi, "route", "add", "192.168.11.0/24", "dev", vmk, "src", addr, "table", str(table))
            _run("ip", "-n", esxi, "rule", "add", "from", addr, "table", str(table))
        _run("ip", "-n", linux, "addr", "add", f"{LINUX_ADDR}/24", "dev", "d0")
        _run("ip", "-n", linux, "link", "set", "d0", "up")

    # --- using -------------------------------------------------------------------------------------
    def state(self) -> dict:
        """The lab ESXi host's state (its rulesets enabled or not, execInstalledOnly)."""
        return json.loads(self.state_file.read_text())

    def set_state(self, **kw) -> None:
        self.state_file.write_text(json.dumps({**self.state(), **kw}))

    def commands(self) -> list[str]:
        """Every command the ESXi host was sent, in order."""
        return [json.loads(line)["command"] for line in self.log.read_text().splitlines() if line.strip()]

    def copies(self) -> list[str]:
        """The iperf3 copies in the lab's /usr/lib/vmware/vsan/bin."""
        return sorted(p.name for p in self.vsan_bin.iterdir() if p.name != "iperf3")

    def esxi_target(self, **kw) -> SshTarget:
        return self.target(0, kind="esxi", **kw)

    def linux_target(self, **kw) -> SshTarget:
        return self.target(1, **kw)

    def hosts(self, interface: str | None = None):  # the ESXi host's TEPs come from its listing
        return (RemoteHost(self.esxi_target(), None), RemoteHost(self.linux_target(), "d0"))

    def specs(self) -> list[str]:
        """``user@host:port`` of the ESXi host, then the Linux host (as the CLI and the wizard take them)."""
        return [f"{t.user}@{t.host}:{t.port}" for t in (self.esxi_target(), self.linux_target())]

    def cli_args(self, esxi_first: bool = True) -> list[str]:
        """``bench --between ESXI LINUX`` (the ESXi host sends; ``esxi_first`` False: ``LINUX ESXI``, the ESXi host
        serves) with the key, the trusted host keys, ``--kind ESXI=esxi`` and ``--interface LINUX=d0``."""
        esxi, linux = self.esxi_target(), self.linux_target()
        specs = self.specs() if esxi_first else self.specs()[::-1]
        args = ["bench", "--between", *specs, "--ssh-key", str(self.client_key),
                "--kind", f"{esxi.host}:{SSH_PORT}=esxi", "--interface", f"{linux.host}:{SSH_PORT}=d0"]
        for t in (esxi, linux):
            args += ["--trust-host-key", f"{t.host}:{t.port}={t.trusted_fingerprint}"]
        return args


def running_esxi_lab(**kw):
    """``with running_esxi_lab() as lab:`` an :class:`EsxiLab`, closed at the end; the calling test is skipped when
    the lab cannot run here (no sshd, not root)."""
    return running_lab(EsxiLab, **kw)
