"""The command catalogue: every command family NIC Advisor runs or reads, once.

Each :class:`Command` says what the command is (its text, platform, scope), how each transport gets its output (the
SSH collector and the local Linux collector run the entries marked ``run``; a vm-support bundle holds it in
``bundle_files``; the vSphere API runs it as esxcli ``esxcli_api``), which parser family reads it, which model facts
it gives and which of those it is the advised read for (what an unknown matrix cell tells the user to run). The
readers of this table:

* :mod:`nicadvisor.collect.ssh_commands` (the ESXi templates the SSH collector may send, in this order),
  :mod:`nicadvisor.collect.local_linux` (ethtool queries and sysfs attributes, also read over SSH),
  :mod:`nicadvisor.collect.vsphere_esxcli_commands` and :mod:`nicadvisor.collect.vsphere_esxcli` (the esxcli words
  allowed and run over the vSphere API), :mod:`nicadvisor.collect.bundle` and
  :func:`nicadvisor.parsers.registry.bundle_file_command` (which bundle file holds which command);
* :mod:`nicadvisor.parsers.registry` (every registered parser family must have an entry: :func:`by_family`),
  :mod:`nicadvisor.parsers.assemble` (the words that tell a host's kind, :func:`kind_of_command`);
* :mod:`nicadvisor.model.capabilities` (:func:`how_to_learn`: the command an unknown cell names) and
  :func:`nicadvisor.model.readiness.commands_for` (:func:`advised`, :func:`inventory`: the "Finish this audit"
  commands), which name only commands the collectors run;
* :mod:`nicadvisor.collect.script` (the collector script: :func:`collected`, :func:`discovery`, :data:`NAME_ERE`) and
  :func:`not_over_api` (what a vSphere API audit leaves out, listed per host as not run).

The per-transport validators (``ssh_commands.check``, ``local_linux.allowed``, ``vsphere_esxcli_commands.validate``)
stay strict safety guards: they are built from this table but check every command again before it is sent.

Everything here is read-only. The collector script (a POSIX ``sh`` script for ESXi busybox or Linux) runs
exactly :func:`collected` of a platform: ``text`` with ``{nic}``/``{module}`` filled from the discovery command and
``{attribute}`` from ``attributes``; ``optional`` commands may fail on some releases or drivers, ``root`` ones
answer only partly without root on Linux.

Pure data and lookups: imports nothing of NIC Advisor. Sources of the commands and their outputs:
``shared/design/research/nic-data-sources.md`` (section named in each entry's ``source``) and
``shared/design/research/vm-support-bundles.md`` §1.3-§1.6 for the bundle files.
"""
from __future__ import annotations

import functools
import re
import shlex
from dataclasses import dataclass

PLATFORMS = ("esxi", "linux", "vsphere", "nsx")
"""Where a command runs: an ESXi host's shell, a Linux host's, the vSphere API (vCenter or ESXi), NSX (Manager API,
Edge CLI)."""
SCOPES = ("host", "pnic", "vmknic", "module", "function")
"""What one run of a command is about: the host, one pNIC (``{nic}``), one vmknic (``{vmk}``), one driver module
(``{module}``), one pNIC's PCI function (``{seg}``/``{bus}``/``{slot}``/``{func}``: its address in decimal, as vsish
names the nodes under ``/hardware/pci``)."""
#: The host kind a platform's commands tell (:func:`kind_of_command`).
HOST_KIND = {"esxi": "esxi", "vsphere": "esxi", "linux": "linux"}

VMKERNEL_LOG = "/var/log/vmkernel.log"
VMKERNEL_LOG_PATTERNS = (
    "Interrupt Throttle Rate", "ENS mode", "numQueue", "maxNumRssQ", "Register RSS", "Changing MTU",
    "Starting I/O on", "queues are accepted", "MSIX interrupts", "rxITR", "Link is",
)
"""Fixed strings (``grep -F``) of the driver messages the vmkernel.log parser reads (nic-data-sources.md §7, §8a,
§9). None holds ``|``, ``;`` or parentheses, so the recorded command line splits back into one command."""


#: What a placeholder's value may be, per platform, as a POSIX extended regular expression that must match the whole
#: value: the SSH allowlist checks names with these (Python ``re``: :func:`whole`), and so does the collector script
#: (``grep -E``) before it puts a name read on the host into a command. They use only bracket expressions, ``{m,n}``
#: and ``|``, which mean the same in both.
NAME_ERE: dict[str, dict[str, str]] = {
    # an ESXi uplink (vmnic1000202 is real: nic-data-sources.md §14 item 15), a USB uplink, a driver module as the
    # Driver column prints it (ixgben, icen_ens, nmlx5_core)
    "esxi": {"nic": "vmnic[0-9]{1,9}|vusb[0-9]{1,4}", "module": "[a-z][a-z0-9_]{0,63}"},
    # a Linux interface as /sys/class/net lists it (at most 15 characters, never starting with -); a PCI function
    "linux": {"nic": "[A-Za-z0-9_][A-Za-z0-9_.:-]{0,14}", "pci": r"[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]"},
}


#: The documented long spelling of the short options of the catalogue's tools, per tool (the command's first word):
#: a command written either way is one command, and the registry reads it in its short spelling
#: (:func:`nicadvisor.parsers.registry.normalise`: ``esxcfg-nics --list`` is ``esxcfg-nics -l``,
#: ``ethtool --show-ring eth0`` is ``ethtool -g eth0``, ``esxcli … --nic-name=vmnic0`` is ``esxcli … -n vmnic0``).
#: Sources: each tool's usage text as its reference prints it: ``esxcfg-nics`` (Broadcom KB 324544, "-l --list"),
#: ``esxcfg-vmknic``/``esxcfg-vswitch`` (vSphere Command-Line Interface Reference, "-l|--list"), ``esxcfg-module``
#: (``-g|--get-options``, ``-i|--get-info``), ``vmware`` (``-v|--version``, ``-l|--level``), ``vmkchdev``
#: (``-l|--list``), esxcli (``-n|--nic-name``, ``-m|--module``: esxcli reference), ethtool(8)
#: and ip(8) (``-d``/``-details``, ``-j``/``-json``, ``-s``/``-stats``/``-statistics``, ``-br``/``-brief``).
OPTION_SPELLINGS: dict[str, dict[str, str]] = {
    "esxcfg-nics": {"--list": "-l"},
    "esxcfg-vmknic": {"--list": "-l"},
    "esxcfg-vswitch": {"--list": "-l"},
    "esxcfg-module": {"--get-options": "-g", "--get-info": "-i"},
    "vmware": {"--version": "-v", "--level": "-l"},
    "vmkchdev": {"--list": "-l"},
    "esxcli": {"--nic-name": "-n", "--module": "-m"},
    "ethtool": {"--driver": "-i", "--show-features": "-k", "--show-offload": "-k", "--show-channels": "-l",
                "--show-ring": "-g", "--show-rxfh-indir": "-x", "--show-rxfh": "-x", "--show-coalesce": "-c",
                "--statistics": "-S"},
    "ip": {"-details": "-d", "-json": "-j", "-stats": "-s", "-statistics": "-s", "-brief": "-br"},
}
#: The letters of value-less short options that a tool takes written apart or together, per tool: the registry
#: reads them as one word in this order (``lspci -v -v -k`` and ``lspci -kvv`` are ``lspci -vvk``; ``vmware -v -l`` is
#: ``vmware -vl``). Only flags: ``lspci -s``/``-d`` take a value and stay apart, and so does ESXi's ``lspci -p``
#: (pciutils' ``-p`` takes a file), lspci(8), vmware -vl (vm-support ``commands/vmware_-vl.txt``).
FLAG_ORDER: dict[str, str] = {"lspci": "vmnkDtbxqQe", "vmware": "vl"}
#: Short options that take a value, per tool, beside those of :data:`OPTION_SPELLINGS` and :data:`FLAG_ORDER`: with
#: them the registry knows every letter a tool's command may start with when a PDF copy lost its dashes
#: (``lspci v v s 09:00.0``, ``ethtool i eth2``: the Red Hat Summit slides of capture
#: ``rhel5_ethtool-i_cxgb3_ixgbe_s2io_note_in_driver_value_dashes_lost_redhat_summit_pdf.txt``).
VALUE_OPTION_LETTERS: dict[str, str] = {"lspci": "sd"}


def whole(ere: str) -> re.Pattern[str]:
    """A Python pattern matching a whole string (no newline) that the POSIX ERE ``ere`` matches as a whole line."""
    return re.compile(rf"^(?:{ere})\Z")


@dataclass(frozen=True)
class Command:
    """One command family.

    Attributes:
        text: the command as run (or, for an API, as recorded), with placeholders ``{nic}`` (a pNIC name),
            ``{module}`` (a driver module), ``{vmk}`` (a vmknic), ``{attribute}`` (one of ``attributes``),
            ``{netstack}``, ``{size}`` (bytes) and ``{address}`` (an IPv4/IPv6 address) of a path test.
        platform: one of :data:`PLATFORMS`.
        scope: one of :data:`SCOPES`.
        family: the parser family that reads its output (:func:`nicadvisor.parsers.registry.register`), None for a
            command no parser reads (interface discovery). Several entries may share a family (two sysfs folders).
        facts: the model facts its output gives, as ``"<object>.<field>"`` with object ``pnic``, ``vmknic``,
            ``switch``, ``module`` or ``host`` (fields of :mod:`nicadvisor.model.entities`).
        learn: those of ``facts`` whose advised read on this platform this command is (named in unknown cells and in
            "Finish this audit"); only commands the collectors run (``run``) are advised.
        learn_attributes: for an ``{attribute}`` command, ``(fact, attribute)`` pairs: the attribute file whose read
            is the advice for that fact (``("pnic.mtu", "mtu")``: ``cat /sys/class/net/{nic}/mtu``).
        run: the collectors run it (ESXi: the SSH collector, ``text`` is its template; Linux: the local and the SSH
            collector); the collector script (:mod:`nicadvisor.collect.script`) runs it too.
        inventory: it lists every pNIC of the host with its link state and MTU: what a host whose pNIC listing is
            not whole must run first (one per platform).
        optional: it may be missing on some ESXi releases or drivers, or refused by the driver: its failure is
            informational, not a problem.
        root: on Linux, part of its output needs root (run as another user it answers only partly).
        bundle_files: the files of a vm-support bundle that hold its output (paths below the bundle root).
        esxcli_api: the esxcli command words when the vSphere API can run it (esxcli over ``ExecuteSoap``).
        attributes: the values ``{attribute}`` takes (sysfs files read).
        kind_mark: a word of the command that tells its host's kind (:func:`kind_of_command`).
        source: where the command and its output format are documented.
    """

    text: str
    platform: str
    scope: str
    family: str | None
    facts: tuple[str, ...] = ()
    learn: tuple[str, ...] = ()
    learn_attributes: tuple[tuple[str, str], ...] = ()
    run: bool = False
    optional: bool = False
    root: bool = False
    bundle_files: tuple[str, ...] = ()
    esxcli_api: tuple[str, ...] = ()
    attributes: tuple[str, ...] = ()
    kind_mark: str = ""
    inventory: bool = False
    source: str = ""

    @property
    def words(self) -> tuple[str, ...]:
        """``text`` split into shell words (placeholders kept)."""
        return tuple(shlex.split(self.text))


def _p(*names: str) -> tuple[str, ...]:
    return tuple(f"pnic.{n}" for n in names)


_NIC_ROW = _p("pci_address", "is_physical", "driver", "admin_up", "link_up", "link_speed_mbps", "duplex", "mac", "mtu",
              "description", "is_virtual_uplink")
_PCI_IDS = _p("pci_address", "is_physical", "vid", "did", "svid", "ssid")
_COALESCE = _p("coalesce_adaptive_rx", "coalesce_rx_usecs", "coalesce_rx_frames", "coalesce_tx_usecs",
               "coalesce_tx_frames")
_QUEUES = _p("rx_queues", "tx_queues")
#: The PCIe link of a pNIC: negotiated (Link Status) and capable (Link Capabilities) speed and width.
_PCIE_LINK = _p("pcie_speed_gts", "pcie_width", "pcie_speed_capable_gts", "pcie_width_capable")
_MODULE = ("module.version", "module.parameters", "module.options")
#: Every Linux reader marks a bond or a VLAN sub-interface it names a pseudo device (registry ``_mark_pseudo``).
_PSEUDO = _p("is_physical")
_SWITCH = ("switch.kind", "switch.mtu", "switch.uplinks")
_VMKNIC = ("vmknic.mtu", "vmknic.netstack", "vmknic.portgroup", "vmknic.switch", "vmknic.addresses", "vmknic.is_tep",
           "vmknic.tso_mss")
_NEIGHBOR = _p("neighbor_protocol", "neighbor_name", "neighbor_chassis_id", "neighbor_port", "neighbor_port_description",
               "neighbor_mgmt_address", "neighbor_mtu", "neighbor_vlan")
_LEARN_NEIGHBOR = _p("neighbor_name", "neighbor_port")
_GREP_VMKERNEL_LOG = shlex.join(["grep", "-F", *[w for p in VMKERNEL_LOG_PATTERNS for w in ("-e", p)], VMKERNEL_LOG])

#: Every command family: ESXi first, those the collectors run in their order within each scope (the collectors run
#: the host's, then each pNIC's, then each driver module's; the vSphere API path runs its esxcli ones the same way),
#: then the other ESXi families, Linux in the order the collectors run them, then the APIs.
CATALOGUE: tuple[Command, ...] = (
    # --- ESXi, run by the SSH collector (nic-data-sources.md §0, §1.3: VMware's NIC support script, Intel's mfd) --
    Command("esxcli network nic list", "esxi", "host", "esxcli network nic list", _NIC_ROW,
            learn=_p("link_up", "link_speed_mbps"), run=True, esxcli_api=("network", "nic", "list"),
            bundle_files=("commands/localcli_network-nic-list.txt",), kind_mark="esxcli", source="§4"),
    Command("esxcli network nic get -n {nic}", "esxi", "pnic", "esxcli network nic get",
            _p("pci_address", "is_physical", "driver", "driver_version", "firmware_version", "link_up",
               "link_speed_mbps", "link_speed_max_mbps", "duplex", "mtu", "is_virtual_uplink"),
            learn=_p("driver", "driver_version", "firmware_version"), run=True,
            esxcli_api=("network", "nic", "get"), source="§2"),
    Command("esxcli network nic coalesce get", "esxi", "host", "esxcli network nic coalesce get",
            _COALESCE + _p("coalesce_adaptive_tx"),
            learn=_p("coalesce_adaptive_rx", "coalesce_rx_usecs"), run=True, optional=True,
            esxcli_api=("network", "nic", "coalesce", "get"), source="§9, §14 item 14"),
    Command("esxcli network vswitch standard list", "esxi", "host", "esxcli network vswitch standard list", _SWITCH,
            run=True, source="§5"),
    Command("esxcli network vswitch dvs vmware list", "esxi", "host", "esxcli network vswitch dvs vmware list",
            _SWITCH, run=True, bundle_files=("commands/localcli_network-vswitch-dvs-vmware-list.txt",), source="§5"),
    Command("esxcli network ip interface list", "esxi", "host", "esxcli network ip interface list",
            ("vmknic.mtu", "vmknic.netstack", "vmknic.portgroup", "vmknic.switch", "vmknic.tso_mss",
             "vmknic.is_tep"),
            run=True, bundle_files=("commands/localcli_network-ip-interface-list.txt",), source="§5"),
    Command("esxcli network ip interface ipv4 get", "esxi", "host", "esxcli network ip interface ipv4 get",
            ("vmknic.addresses",), source="§5 (the 5.x layout has no Gateway column)"),
    Command("esxcli hardware pci list", "esxi", "host", "esxcli hardware pci list",
            _PCI_IDS + _p("driver", "description"), learn=_p("vid", "did"), run=True,
            bundle_files=("commands/localcli_hardware-pci-list.txt",), source="§3"),
    Command("esxcfg-nics -l", "esxi", "host", "esxcfg-nics -l", _NIC_ROW, learn=_p("mtu"), run=True,
            bundle_files=("commands/esxcfg-nics_-l.txt",), kind_mark="esxcfg-", inventory=True, source="§4, §5"),
    Command("esxcfg-nics -e", "esxi", "host", "esxcfg-nics -e",
            _p("driver", "ens_capable", "ens_interrupt_capable", "ens_enabled", "ens_mode"),
            learn=_p("ens_capable", "ens_enabled", "ens_mode"), run=True, optional=True,
            bundle_files=("commands/esxcfg-nics_-e.txt",), source="§8a, §14 item 9"),
    Command("esxcfg-vmknic -l", "esxi", "host", "esxcfg-vmknic -l", _VMKNIC, learn=("vmknic.mtu",), run=True,
            bundle_files=("commands/esxcfg-vmknic_-l.txt",), source="§5"),
    Command("esxcfg-vswitch -l", "esxi", "host", "esxcfg-vswitch -l", _SWITCH + ("vmknic.switch",),
            learn=("switch.mtu",), run=True,
            bundle_files=("commands/esxcfg-vswitch_-l.txt",), source="§5"),
    Command("lspci -p", "esxi", "host", "lspci -p", _PCI_IDS + _p("driver"), run=True, optional=True,
            bundle_files=("commands/lspci_-p.txt",), source="§3"),
    # the PCIe link: the hex dump of each function's standard configuration space (ESXi's lspci -h: "-d --dump
    # Print hex dump of the standard config space"), decoded by nicadvisor.parsers.pcie_config
    Command("lspci -d", "esxi", "host", "lspci -d", _PCI_IDS + _PCIE_LINK, learn=_PCIE_LINK, run=True, optional=True,
            source="§10; esxi-public/8_pcie_link_on_esxi.md (virtualguido.blogspot.com 2016/10 'VMware ESXi - "
                   "vmkvsitools lspci'; PCI Express Base Specification §7.5.3)"),
    # the server's slots as SMBIOS lists them (type 9, System Slot: Designation, Bus Width): what each slot offers,
    # not the negotiated link, so records only: it never decides the PCIe cell
    Command("smbiosDump", "esxi", "host", "smbiosDump", (), run=True, optional=True,
            bundle_files=("commands/smbiosDump.txt",),
            source="§10 (c); vm-support-bundles.md (hardware.mfx /sbin/smbiosDump → commands/smbiosDump.txt)"),
    Command("vmware -vl", "esxi", "host", "vmware -vl",
            ("host.kind", "host.product_version", "host.build", "host.product_update"),
            learn=("host.product_version", "host.build", "host.product_update"), run=True,
            bundle_files=("commands/vmware_-vl.txt",), kind_mark="vmware", source="§13"),
    Command("esxcli system version get", "esxi", "host", "esxcli system version get",
            ("host.kind", "host.product_version", "host.build", "host.product_update"), run=True,
            bundle_files=("commands/localcli_system-version-get.txt",),
            source="vm-support-bundles.md (localcli_system-version-get.txt); VMware esxcli system reference"),
    # hostd's QueryNetworkHint from the shell: the switch port each vmnic is cabled to (CDP/LLDP); read-only
    Command("vim-cmd hostsvc/net/query_networkhint", "esxi", "host", "vim-cmd hostsvc/net/query_networkhint", _NEIGHBOR,
            learn=_LEARN_NEIGHBOR, run=True, optional=True, kind_mark="vim-cmd hostsvc",
            source="§1.1 (QueryNetworkHint; VMware KB 1007069)"),
    Command(_GREP_VMKERNEL_LOG, "esxi", "host", "vmkernel.log",
            _p("pci_address", "driver", "mtu", "rss", "ens_enabled", "ens_mode", "coalesce_adaptive_rx",
               "coalesce_rx_usecs", "coalesce_tx_usecs", "link_up", "link_speed_mbps", "duplex") + _QUEUES,
            run=True, optional=True, bundle_files=("var/run/log/vmkernel.log", "var/log/vmkernel.log"),
            source="§7, §8a, §9; the drivers' link messages (issue 16 §5)"),
    Command("grep -F -e linkstate -e 'Taking down physical NIC' /var/log/vobd.log", "esxi", "host", "vmkernel.log",
            _p("link_up", "admin_up"), bundle_files=("var/run/log/vobd.log", "var/log/vobd.log"),
            source="Broadcom KB 376568 (cat vobd.log | grep linkstate), KB 324499 (a flapping port taken down)"),
    Command("vsish -e get /net/pNics/{nic}/properties", "esxi", "pnic", "vsish pnic properties",
            _p("geneve_offload", "vxlan_offload", "tso", "driver", "driver_version", "firmware_version",
               "legacy_vmklinux", "numa_node"),
            learn=_p("geneve_offload"), run=True, optional=True, kind_mark="vsish", source="§6"),
    Command("vsish -e get /net/pNics/{nic}/rxqueues/info", "esxi", "pnic", "vsish rxqueues info",
            _p("geneve_rx_filter", "lro", "rss", "rx_queues_max", "rx_queues"),
            learn=_p("geneve_rx_filter", "rss"), run=True, optional=True, source="§7"),
    # the vmkernel's view of each pNIC's PCI function (its NUMA node; public pci2numa scripts read its 'Numa node:' line):
    # the vsish nodes are named by the address in decimal (vbondzio/sowasvonunsupported pci2numa.sh converts them back
    # with printf "%02x"). No public output of the node was found: recorded, its Numa node line read
    Command("vsish -e get /hardware/pci/seg/{seg}/bus/{bus}/slot/{slot}/func/{func}/pciConfigHeader", "esxi",
            "function", "vsish pciConfigHeader", _p("numa_node"), run=True, optional=True,
            source="§10 (b); esxi-public/8_pcie_link_on_esxi.md (pci2numa.sh, github.com/vbondzio/sowasvonunsupported)"),
    Command("esxcli system module parameters list -m {module}", "esxi", "module",
            "esxcli system module parameters list", ("module.parameters", "module.options"), run=True,
            optional=True, esxcli_api=("system", "module", "parameters", "list"), source="§7, §9"),
    Command("esxcfg-module -i {module}", "esxi", "module", "esxcfg-module -i", ("module.version", "module.parameters"),
            run=True, optional=True, source="§7, §9"),
    Command("esxcfg-module -g {module}", "esxi", "module", "esxcfg-module -g", ("module.options",), run=True,
            optional=True, source="§7, §9"),
    # --- ESXi, read from captures and bundles -------------------------------------------------------------------
    Command("net-dvs -l", "esxi", "host", "net-dvs -l", ("switch.kind", "switch.mtu"),
            bundle_files=("commands/net-dvs_-l.txt",), kind_mark="net-dvs",
            source="vm-support-bundles.md §1.3 (commands/net-dvs_-l.txt: global properties, the N-VDS MTU)"),
    Command("nicinfo.sh", "esxi", "host", "nicinfo.sh", _NIC_ROW + _p("driver_version", "firmware_version") + _QUEUES,
            bundle_files=("commands/nicinfo.sh.txt",), kind_mark="nicinfo.sh", source="vm-support-bundles.md §1.3"),
    # ESXi's lspci -v prints no PCIe link capabilities: lspci -d (above) dumps the registers that hold it
    Command("lspci -v", "esxi", "host", "lspci -v", _PCI_IDS + _p("description"),
            bundle_files=("commands/lspci_-v.txt",), source="§3, §10"),
    Command("lspci -n", "esxi", "host", "lspci -n", _PCI_IDS, source="§3"),
    Command("vmkchdev -l", "esxi", "host", "vmkchdev -l", _PCI_IDS, kind_mark="vmkchdev", source="§3"),
    Command("esxcli software vib list", "esxi", "host", "esxcli software vib list", ("module.version",),
            bundle_files=("commands/localcli_software-vib-list.txt",), source="§2"),
    Command("esxcli network nic tso get", "esxi", "host", "esxcli network nic tso get", _p("tso"), source="§6"),
    Command("esxcli network nic ring current get -n {nic}", "esxi", "pnic", "esxcli network nic ring current get",
            _p("rx_ring_size", "tx_ring_size"), source="§7"),
    Command("esxcli network nic ring preset get -n {nic}", "esxi", "pnic", "esxcli network nic ring preset get",
            source="§7"),
    Command("esxcli network nic stats get -n {nic}", "esxi", "pnic", "esxcli network nic stats get", source="§7"),
    Command("esxcli network nic pauseParams list", "esxi", "host", "esxcli network nic pauseParams list", source="§4"),
    Command("esxcli intnet rss get -n {nic}", "esxi", "pnic", "esxcli intnet rss get", _p("rss"), source="§7"),
    Command("localcli --plugin-dir /usr/lib/vmware/esxcli/int networkinternal nic privstats get -n {nic}", "esxi",
            "pnic", "esxcli networkinternal nic privstats get", _QUEUES, source="§7"),
    Command("vsish -e get /net/pNics/{nic}/stats", "esxi", "pnic", "vsish pnic stats", source="§7"),
    # the TEP mesh (nicadvisor.bench.mtu_path): the TEP netstack and vmknic, don't-fragment, 3 echoes; {size} the
    # payload (frame - 28, IPv4; - 48 with -6, IPv6); validated word by word by collect.ssh_commands.check_path_ping
    Command("vmkping ++netstack={netstack} -I {vmk} -d -s {size} -c 3 {address}", "esxi", "vmknic", "vmkping",
            ("host.mtu_path_ok",), esxcli_api=("network", "diag", "ping"), kind_mark="vmkping",
            source="§5; nsx-t-performance-on-intel.txt §1.5; esxi-public/4_vmkping.md"),
    Command("vmkping ++netstack={netstack} -I {vmk} -d -s {size} -c 3 -6 {address}", "esxi", "vmknic", "vmkping",
            ("host.mtu_path_ok",), source="§5 (IPv6 TEPs: vmkping -6)"),
    Command("ping -M do -c 3 -i 0.2 -W 1 -s {size} -I {address} {address}", "linux", "host", None,
            source="ping(8) iputils: -M do prohibits fragmentation (the TEP mesh from a Linux host)"),
    Command("flint -d {device} q", "esxi", "pnic", "flint q", _p("firmware_version"), source="§2"),
    Command("nsxdp-cli ens uplink ring get -n {nic}", "esxi", "pnic", "nsxdp-cli ens uplink ring get",
            _p("ens_enabled", "rx_ring_size", "tx_ring_size"), kind_mark="nsxdp-cli", source="§8a"),
    Command("nsxdp-cli ens uplink rss list", "esxi", "host", "nsxdp-cli ens uplink rss list",
            _p("ens_enabled", "rss"), source="§8a"),
    Command("nsxdp-cli ens uplink stats get -n {nic}", "esxi", "pnic", "nsxdp-cli ens uplink stats get",
            _p("ens_enabled") + _QUEUES, source="§8a"),
    Command("nsxdp-cli ens fpo stats get", "esxi", "host", "nsxdp-cli ens fpo stats get", source="§8a"),
    Command("nsxdp-cli ens port list", "esxi", "host", "nsxdp-cli ens port list", source="§8a"),
    Command("nsxdp-cli ens flow-table dump", "esxi", "host", "nsxdp-cli ens flow-table dump", source="§8a"),
    # --- Linux, in the order the local and the SSH collector run them (per interface: sysfs, then ethtool) -------
    Command("ls /sys/class/net", "linux", "host", None, run=True, source="sysfs-class-net(5)"),
    Command("ip -d -j link show", "linux", "host", "ip -j link show",
            _p("mtu", "mac", "admin_up", "link_up", "is_physical", "pci_address"), run=True, kind_mark="ip ",
            inventory=True, source="ip-link(8)"),
    Command("readlink /sys/class/net/{nic}", "linux", "pnic", "readlink /sys/class/net",
            _p("is_physical", "pci_address"), run=True, kind_mark="readlink /sys", source="sysfs-class-net(5)"),
    Command("cat /sys/class/net/{nic}/{attribute}", "linux", "pnic", "cat /sys",
            _p("mtu", "link_up", "link_speed_mbps", "duplex", "mac", "admin_up", "is_physical"), learn=_p("mtu"),
            learn_attributes=(("pnic.mtu", "mtu"),), run=True,
            attributes=("mtu", "operstate", "carrier", "speed", "duplex", "address", "flags"), kind_mark="cat /sys",
            source="sysfs-class-net(5)"),
    Command("cat /sys/class/net/{nic}/device/{attribute}", "linux", "pnic", "cat /sys",
            _p("vid", "did", "svid", "ssid", "pcie_speed_gts", "pcie_width", "pcie_speed_capable_gts",
               "pcie_width_capable", "numa_node"),
            learn=_p("pcie_speed_gts", "pcie_width", "pcie_speed_capable_gts", "pcie_width_capable"),
            learn_attributes=(("pnic.pcie_speed_gts", "current_link_speed"), ("pnic.pcie_width", "current_link_width"),
                              ("pnic.pcie_speed_capable_gts", "max_link_speed"),
                              ("pnic.pcie_width_capable", "max_link_width")), run=True,
            attributes=("vendor", "device", "subsystem_vendor", "subsystem_device", "current_link_speed",
                        "current_link_width", "max_link_speed", "max_link_width", "numa_node"),
            source="sysfs-bus-pci(5), §10"),
    Command("ethtool -i {nic}", "linux", "pnic", "ethtool -i",
            _p("driver", "driver_version", "firmware_version", "pci_address", "is_physical", "is_virtual_uplink"),
            learn=_p("driver", "driver_version", "firmware_version"), run=True, kind_mark="ethtool", source="§2"),
    Command("ethtool -k {nic}", "linux", "pnic", "ethtool -k",
            _p("geneve_offload", "geneve_rx_filter", "vxlan_offload", "tso", "lro", "receive_hashing", "fixed_offloads")
            + _PSEUDO,
            learn=_p("geneve_offload", "geneve_rx_filter"), run=True, source="§6"),
    Command("ethtool -l {nic}", "linux", "pnic", "ethtool -l",
            _QUEUES + _p("rx_queues_max", "tx_queues_max") + _PSEUDO,
            learn=_p("rx_queues"), run=True, source="§7"),
    Command("ethtool -x {nic}", "linux", "pnic", "ethtool -x", _p("rss", "rx_queues") + _PSEUDO, learn=_p("rss"),
            run=True,
            optional=True, source="§7"),
    Command("ethtool -c {nic}", "linux", "pnic", "ethtool -c", _COALESCE + _p("coalesce_adaptive_tx") + _PSEUDO,
            learn=_p("coalesce_adaptive_rx", "coalesce_rx_usecs"), run=True, optional=True, source="§9"),
    Command("ethtool -g {nic}", "linux", "pnic", "ethtool -g",
            _p("rx_ring_size", "tx_ring_size", "rx_ring_max", "tx_ring_max") + _PSEUDO, run=True,
            optional=True, source="§7"),
    Command("ethtool {nic}", "linux", "pnic", "ethtool", _p("link_up", "link_speed_mbps", "duplex") + _PSEUDO,
            learn=_p("link_up", "link_speed_mbps"), run=True, root=True, source="§4 (its Wake-on-LAN query needs "
            "CAP_NET_ADMIN: tests/faults/test_ssh_privileges.py)"),
    # the switch port of every interface, where lldpd or systemd-networkd listens to LLDP (once per host)
    Command("lldpctl -f json", "linux", "host", "lldpctl -f json", _NEIGHBOR, learn=_LEARN_NEIGHBOR, run=True,
            optional=True, root=True, kind_mark="lldpctl",
            source="lldpctl(8) (lldpd; its socket is for root and the _lldpd group)"),
    Command("networkctl --no-pager --full lldp", "linux", "host", "networkctl lldp",
            _p("neighbor_protocol", "neighbor_name", "neighbor_chassis_id", "neighbor_port",
               "neighbor_port_description"), run=True, optional=True, kind_mark="networkctl",
            source="networkctl(1) (systemd-networkd with LLDP= on the link)"),
    # --- Linux, read from captures -------------------------------------------------------------------------------
    Command("ip link show {nic}", "linux", "pnic", "ip link show", _p("mtu", "mac", "admin_up", "link_up",
                                                                       "is_physical", "pci_address", "master"),
            source="ip-link(8)"),
    Command("lspci -xxx -s {pci}", "linux", "pnic", "lspci -xxx", _PCI_IDS + _PCIE_LINK, root=True,
            kind_mark="lspci -x",
            source="§10 (lspci(8) -xxx: the whole standard configuration space, root only), decoded by "
                   "nicadvisor.parsers.pcie_config"),
    Command("lspci -vv -s {pci}", "linux", "pnic", "lspci -vv",
            _p("description", "driver", "numa_node", "pcie_speed_gts", "pcie_width", "pcie_speed_capable_gts",
               "pcie_width_capable", "vid", "did", "svid", "ssid", "pci_address"),
            root=True, kind_mark="lspci -vv",
            source="§10 (lspci(8): the capabilities are readable only by root; the collectors read the same link "
                   "from sysfs, readable by every user)"),
    Command("cat /proc/net/bonding/{bond}", "linux", "host", "cat /proc/net/bonding",
            _p("master", "link_up", "link_speed_mbps", "duplex", "is_physical"), kind_mark="cat /proc/net/bonding",
            source="Linux Documentation/networking/bonding.rst 'Querying Bonding Configuration'"),
    Command("netstat -i", "linux", "host", "netstat -i", _p("mtu", "admin_up", "link_up", "is_physical"),
            kind_mark="netstat -i", source="net-tools netstat(8) --interfaces (the flags are ifconfig's)"),
    Command("netstat -ie", "linux", "host", "netstat -ie", _p("mtu", "mac", "admin_up", "link_up", "is_physical"),
            source="net-tools netstat(8) -i -e (ifconfig's layout: 2.x 'flags=…<…>  mtu', 1.60 'Link encap … HWaddr')"),
    Command("nmcli device show", "linux", "host", "nmcli device show",
            _p("mac", "mtu", "link_up", "is_physical", "driver", "driver_version", "firmware_version"),
            kind_mark="nmcli", source="nmcli(1) device show (GENERAL.*, WIRED-PROPERTIES.CARRIER)"),
    Command("lspci -vmmkn", "linux", "host", "lspci -vmm",
            _p("pci_address", "vid", "did", "svid", "ssid", "description", "driver", "numa_node"),
            source="lspci(8) 'Machine readable output' (-vmm records: Slot, Class, Vendor, Device, SVendor, SDevice, "
                   "Driver, NUMANode; -mm one quoted line per device; -n IDs, -nn names and IDs)"),
    Command("dmesg", "linux", "host", "dmesg",
            _p("pci_address", "pcie_speed_gts", "pcie_width", "pcie_speed_capable_gts", "pcie_width_capable",
               "driver", "driver_version", "firmware_version", "link_up", "link_speed_mbps", "duplex")
            + _PSEUDO + ("module.version",),
            root=True, kind_mark="dmesg", source="§10 (dmesg(1): kernel.dmesg_restrict keeps it to root); the drivers' "
            "dev_info/netdev_info messages (issue 16 §5)"),
    # --- vSphere API (the live vSphere collector, and dumps of the same objects) ---------------------------------
    Command("vSphere API: PropertyCollector.RetrievePropertiesEx HostSystem", "vsphere", "host",
            "vSphere API recording",
            _p("pci_address", "is_physical", "driver", "vid", "did", "svid", "ssid", "description", "driver_version",
               "firmware_version", "link_speed_mbps", "link_up", "duplex", "mac", "ens_capable",
               "ens_interrupt_capable", "ens_enabled", "ens_mode", "is_virtual_uplink")
            + _SWITCH + ("switch.ens_mode", "switch.ipfix_enabled") + _VMKNIC[:-1]
            + ("host.product_version", "host.build"), source="§1.1, §5, §11"),
    Command("vSphere API: HostKernelModuleSystem.QueryModules", "vsphere", "module", "vSphere API recording",
            ("module.version", "module.options"), source="§1.1"),
    Command("vSphere API: HostNetworkSystem.QueryNetworkHint", "vsphere", "host", "vSphere API recording",
            _NEIGHBOR, source="§1.1 (LLDP/CDP, community.vmware vmware_host_vmnic_info)"),
    Command("govc object.collect -s -dump HostSystem:{host} config", "vsphere", "host", "govc object.collect dump",
            _p("pci_address", "driver", "vid", "did", "svid", "ssid", "description", "driver_version",
               "firmware_version", "link_speed_mbps", "link_up", "duplex", "mac", "ens_capable",
               "ens_interrupt_capable", "ens_enabled", "ens_mode", "is_physical", "is_virtual_uplink")
            + ("host.product_version", "host.build"), kind_mark="govc", source="§1.1"),
    Command("community.vmware.vmware_host_vmnic_info", "vsphere", "host", "vmware_host_vmnic_info",
            _p("pci_address", "is_physical", "driver", "description", "link_speed_mbps", "link_up", "duplex", "mac")
            + _NEIGHBOR + ("switch.kind", "switch.uplinks"), source="§1.1"),
    # --- NSX (Manager API as the live NSX collector reads it, and the Edge CLI) ---------------------------------
    Command("NSX API GET /api/v1/transport-nodes", "nsx", "host", "NSX API recording",
            ("switch.kind", "switch.nsx_host_switch", "switch.ens_mode", "switch.uplinks", "switch.mtu", "host.kind",
             "host.product_version"), source="§8b, nsx-api.md"),
    Command("NSX API GET /api/v1/transport-nodes/{id}/state", "nsx", "host", "NSX API recording",
            ("vmknic.is_tep", "vmknic.addresses", "vmknic.switch"), source="§8b, nsx-api.md"),
    Command("NSX API GET /api/v1/host-switch-profiles", "nsx", "host", "NSX API recording", ("switch.mtu",),
            source="§8b, nsx-api.md"),
    Command("NSX API GET /api/v1/global-configs/SwitchingGlobalConfig", "nsx", "host", "NSX API recording",
            ("switch.mtu",), source="§8b, nsx-api.md"),
    Command("NSX API GET /api/v1/transport-zones", "nsx", "host", None, source="nsx-api.md"),
    Command("NSX API GET /api/v1/node/version", "nsx", "host", None, source="nsx-api.md"),
    Command("get physical-ports", "nsx", "host", "nsx edge get physical-ports",
            _p("pci_address", "driver", "mac", "mtu", "link_up", "link_speed_mbps", "duplex", "tso", "vxlan_offload",
               "geneve_offload", "is_virtual_uplink") + _QUEUES, source="NSX Edge CLI reference"),
)


def by_family(family: str) -> list[Command]:
    """The entries whose output parser family ``family`` reads (empty when none: a parser without an entry)."""
    return [c for c in CATALOGUE if c.family == family]


def collected(platform: str) -> list[Command]:
    """The commands the collectors run on ``platform`` (``esxi``, ``linux``), in the order they run them."""
    return [c for c in CATALOGUE if c.platform == platform and c.run]


def esxcli_api_commands() -> list[Command]:
    """The entries the vSphere API can run as esxcli (``esxcli_api`` set), in catalogue order."""
    return [c for c in CATALOGUE if c.esxcli_api]


def not_over_api(esxcli: bool) -> list[tuple[Command, tuple[str, ...]]]:
    """The ESXi commands the collectors run (:func:`collected`) that an audit through the vSphere API leaves out,
    each with the facts only it reads (``("pnic.geneve_offload", …)``), in catalogue order: those the API cannot run
    as esxcli (no ``esxcli_api``; with ``esxcli`` False, also those it could) whose facts the API's own reads (the
    ``vsphere`` entries, and the esxcli ones it runs) do not all give. The host kind, which every API read states,
    is not counted."""
    api = {f for c in CATALOGUE if c.platform == "vsphere" for f in c.facts}
    if esxcli:
        api |= {f for c in collected("esxi") if c.esxcli_api for f in c.facts}
    out = []
    for c in collected("esxi"):
        if esxcli and c.esxcli_api:
            continue
        only = tuple(f for f in c.facts if f not in api and f != "host.kind")
        if only:
            out.append((c, only))
    return out


def bundle_command(path: str) -> str | None:
    """The command whose output the vm-support bundle file ``path`` (below the bundle root, ``commands/…`` or
    ``var/…``) holds when the catalogue names that file: the entry's ``text`` for a ``commands/`` file,
    ``cat /<path>`` for a log; else None."""
    rel = path.replace("\\", "/")
    for c in CATALOGUE:
        if rel in c.bundle_files:
            return c.text if rel.startswith("commands/") else f"cat /{rel}"
    return None


def advised(facts: tuple[str, ...] | list[str], platform: str, obj: str = "pnic") -> list[str]:
    """The read-only command(s) that report ``facts`` (field names of ``obj``: ``pnic``, ``vmknic``, ``switch``,
    ``host``) on ``platform``: each entry that is the advised read of one of them (``learn``; only entries the
    collectors run), in catalogue order, as its ``text`` with ``{attribute}`` filled from ``learn_attributes``
    (one command per attribute read); every command once. ``[]`` when no command of that platform reports them.
    Placeholders other than ``{attribute}`` (``{nic}``) are kept."""
    return list(_advised(tuple(facts), platform, obj))


@functools.lru_cache(maxsize=1024)
def _advised(facts: tuple[str, ...], platform: str, obj: str) -> tuple[str, ...]:
    # Once per (facts, platform, object): the catalogue is a constant, and every capability-matrix cell and
    # "Finish this audit" line asks it (a fleet audit of 4,000 hosts asked it millions of times).
    wanted = {f"{obj}.{f}" for f in facts}
    out: list[str] = []
    for c in CATALOGUE:
        if c.platform != platform or not wanted.intersection(c.learn):
            continue
        if c.learn_attributes:
            shown = [c.text.replace("{attribute}", attr) for fact, attr in c.learn_attributes if fact in wanted]
        else:
            shown = [c.text]
        out.extend(s for s in shown if s not in out)
    return tuple(out)


def how_to_learn(facts: tuple[str, ...] | list[str], platform: str, obj: str = "pnic") -> str:
    """:func:`advised` joined by `` and `` as an unknown cell names it (``ethtool -l {nic} and ethtool -x {nic}``);
    ``""`` when no command of that platform reports them."""
    return " and ".join(advised(facts, platform, obj))


def discovery(platform: str) -> Command:
    """The command the collectors run first on ``platform`` (``esxi``, ``linux``): its output names the pNICs (and on
    ESXi their driver modules) the per-pNIC and per-module commands are run for (``esxcli network nic list``,
    ``ls /sys/class/net``)."""
    return collected(platform)[0]


def inventory(platform: str) -> Command:
    """The command that lists every pNIC of a host of ``platform`` with its link state and MTU (``inventory``)."""
    return next(c for c in CATALOGUE if c.platform == platform and c.inventory)


def kind_of_command(command: str) -> str | None:
    """The host kind (``esxi``/``linux``) a command's normalised text tells, or None: ESXi when it holds an ESXi
    or vSphere entry's ``kind_mark`` anywhere (ESXi commands come wrapped: ``localcli``, PowerCLI, ``ansible``) or
    names a vmnic; Linux when it starts with a Linux entry's mark (a Linux word such as ``ip`` could sit inside
    another command)."""
    if any(c.kind_mark in command for c in CATALOGUE if c.kind_mark and HOST_KIND.get(c.platform) == "esxi") \
            or "vmnic" in command:
        return "esxi"
    if command.startswith(tuple(c.kind_mark for c in CATALOGUE if c.kind_mark and c.platform == "linux")):
        return "linux"
    return None


def placeholders(text: str) -> list[str]:
    """The placeholder names in a command text (``{nic}`` → ``nic``)."""
    return re.findall(r"\{(\w+)\}", text)
