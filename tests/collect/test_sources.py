"""Capture folders, single files and vm-support bundles become host groups; bad input becomes
problems that name the file, and never stops the rest of the audit."""
from __future__ import annotations

import io
import os
import shutil
import tarfile
from pathlib import Path

from capturetools import CAPTURES, FIXTURES

from nicadvisor.parsers.assemble import assemble_host
from nicadvisor.collect.bundle import command_for, host_name_from_bundle, read_bundle
from nicadvisor.collect.sources import gather

VSWITCH = "esxi_esxcfg-vswitch-l_vss_and_dvs_mtu.txt"
VMKNIC = "esxi_esxcfg-vmknic-l_mtu_9000.txt"


def _lab(tmp_path: Path) -> Path:
    lab = tmp_path / "lab"
    (lab / "esx-a").mkdir(parents=True)
    (lab / "esx-b").mkdir()
    shutil.copy(CAPTURES / VSWITCH, lab / "esx-a")
    shutil.copy(CAPTURES / VMKNIC, lab / "esx-a")
    shutil.copy(CAPTURES / "esxi_esxcli_vswitch_standard_list_mtu.txt", lab / "esx-b")
    return lab


def test_lab_folder_groups_by_subfolder(tmp_path):
    groups, problems = gather([_lab(tmp_path)])
    assert problems == []
    assert [g.name for g in groups] == ["esx-a", "esx-b"]
    assert len(groups[0].captures) == 2


def test_host_header_overrides_folder(tmp_path):
    folder = tmp_path / "mixed"
    folder.mkdir()
    text = (CAPTURES / VSWITCH).read_text()
    (folder / "one.txt").write_text("# host: esx-z\n" + text)
    groups, _ = gather([folder])
    assert [g.name for g in groups] == ["esx-z"]


def test_single_file_is_one_host_named_by_folder():
    groups, problems = gather([CAPTURES / VSWITCH])
    assert problems == [] and groups[0].name == "captures" and len(groups[0].captures) == 1


def test_bad_inputs_are_reported_and_rest_is_kept(tmp_path):
    lab = _lab(tmp_path)
    bad = lab / "esx-a"
    (bad / "notes.txt").write_text("just some prose, no header\n")
    (bad / "garbage.bin").write_bytes(bytes(range(256)) * 4)
    text = (CAPTURES / VMKNIC).read_text()
    (bad / "truncated.txt").write_text(text[: text.index("\n", text.index("# command:")) + 1] + "Interface  Port Gr")
    (bad / "unknown.txt").write_text("# command: frobnicate --all\nsome output\n")
    (lab / "empty").mkdir()
    (lab / "broken.tgz").write_bytes(b"this is not gzip")
    groups, problems = gather([lab, tmp_path / "missing"])
    by_source = {Path(p.source).name: p.message for p in problems}
    assert "notes.txt" in by_source and "no '# command:' header" in by_source["notes.txt"]
    assert "binary data" in by_source["garbage.bin"]
    assert "not a readable .tgz" in by_source["broken.tgz"]
    assert "no such file" in by_source["missing"]
    assert "empty" in by_source and "no capture files" in by_source["empty"]
    host, host_problems, _ = assemble_host(next(g for g in groups if g.name == "esx-a"))
    msgs = {Path(p.source).name: p.message for p in host_problems}
    assert "no parser for the command 'frobnicate --all'" in msgs["unknown.txt"]
    assert msgs["truncated.txt"].startswith("not understood")
    # the good captures of the same host still gave their facts
    assert any(s.mtu == 9000 or s.mtu == 1500 for s in host.switches)
    assert host.vmknics


def _member(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def _body(fixture: Path) -> bytes:
    """The verbatim output of a real bundle excerpt, without its capture header lines."""
    lines = fixture.read_text().splitlines(keepends=True)
    return "".join(l for l in lines if not l.startswith("# ")).encode()


def test_vm_support_bundle_maps_commands(tmp_path):
    vs = FIXTURES / "vm-support"
    bundle = tmp_path / "esx-prod-vmware01-2013-08-12--14.06.tgz"
    with tarfile.open(bundle, "w:gz") as tar:
        root = "esx-prod-vmware01-2013-08-12--14.06/"
        _member(tar, root + "commands/vmware_-vl.txt", _body(vs / "bundle_commands_vmware_-vl.txt_esxi510_elatov.txt"))
        _member(tar, root + "commands/esxcfg-vswitch_-l.txt",
                _body(vs / "bundle_commands_esxcfg-vswitch_-l.txt_DVS_section_elatov.txt"))
        _member(tar, root + "commands/unrelated_-x.txt", b"ignored")
    captures, skipped = read_bundle(bundle)
    assert skipped == []
    assert sorted(c.command for c in captures) == ["esxcfg-vswitch -l", "vmware -vl"]
    groups, problems = gather([bundle])
    assert problems == [] and groups[0].name == "prod-vmware01"
    host, _, _ = assemble_host(groups[0])
    assert host.kind == "esxi"
    assert host.switches and all(s.kind == "distributed" for s in host.switches if s.kind)


def test_bundle_file_name_rule():
    assert command_for("commands/localcli_network-nic-list.txt") == "esxcli network nic list"
    assert command_for("commands/nicinfo.sh.txt") == "nicinfo.sh"
    assert command_for("var/run/log/vmkernel.log") == "cat /var/run/log/vmkernel.log"
    assert command_for("commands/vsi_traverse_-s.txt") is None
    assert host_name_from_bundle("esx-prod-vmware01-2013-08-12--14.06.tgz") == "prod-vmware01"
    assert host_name_from_bundle("weird.tgz") == "weird"


def test_bundle_fragments_are_joined(tmp_path):
    bundle = tmp_path / "b"
    (bundle / "commands").mkdir(parents=True)
    body = _body(FIXTURES / "vm-support" / "bundle_commands_vmware_-vl.txt_esxi510_elatov.txt")
    half = len(body) // 2
    (bundle / "commands" / "vmware_-vl.txt.FRAG-00000").write_bytes(body[:half])
    (bundle / "commands" / "vmware_-vl.txt.FRAG-00001").write_bytes(body[half:])
    captures, _ = read_bundle(bundle)
    assert captures[0].text.encode() == body


def test_old_bundle_with_nic_data_only_in_nicinfo(tmp_path):
    """ESXi 5.x bundles carry pNIC data only in commands/nicinfo.sh.txt (vm-support-bundles.md §1.3)."""
    root = "esx-lab01-2013-01-02--10.00/"
    bundle = tmp_path / (root.rstrip("/") + ".tgz")
    with tarfile.open(bundle, "w:gz") as tar:
        _member(tar, root + "commands/nicinfo.sh.txt",
                _body(FIXTURES / "vm-support" / "bundle_commands_nicinfo.sh.txt_head11_be2net_esxi5x_elatov.txt"))
    groups, problems = gather([bundle])
    assert problems == []
    host, host_problems, _ = assemble_host(groups[0])
    assert host.name == "lab01" and host.kind == "esxi"
    vmnic2 = host.pnic("vmnic2")
    assert vmnic2.driver == "be2net" and vmnic2.link_speed_mbps == 4000 and vmnic2.mtu == 1500
    assert vmnic2.evidence["driver"].source.endswith(".tgz:commands/nicinfo.sh.txt")
    assert vmnic2.evidence["driver"].command == "nicinfo.sh"


def test_truncated_bundle_keeps_what_was_readable_and_the_rest_of_the_audit(tmp_path):
    vs = FIXTURES / "vm-support"
    full = tmp_path / "full.tgz"
    with tarfile.open(full, "w:gz") as tar:
        root = "esx-h2-2020-01-01--10.00/"
        _member(tar, root + "commands/vmware_-vl.txt", _body(vs / "bundle_commands_vmware_-vl.txt_esxi510_elatov.txt"))
        # incompressible filler after it, so that cutting the file leaves the first member intact
        _member(tar, root + "commands/zz-filler.txt", os.urandom(100_000))
    data = full.read_bytes()
    bundle = tmp_path / "esx-h2-2020-01-01--10.00.tgz"
    bundle.write_bytes(data[: len(data) // 2])
    good = tmp_path / "esx-good"
    good.mkdir()
    shutil.copy(CAPTURES / VSWITCH, good)
    groups, problems = gather([bundle, good])
    names = {g.name for g in groups}
    assert names == {"h2", "esx-good"}
    h2 = next(g for g in groups if g.name == "h2")
    assert [c.command for c in h2.captures] == ["vmware -vl"]
    assert any("truncated or corrupt" in p.message for p in h2.problems)
    (tmp_path / "junk.tgz").write_bytes(data[:40])
    _, problems = gather([tmp_path / "junk.tgz"])
    assert "truncated or corrupt" in problems[0].message or "not a readable .tgz" in problems[0].message


def test_powershell_encodings_are_read(tmp_path):
    """PowerShell 5.1 redirects as UTF-16 with a BOM, PowerShell 7 / Notepad may add a UTF-8 BOM."""
    text = (CAPTURES / "esxi_powercli_esxcli_nic_list_bnx2x_qlogic57810.txt").read_text()
    (tmp_path / "h").mkdir()
    (tmp_path / "h" / "utf16.txt").write_bytes(text.encode("utf-16"))
    (tmp_path / "h" / "bom8.txt").write_bytes(text.encode("utf-8-sig"))
    groups, problems = gather([tmp_path / "h"])
    assert problems == [] and len(groups[0].captures) == 2
    assert groups[0].captures[0].text == groups[0].captures[1].text
    host, _, _ = assemble_host(groups[0])
    assert host.pnics and all(p.driver for p in host.pnics)


def test_facts_of_another_pci_function_under_the_same_name_are_kept_apart():
    """Real capture whose 'esxcli hardware pci list' record names vmnic1 at 0000:03:00.0 (a Pensando PF) while
    the esxcfg-nics table above it has vmnic1 at 0000:65:00.1 (an X550T): the IDs must not be mixed."""
    groups, _ = gather([CAPTURES / "esxi_g_esxcfg-nics_-l_and_esxcli_hardware_pci_list_ionic_en_esxi67_pensando-guide.txt"])
    host, problems, _ = assemble_host(groups[0])
    vmnic1 = host.pnic("vmnic1")
    assert vmnic1.pci_address == "0000:65:00.1" and vmnic1.driver == "ixgbe"
    assert vmnic1.vid is None and vmnic1.did is None, "the Pensando IDs belong to 0000:03:00.0"
    assert any(p.message.startswith("conflict: vmnic1 pci_address is '0000:65:00.1'") for p in problems)
