"""Issue 16 §3: the ESXi release is read from every input that states it. ``esxcli system version get`` (its own
capture, and the vm-support member ``commands/localcli_system-version-get.txt``) gives the version, the build and the
update level; ``vmware -lv`` with a listing from the same session gives a whole ESXi 6.0 host.

Real outputs (tests/parsers/captures, each with its # source: line): an ESXi 6.0 Update 1 shell session (archive id
81706785), the nested ESXi 9.0.0 session of shared/fixtures/captures/unattributed_esxi9_nested_nvmxnet3_nic_list_get
(archive id 30336000303), and elatov's ESXi 6.0.0 GA Mac mini (elatov/elatov.github.io)."""
from __future__ import annotations

import io
import tarfile
from pathlib import Path

from nicadvisor.parsers.assemble import HostInputs, assemble_host
from nicadvisor.collect.sources import read_capture
from nicadvisor.collect.sources import gather
from nicadvisor.parsers.registry import parse_output
from nicadvisor.vcg.builds import host_release, release_text

HERE = Path(__file__).parents[1] / "captures"
ESXI60U1 = HERE / "esxi60u1_esxcli_system_version_get_unattributed.txt"
ESXI90 = HERE / "esxi9_esxcli_system_version_get_nested_unattributed.txt"
ESXI600 = HERE / "esxi600_vmware-lv_and_nic_list_tg3_elatov.txt"


def _host(*paths: Path, name: str = "h"):
    return assemble_host(HostInputs(name=name, captures=[read_capture(p) for p in paths]))


def test_esxcli_system_version_get_gives_version_build_and_update_with_their_lines():
    cap = read_capture(ESXI60U1)
    (r,) = parse_output(cap.command, cap.text)
    assert {k: v.value for k, v in r.host.items()} == {"product_version": "6.0.0", "build": "3073146",
                                                       "kind": "esxi", "product_update": "Update 1"}
    assert r.host["build"].line.strip() == "Build: Releasebuild-3073146"
    assert r.host["product_update"].line.strip() == "Update: 1" and not r.notes
    # the prompt lines around it and the next command's prompt are not read as fields
    assert r.records[0]["fields"] == {"Product": "VMware ESXi", "Version": "6.0.0", "Build": "Releasebuild-3073146",
                                      "Update": "1", "Patch": "20"}


def test_the_release_of_each_real_output():
    host, problems, _ = _host(ESXI60U1)
    assert problems == [] and host_release(host) == "ESXi 6.0 U1"
    assert release_text(host) == "ESXi 6.0 U1 (6.0.0, build 3073146, Update 1)"
    host, _, _ = _host(ESXI90)  # ESX 9 adds "Maintenance: 0"; Update 0 is the GA level
    assert (host.product_version, host.build, host.product_update) == ("9.0.0", "24755229", "GA")
    assert host_release(host) == "ESX 9.0"
    host, problems, _ = _host(ESXI600)  # vmware -lv beside the pNIC listing of the same session
    assert problems == [] and host_release(host) == "ESXi 6.0" and [p.name for p in host.pnics] == ["vmnic0", "vmnic1"]
    assert host.evidence["build"].line.strip() == "VMware ESXi 6.0.0 build-2809209"


def test_a_vm_support_bundle_gives_the_release_from_localcli_system_version_get(tmp_path):
    body = "".join(l for l in ESXI60U1.read_text().splitlines(keepends=True) if not l.startswith("# ")).encode()
    bundle = tmp_path / "esx-localhost-2018-12-02--05.25.tgz"
    with tarfile.open(bundle, "w:gz") as tar:
        info = tarfile.TarInfo("esx-localhost-2018-12-02--05.25/commands/localcli_system-version-get.txt")
        info.size = len(body)
        tar.addfile(info, io.BytesIO(body))
    groups, problems = gather([bundle])
    assert problems == []
    host, _, _ = assemble_host(groups[0])
    assert host_release(host) == "ESXi 6.0 U1" and host.evidence["product_update"].command == "esxcli system version get"


def test_a_version_line_alone_is_no_release():
    (r,) = parse_output("esxcli system version get", "   Product: VMware ESXi\n")
    assert not r.host and any("Version" in n for n in r.notes)
