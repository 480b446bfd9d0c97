"""The release level ``vmware -vl`` prints on its second line ("GA", "Update 3") reaches the host model
(``Host.product_update``, with its evidence line) on every path that reads ``vmware -vl``: a capture file, a
vm-support bundle member. It decides the compatibility-guide release of a host whose version does not carry the
update (ESXi 6.x and older print ``6.7.0`` for every update).

Real outputs: the vm-support bundle member ``commands/vmware_-vl.txt`` of an ESXi 5.1.0 GA host
(shared/fixtures/vm-support/bundle_commands_vmware_-vl.txt_esxi510_elatov.txt), and the two ``vmware -vl`` lines the
HPE GreenLake README shows (quoted in the note of shared/fixtures/captures/
esxi_esxcfg-nics-l_nmlx5_core_connectx5_25g_esxi703.txt)."""
from __future__ import annotations

import io
import tarfile

from capturetools import FIXTURES, capture_path

from nicadvisor.parsers.assemble import HostInputs, assemble_host
from nicadvisor.parsers.capture_file import Capture
from nicadvisor.collect.sources import read_capture
from nicadvisor.collect.sources import gather
from nicadvisor.parsers.registry import parse_output
from nicadvisor.vcg.builds import host_release

BUNDLE_MEMBER = FIXTURES / "vm-support" / "bundle_commands_vmware_-vl.txt_esxi510_elatov.txt"
HPE = "esxi_esxcfg-nics-l_nmlx5_core_connectx5_25g_esxi703.txt"


def _hpe_vmware_vl() -> str:
    """The ``vmware -vl`` output the HPE capture's note quotes: 'VMware ESXi 7.0.3 build-22348816 / VMware ESXi 7.0
    Update 3' (its two lines joined with ' / ')."""
    note = next(n for n in read_capture(capture_path(HPE)).notes if "vmware -vl" in n)
    quoted = note.split("'")[1]
    assert quoted == "VMware ESXi 7.0.3 build-22348816 / VMware ESXi 7.0 Update 3"
    return "\n".join(quoted.split(" / ")) + "\n"


def _body(path) -> bytes:
    return "".join(l for l in path.read_text().splitlines(keepends=True) if not l.startswith("# ")).encode()


def test_the_parser_gives_the_update_level_as_a_host_fact_with_its_line():
    cap = read_capture(BUNDLE_MEMBER)
    (r,) = parse_output("vmware -vl", cap.text)
    assert r.host["product_update"].value == "GA"
    assert r.host["product_update"].line.strip() == "VMware ESXi 5.1.0 GA"
    (r,) = parse_output("vmware -vl", _hpe_vmware_vl())
    assert r.host["product_update"].value == "Update 3"
    assert r.host["product_version"].value == "7.0.3" and not r.notes


def test_assemble_puts_the_update_level_on_the_host_and_host_release_uses_it():
    cap = read_capture(BUNDLE_MEMBER)
    host, problems, _ = assemble_host(HostInputs(name="esx-prod", captures=[cap]))
    assert (host.product_version, host.build, host.product_update) == ("5.1.0", "799733", "GA")
    ev = host.evidence["product_update"]
    assert ev.command == cap.command and ev.line.strip() == "VMware ESXi 5.1.0 GA"
    assert problems == []
    # 5.1.0 prints the same version for every update and build 799733 is not in the build table: only the level
    # vmware -vl printed tells the release
    assert host_release(host) == "ESXi 5.1"


def test_a_vm_support_bundle_gives_the_update_level(tmp_path):
    bundle = tmp_path / "esx-prod-vmware01-2013-08-12--14.06.tgz"
    with tarfile.open(bundle, "w:gz") as tar:
        body = _body(BUNDLE_MEMBER)
        info = tarfile.TarInfo("esx-prod-vmware01-2013-08-12--14.06/commands/vmware_-vl.txt")
        info.size = len(body)
        tar.addfile(info, io.BytesIO(body))
    groups, problems = gather([bundle])
    assert problems == []
    host, _, _ = assemble_host(groups[0])
    assert host.product_update == "GA" and host.evidence["product_update"].command == "vmware -vl"


def test_the_level_line_alone_vmware_l():
    (r,) = parse_output("vmware -l", "VMware ESXi 7.0 Update 3\n")      # the HPE host's second line
    assert r.host["product_update"].value == "Update 3"
    assert "build" not in r.host and any("build" in n for n in r.notes)


def test_a_level_line_of_another_version_is_not_taken():
    # two outputs pasted together: the real 5.1.0 member, then the HPE host's level line
    text = read_capture(BUNDLE_MEMBER).text.replace("VMware ESXi 5.1.0 GA", "VMware ESXi 7.0 Update 3")
    (r,) = parse_output("vmware -vl", text)
    assert "product_update" not in r.host
    assert any("another version" in n for n in r.notes)


def test_a_host_without_vmware_vl_has_no_update_level():
    host, _, _ = assemble_host(HostInputs(name="h", captures=[
        Capture(source="v.txt", command="vmware -v", text="VMware ESXi 6.7.0 build-17700523\n")]))
    assert host.product_update is None and host_release(host) is None
