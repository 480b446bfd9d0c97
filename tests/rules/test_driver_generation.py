"""The legacy (vmklinux) driver rule against VMware's own images (issue 24 §3 "elxnet is a native driver").

Two real elxnet captures (Emulex OneConnect OCe11100 on ESXi 6.0, tests/parsers/captures/*elxnet*) were NOT READY
on the driver alone: elxnet is Emulex's native driver, inbox since ESXi 5.5 (William Lam, "ESXi 5.5 introduces a new
Native Device Driver Architecture Part 2"). The whole vmklinux list is checked against the VIBs of the ESXi 5.0 GA
and 6.7 GA images (tests/rules/data/esxi_image_nic_vibs.txt, each with its source): a vmklinux NIC driver ships as
``net-<driver>``, a native one without the prefix.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from nicadvisor.model import Host, PhysicalNic
from nicadvisor.model.verdict import NOT_READY
from nicadvisor.rules_engine import evaluate, load_rules
from nicadvisor.change_commands import VMKLINUX_DRIVERS
from nicadvisor.services.audit import AuditRequest, run_audit

DATA = Path(__file__).parent / "data" / "esxi_image_nic_vibs.txt"
CAPTURES = Path(__file__).resolve().parents[1] / "parsers" / "captures"
ELXNET = ("esxi_esxcli_network_nic_list_elxnet_oce11100_esxi60_hua01.txt",
          "esxi_esxcli_network_nic_get_elxnet_oce11100_esxi60_hua01.txt")


def _image_vibs() -> dict[str, set[str]]:
    """Image label → the VIB names (``net-ixgbe``, ``elxnet``) its ``VIBs Skipped`` line lists."""
    out: dict[str, set[str]] = {}
    label = ""
    for line in DATA.read_text().splitlines():
        m = re.match(r"# \[(.+)\]$", line)
        if m:
            label = m.group(1)
        elif line.startswith("VIBs"):
            ids = line.partition(": ")[2].split(", ")
            # VMware_bootbank_net-ixgbe_2.0.84.8.2-10vmw.500.0.0.469512 → net-ixgbe
            out[label] = {re.sub(r"^(?:VMware|VMW)_(?:bootbank|locker)_", "", i).split("_")[0] for i in ids}
    return out


def _vib(driver: str) -> str:
    """The VIB name of a driver module: ``nx_nic`` → ``nx-nic``, ``mlx4_en`` → ``mlx4-en``."""
    return driver.replace("_", "-")


def test_every_vmklinux_driver_is_a_net_vib_of_a_vmware_image():
    vibs = set().union(*_image_vibs().values())
    for driver in VMKLINUX_DRIVERS:
        name = _vib(driver) if driver.startswith("net-") else f"net-{_vib(driver)}"
        assert name in vibs, f"{driver}: no {name} VIB in VMware's images"


def test_no_native_driver_of_the_67_image_is_called_vmklinux():
    native = {v for v in _image_vibs()["esxi-6.7-ga-8169922"] if not v.startswith(("net-", "scsi-", "shim-"))}
    assert {"elxnet", "ixgben", "igbn", "i40en", "ntg3", "qfle3", "nenic", "ne1000", "nmlx4-en"} <= native
    assert not {_vib(d) for d in VMKLINUX_DRIVERS} & native
    for successor in filter(None, VMKLINUX_DRIVERS.values()):  # every named successor is a native VIB of 6.7
        assert _vib(successor) in native, successor


@pytest.mark.parametrize("capture", ELXNET)
def test_real_elxnet_captures_are_not_flagged_as_vmklinux(capture, tmp_path):
    folder = tmp_path / "hua01-01"
    folder.mkdir()
    shutil.copy(CAPTURES / capture, folder / capture)
    audit = run_audit(AuditRequest(capture_paths=(str(folder),)))
    assert {p.driver for h in audit.hosts for p in h.pnics} == {"elxnet"}
    assert not [f for f in audit.findings if f.rule_id == "legacy-vmklinux-driver"]
    (hv,) = audit.verdict.hosts
    assert hv.status != NOT_READY  # nothing else blocks these hosts: the driver alone made them NOT READY


def test_be2net_the_vmklinux_emulex_driver_is_flagged_with_elxnet_as_its_native_successor():
    host = Host(name="h", kind="esxi", product_version="6.5.0", pnics=[PhysicalNic(name="vmnic0", driver="be2net")])
    f = next(f for f in evaluate(load_rules(user=False), [host]) if f.rule_id == "legacy-vmklinux-driver")
    assert "elxnet for be2net" in f.recommendation
    assert "esxcli system module set --enabled=true --module=elxnet" in f.change
