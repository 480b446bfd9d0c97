"""The command catalogue (nicadvisor.commands) is the one list of commands: every parser family, transport and hint
agrees with it, and each family has a real recorded output (or is named below as having none)."""
from __future__ import annotations

import dataclasses
import shlex

import pytest

from capturetools import real_outputs
from nicadvisor import commands
from nicadvisor.collect import local_linux, ssh_commands, vsphere_esxcli_commands
from nicadvisor.collect.bundle import command_for
from nicadvisor.model import Host, KernelModule, PhysicalNic, Switch, VmkernelNic
from nicadvisor.parsers import registry
from nicadvisor.parsers.base import CommandLine
from nicadvisor.parsers.linux import sysfs

MODEL = {"pnic": PhysicalNic, "vmknic": VmkernelNic, "switch": Switch, "module": KernelModule, "host": Host}

#: Families no public recorded output exists for (searched: shared/fixtures, design/research), or whose output is
#: only ever recorded live by the tests (this machine's interfaces; govmomi's vcsim).
WITHOUT_RECORDED_OUTPUT = {
    "vsish pciConfigHeader": "no public output found (esxi-public/8_pcie_link_on_esxi.md): recorded by the collectors, "
                             "its Numa node line read as pci2numa.sh documents it",
    "lspci -d": "no public ESXi output found; its reader is the decoder of pciutils' dump layout, tested on pciutils' own "
                "dumps read as lspci -d (tests/parsers/test_pcie_config.py)",
    "ip -j link show": "read live from this machine (tests/test_local_linux.py)",
    "readlink /sys/class/net": "read live from this machine (tests/test_local_linux.py)",
    "vSphere API recording": "recorded live from vcsim (tests/live/test_vsphere_live.py)",
}


def _fields(cls) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)} - {"evidence", "name"}


def test_every_parser_family_has_an_entry_and_every_entry_a_parser():
    registered = set(registry.families())
    named = {c.family for c in commands.CATALOGUE if c.family is not None}
    assert registered == named
    with pytest.raises(ValueError, match="no entry in the command catalogue"):
        registry.register(r"^frobnicate\b", "frobnicate")


def test_entries_are_well_formed():
    texts = [c.text for c in commands.CATALOGUE]
    assert len(texts) == len(set(texts)), "a command is listed twice"
    for c in commands.CATALOGUE:
        assert c.platform in commands.PLATFORMS and c.scope in commands.SCOPES, c
        assert set(c.learn) <= set(c.facts), c
        for fact in c.facts:
            obj, _, field = fact.partition(".")
            assert field in _fields(MODEL[obj]), f"{c.text}: {fact} is not a model fact"
        names = commands.placeholders(c.text)
        assert "nic" not in names or c.scope == "pnic", c
        assert "module" not in names or c.scope == "module", c
        if c.run and c.scope in ("pnic", "module"):  # a collector fills the placeholder of its scope
            assert {"pnic": "nic", "module": "module"}[c.scope] in names, c
        assert ("attribute" in names) == bool(c.attributes), c
        assert not (c.root and c.platform != "linux"), c


def test_one_advised_read_per_fact_and_platform():
    seen: dict[tuple[str, str], str] = {}
    for c in commands.CATALOGUE:
        for fact in c.learn:
            assert (c.platform, fact) not in seen, f"{fact} on {c.platform}: {seen[(c.platform, fact)]} and {c.text}"
            seen[(c.platform, fact)] = c.text


def test_how_to_learn_names_the_advised_commands():
    assert commands.how_to_learn(("rss", "rx_queues"), "linux") == "ethtool -l {nic} and ethtool -x {nic}"
    assert commands.how_to_learn(("rss", "rx_queues"), "esxi") == "vsish -e get /net/pNics/{nic}/rxqueues/info"
    assert commands.how_to_learn(("ens_capable",), "linux") == ""
    # ESXi's lspci -v prints no PCIe link (esxi_lspci-v_aquantia_aqc108_shows_no_pcie_caps.txt): lspci -d dumps the
    # configuration space that holds it (issue 24 §1)
    assert commands.how_to_learn(("pcie_width",), "esxi") == "lspci -d"
    # Linux: the PCIe link from sysfs, as the collectors read it (lspci -vv needs root and no collector runs it)
    assert commands.how_to_learn(("pcie_width",), "linux") == "cat /sys/class/net/{nic}/device/current_link_width"
    assert commands.how_to_learn(("mtu",), "linux") == "cat /sys/class/net/{nic}/mtu"
    assert commands.advised(("mtu",), "switch") == [] and commands.advised(("mtu",), "esxi", "switch") == [
        "esxcfg-vswitch -l"]
    assert commands.how_to_learn(("product_version",), "esxi", "host") == "vmware -vl"


def test_every_advised_read_is_a_command_the_collectors_run():
    """The advice of an unknown cell and of "Finish this audit" names only commands the SSH collector and the
    collector script run: a user who runs the script has run every command the audit asks for."""
    for c in commands.CATALOGUE:
        if c.learn and c.platform in ("esxi", "linux"):
            assert c.run, f"{c.text} is advised but no collector runs it"
        for fact, attribute in c.learn_attributes:
            assert fact in c.learn and attribute in c.attributes, (c.text, fact, attribute)
    assert commands.discovery("esxi").text == "esxcli network nic list"
    assert commands.discovery("linux").text == "ls /sys/class/net"
    assert [commands.inventory(p).text for p in ("esxi", "linux")] == ["esxcfg-nics -l", "ip -d -j link show"]
    assert all(commands.inventory(p).run for p in ("esxi", "linux"))


def test_the_ssh_allowlist_is_the_catalogue_and_accepts_each_command():
    esxi = commands.collected("esxi")
    assert [t.words for t in ssh_commands.ESXI_TEMPLATES] == [c.words for c in esxi]
    assert ssh_commands.ESXI_NIC_LIST.words == ("esxcli", "network", "nic", "list")
    for c in esxi:
        argv = [w.replace("{nic}", "vmnic1000202").replace("{module}", "ixgben").replace("{seg}", "0")
                .replace("{bus}", "94").replace("{slot}", "0").replace("{func}", "1") for w in c.words]
        assert ssh_commands.check("esxi", argv) == shlex.join(argv)
    assert [t.words for t in ssh_commands.esxi_templates("nic")] == [c.words for c in esxi if c.scope == "pnic"]
    with pytest.raises(ssh_commands.CommandRefused):
        ssh_commands.check("esxi", ["esxcli", "network", "nic", "get", "-n", "vmnic1; reboot"])


def test_the_linux_collectors_run_the_catalogue():
    linux = commands.collected("linux")
    assert local_linux.ETHTOOL_OPTIONS == ("-i", "-k", "-l", "-x", "-c", "-g", "")
    for c in linux:
        attrs = c.attributes or ("",)
        for attr in attrs:
            argv = [w.replace("{nic}", "enp2s0").replace("{attribute}", attr) for w in c.words]
            assert local_linux.allowed(argv), argv
            assert ssh_commands.check("linux", argv)
    # the sysfs parser reads every attribute the collectors read
    assert set(local_linux.NET_ATTRS) <= sysfs._NET_ATTRS and set(local_linux.PCI_ATTRS) <= set(sysfs._PCI_ATTRS)


def test_the_vsphere_api_allowlist_is_the_catalogue_and_each_command_has_a_row_reader():
    words = [c.esxcli_api for c in commands.esxcli_api_commands()]
    assert list(vsphere_esxcli_commands.ALLOWED) == words
    for w in words:
        assert registry.rows_reader(w) is not None, w
    with pytest.raises(ValueError, match="no esxcli_api command"):
        registry.register_rows(("system", "shutdown", "reboot"))


def test_each_bundle_file_is_read_by_its_family_parser():
    for c in commands.CATALOGUE:
        for path in c.bundle_files:
            command = command_for(path)
            assert command is not None, path
            families = {f for f, _fn in registry.parsers_for(CommandLine.parse(registry.normalise(command)))}
            assert c.family in families, (path, command, families)


def test_facts_a_family_reads_from_real_outputs_are_declared_in_the_catalogue():
    declared: dict[str, set[str]] = {}
    for c in commands.CATALOGUE:
        if c.family:
            declared.setdefault(c.family, set()).update(c.facts)
    understood: set[str] = set()
    for name, command, text, notes in real_outputs():
        # the registered families reading this output (an API reader may name its result otherwise: "nsx-api")
        families = {f for c in registry.split_commands(registry.resolve_command(command, notes, text))
                    for f, _fn in registry.parsers_for(c)}
        for r in registry.parse_output(command, text, notes):
            family = r.family if r.family in declared else next(iter(families & set(declared)), r.family)
            if r.understood:
                understood.add(family)
            read = {f"{obj}.{field}" for obj, table in (("pnic", r.pnics), ("vmknic", r.vmknics),
                                                          ("switch", r.switches), ("module", r.modules))
                    for facts in table.values() for field in facts}
            read |= {f"host.{field}" for field in r.host}
            assert read <= declared[family], f"{name}: {family} read {sorted(read - declared[family])}"
    # every family has a real recorded output, except those named (a new parser comes with its output)
    assert set(registry.families()) - understood == set(WITHOUT_RECORDED_OUTPUT)


def test_kind_of_command():
    assert commands.kind_of_command("localcli network nic list".replace("localcli", "esxcli")) == "esxi"
    assert commands.kind_of_command("ethtool -i vmnic0") == "esxi"  # ESXi 4.x ethtool names a vmnic
    assert commands.kind_of_command("ethtool -k eth0") == "linux"
    assert commands.kind_of_command("lspci -vv -s 0000:01:00.0") == "linux"
    assert commands.kind_of_command("frobnicate --all") is None


def _finish_commands_of_every_real_input():
    """(host kind, command) of every "Finish this audit" command and every unknown cell's advice over the demo lab
    and every real recorded output, each read as a host of its own."""
    from capturetools import CAPTURES, TEST_CAPTURES
    from nicadvisor.collect.sources import gather
    from nicadvisor.model.capabilities import UNKNOWN, capability_matrix
    from nicadvisor.model.readiness import commands_for
    from nicadvisor.model.verdict import host_verdict
    from nicadvisor.paths import demo_lab_dir
    from nicadvisor.parsers.assemble import assemble_host
    from nicadvisor.services.audit import evaluate_findings

    groups, _ = gather([demo_lab_dir()])
    for folder in (CAPTURES, TEST_CAPTURES):
        for path in sorted(folder.glob("*.txt")):
            more, _ = gather([path])
            groups += more
    hosts = [assemble_host(g)[0] for g in groups]
    findings = evaluate_findings(hosts)
    out = set()
    for host in hosts:
        kind = host.kind or ""  # unknown: the pNIC's name chose the platform
        out |= {(kind, c) for c in host_verdict(host, findings).finish}
        for row in capability_matrix(host, findings):
            for column, cell in row.cells.items():
                if cell.status == UNKNOWN:
                    out |= {(kind, c) for c in commands_for(column, host, host.pnic(row.pnic))}
    return sorted(out)


def test_every_command_finish_this_audit_names_is_allowlisted_and_run_by_the_collectors():
    """Issue 16 §2: "Finish this audit" names exactly commands the collector script and the SSH collector run: each
    passes the SSH allowlist as it is written (names filled in and quoted) and is a catalogue command the collectors
    run (a ``#`` line says what no read-only command reads)."""
    named = _finish_commands_of_every_real_input()
    assert {k for k, _c in named} == {"esxi", "linux", ""} and len(named) > 50
    collected = {k: [c.words for c in commands.collected(k)] for k in ("esxi", "linux")}
    for kind, command in named:
        if command.startswith("#"):
            continue
        argv = shlex.split(command)
        fits = []
        for platform in [kind] if kind else ["esxi", "linux"]:
            try:
                sent = ssh_commands.check(platform, argv)
            except ssh_commands.CommandRefused:
                continue
            if sent == command and any(len(w) == len(argv) and all(_fits(t, a) for t, a in zip(w, argv))
                                       for w in collected[platform]):
                fits.append(platform)
        assert fits, f"{command} ({kind or 'unknown kind'})"


def _fits(template: str, word: str) -> bool:
    """A catalogue word (``/net/pNics/{nic}/properties``, ``/sys/class/net/{nic}/{attribute}``) matches ``word``."""
    import re

    parts = re.split(r"(\{\w+\})", template)
    return re.fullmatch("".join("[^/]+" if p.startswith("{") else re.escape(p) for p in parts), word) is not None
