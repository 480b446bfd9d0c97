"""A sosreport (a Linux host's support bundle) is read as one host: its NIC outputs by the command each file name
encodes, from the extracted folder or its archive, on a real sos tree (canonical/hotsos, see sosreports/README.md)."""
from __future__ import annotations

import os
import shutil
import tarfile
from pathlib import Path

import pytest
from capturetools import CAPTURES

from nicadvisor.collect.bundle import BundleError
from nicadvisor.collect.sosreport import read_sosreport
from nicadvisor.collect.sources import gather
from nicadvisor.parsers.assemble import assemble_host
from nicadvisor.parsers.sosreport import command_for, host_name

TREE = Path(__file__).resolve().parent / "sosreports" / "hotsos-kubernetes"
HOST = "juju-110cc2-k8stest-4"  # its sos_commands/host/hostname

#: What the real tree's files are read as (every other file of the tree is not read).
READ = {
    "sos_commands/networking/ethtool_ens3": "ethtool ens3",
    "sos_commands/networking/ethtool_-i_ens3": "ethtool -i ens3",
    "sos_commands/networking/ethtool_-k_ens3": "ethtool -k ens3",
    "sos_commands/networking/ethtool_-l_ens3": "ethtool -l ens3",
    "sos_commands/networking/ethtool_-c_ens3": "ethtool -c ens3",
    "sos_commands/networking/ethtool_-g_ens3": "ethtool -g ens3",
    "sos_commands/networking/ethtool_-i_flannel.1": "ethtool -i flannel.1",
    "sos_commands/networking/ethtool_-k_flannel.1": "ethtool -k flannel.1",
    "sos_commands/networking/ip_-d_address": "ip -d address",
    "sos_commands/networking/ip_-s_-d_link": "ip -s -d link",
    "sos_commands/pci/lspci_-nnvv": "lspci -nnvv",
}


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)).replace(os.sep, "/") for p in root.rglob("*") if p.is_file())


def test_file_names_map_to_catalogue_commands():
    names = _files(TREE)
    assert {n: command_for(n) for n in names if command_for(n)} == READ
    # not read: ethtool -S (no parser), the loopback, ip -o addr (no flags or MTU), lspci -tv, the hostname file
    assert {n for n in names if command_for(n) is None} == {
        "sos_commands/networking/ethtool_-S_ens3", "sos_commands/networking/ethtool_-i_lo",
        "sos_commands/networking/ethtool_lo", "sos_commands/networking/ip_-o_addr", "sos_commands/pci/lspci_-tv",
        "sos_commands/host/hostname"}
    # a namespace's ports are not the host's; a long option is not read; an interface name keeps its "_"
    assert command_for("sos_commands/networking/ip_netns_exec_qr1_ethtool_-k_qr-3a70b31c-3f") is None
    assert command_for("sos_commands/networking/ethtool_--show-eee_ens3") is None
    assert command_for("sos_commands/networking/ethtool_-k_vxlan_sys_4789") == "ethtool -k vxlan_sys_4789"
    assert command_for("proc/net/bonding/bond0") == "cat /proc/net/bonding/bond0"


def test_host_name_from_hostname_else_report_folder():
    assert host_name("sosreport-web01-12345-2024-01-31-abcdefg", None) == "web01"
    assert host_name("sosreport-clu1-20181213112633", "") == "clu1"  # sos 3.x
    assert host_name("anything", "db-7.example.org\n") == "db-7.example.org"
    assert host_name("plain", "no such host name!") == "plain"


def test_real_tree_is_one_host_with_its_nic_facts():
    name, captures, skipped = read_sosreport(TREE)
    assert (name, skipped) == (HOST, [])
    assert sorted(c.command for c in captures) == sorted(READ.values())
    assert all(c.host == HOST and c.source.startswith(f"{TREE}:sos_commands/") for c in captures)
    groups, problems = gather([TREE.parent])  # a lab folder holding the report: the report is one host
    assert problems == [] and [g.name for g in groups] == [HOST]
    host, input_problems, _ = assemble_host(groups[0])
    assert input_problems == []
    ens3 = host.pnic("ens3")
    # ethtool -i, ip -d address, lspci -nnvv of the real tree: a virtio port at MTU 8958 without Geneve offload
    assert (host.kind, ens3.driver, ens3.mtu, ens3.vid, ens3.did, ens3.pci_address, ens3.geneve_offload) == (
        "linux", "virtio_net", 8958, "1af4", "1000", "0000:00:03.0", False)
    assert [n.name for n in host.pnics if n.is_physical] == ["ens3"]  # flannel.1 is a VXLAN device, lo not read


def _pack(tmp_path: Path, name: str, mode: str) -> Path:
    top = f"sosreport-{HOST}-2023-01-20-abcdefg"
    out = tmp_path / name
    with tarfile.open(out, mode) as tar:
        tar.add(TREE, arcname=top)
    return out


@pytest.mark.parametrize("name,mode", [("report.tar.xz", "w:xz"), ("report.tar.gz", "w:gz")])
def test_archive_reads_as_the_folder(tmp_path, name, mode):
    archive = _pack(tmp_path, name, mode)
    host, captures, skipped = read_sosreport(archive)
    assert (host, skipped) == (HOST, [])
    by_rel = {c.source.split(":", 1)[1]: c for c in captures}
    assert {rel: c.command for rel, c in by_rel.items()} == READ
    assert by_rel["sos_commands/networking/ethtool_-k_ens3"].text == (
        TREE / "sos_commands/networking/ethtool_-k_ens3").read_text()
    groups, problems = gather([archive])  # .tar.xz, and a .tar.gz that is no vm-support bundle
    assert problems == [] and [g.name for g in groups] == [HOST] and len(groups[0].captures) == len(READ)


def test_links_leaving_the_report_are_not_followed(tmp_path):
    tree = tmp_path / "sosreport-x"
    shutil.copytree(TREE, tree)
    secret = tmp_path / "secret"
    secret.write_text("Features for eth9:\ntx-udp_tnl-segmentation: on\n")
    (tree / "sos_commands/networking/ethtool_-k_eth9").symlink_to(secret)
    _name, captures, skipped = read_sosreport(tree)
    assert "ethtool -k eth9" not in {c.command for c in captures}
    assert any("ethtool_-k_eth9" in s and "outside the bundle" in s for s in skipped)
    archive = tmp_path / "linked.tar.xz"
    with tarfile.open(archive, "w:xz") as tar:
        tar.add(tree, arcname="sosreport-x")
    _name, captures, skipped = read_sosreport(archive)
    assert "ethtool -k eth9" not in {c.command for c in captures}
    assert any("ethtool_-k_eth9" in s and "not a regular file" in s for s in skipped)


def test_not_a_sosreport_is_a_named_problem(tmp_path):
    (tmp_path / "plain").mkdir()
    with pytest.raises(BundleError, match="sos_commands"):
        read_sosreport(tmp_path / "plain")
    bad = tmp_path / "broken.tar.xz"
    bad.write_bytes(b"\xfd7zXZ\x00" + b"\x00" * 64)
    groups, problems = gather([bad])
    assert groups == [] and len(problems) == 1 and problems[0].source == str(bad)


def test_an_xz_archive_of_capture_files_is_still_read(tmp_path):
    folder = tmp_path / "nic-advisor-esx-a"
    folder.mkdir()
    shutil.copy(CAPTURES / "esxi_esxcfg-vmknic-l_mtu_9000.txt", folder)
    archive = tmp_path / "esx-a.tar.xz"
    with tarfile.open(archive, "w:xz") as tar:
        tar.add(folder, arcname=folder.name)
    groups, problems = gather([archive])
    assert problems == [] and [g.name for g in groups] == ["esx-a"] and len(groups[0].captures) == 1
    (tmp_path / "empty").mkdir()
    with tarfile.open(tmp_path / "nothing.tar.xz", "w:xz") as tar:
        tar.add(tmp_path / "empty", arcname="empty")
    groups, problems = gather([tmp_path / "nothing.tar.xz"])
    assert groups == [] and [p.message for p in problems] == [
        "neither a sosreport (no sos_commands/ folder) nor an archive of capture files"]


def test_cli_audits_a_sosreport(tmp_path, capsys):
    import json

    from nicadvisor.cli import main

    out = tmp_path / "a.json"
    # a virtual machine: its link speed ("Speed: Unknown!") and RSS stay undecided, so NOT RATED (exit 2)
    assert main(["audit", "--quiet", "--no-history", "--capture", str(TREE), "--json", str(out)]) == 2
    report = json.loads(out.read_text())
    (host,) = report["hosts"]
    assert host["name"] == HOST and host["kind"] == "linux"
    assert {(p["name"], p["mtu"], p["driver"]) for p in host["pnics"]} >= {("ens3", 8958, "virtio_net")}
    assert report["inputs_not_understood"] == []
    (verdict,) = report["verdict"]["hosts"]
    assert [m["check"] for m in verdict["missing"]] == ["link", "rx_filter_or_rss"]
