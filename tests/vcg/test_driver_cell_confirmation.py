"""The Driver / VCG cell passes only on a listing that confirms the host's driver
version on the host's release; an unknown cell says what was not read and the command that reads it, never a
false "the device is not in the compatibility database"."""
from __future__ import annotations

import copy
from pathlib import Path

import pytest

from nicadvisor.model import Host, PhysicalNic
from nicadvisor.model.capabilities import PASS, UNKNOWN, capability_matrix
from nicadvisor.services.audit import AuditRequest, run_audit
from nicadvisor.vcg.database_findings import findings_for_hosts
from nicadvisor.vcg.guide_findings import guide_findings
from nicadvisor.vcg.guide_store import apply_import, load_dataset, plan_import

FILES = Path(__file__).with_name("guide_files")
SNAPSHOT = FILES / "vcfcheck_snapshot_59003_excerpt.json"      # BCM57414 14e4:16d7 1028:0bdd, ESX 9.0 and ESXi 8.0
RESULTS = FILES / "bcg_results_14e4_16d7.json"                  # a viewResults answer: releases, no driver data
NOT_IN_DB = "not in the compatibility database"


@pytest.fixture(scope="module")
def demo():
    audit = run_audit(AuditRequest(demo=True))
    return audit, {h.name: h for h in audit.hosts}


def _cells(host, findings, key="driver"):
    return {r.pnic: r.cells[key] for r in capability_matrix(host, findings)}


# --- item 1: a vcg-entries finding alone never passes the cell ---------------------------------------------------

def test_demo_connectx4lx_cells_are_unknown_without_release_and_driver_version(demo):
    audit, hosts = demo
    cells = _cells(hosts["esxi-h0062-x722-cx4lx"], audit.findings)
    # vmnic2: nmlx5_core, no driver version, no ESXi release read — was "pass" on the vcg-entries finding
    assert cells["vmnic2"].status == UNKNOWN
    assert "esxcli network nic get -n vmnic2" in cells["vmnic2"].reason and "vmware -vl" in cells["vmnic2"].reason
    # vmnic3: nmlx5_core 4.21.71.101 read, the release not: only the release is missing
    assert cells["vmnic3"].status == UNKNOWN
    assert "vmware -vl" in cells["vmnic3"].reason and "driver version" not in cells["vmnic3"].reason
    for cell in (cells["vmnic2"], cells["vmnic3"]):
        assert NOT_IN_DB not in cell.text + cell.reason   # the database does list the ConnectX-4 Lx


def test_a_listing_confirms_a_known_release_and_a_driver_at_its_minimum(demo):
    _audit, hosts = demo
    host = copy.deepcopy(hosts["esxi-h0062-x722-cx4lx"])
    host.product_version, host.build = "6.7.0", "10302608"     # ESXi 6.7 U1 (esxi_builds.csv, KB 2143832)
    findings = findings_for_hosts([host])
    meets = {f.target.rsplit("/", 1)[1] for f in findings if f.rule_id == "vcg-driver-meets-minimum"}
    assert meets == {"vmnic3"}            # 4.21.71.101 ≥ the 4.17.15.16 listed for ESXi 6.7 / 6.7 U1
    cells = _cells(host, findings)
    assert cells["vmnic3"].status == PASS
    assert cells["vmnic2"].status == UNKNOWN and "esxcli network nic get -n vmnic2" in cells["vmnic2"].reason


def test_a_release_of_unknown_update_confirms_nothing(demo):
    _audit, hosts = demo
    host = copy.deepcopy(hosts["esxi-h0062-x722-cx4lx"])
    host.product_version, host.build = "6.7.0", "17700523"     # ESXi 6.7 P05: not in the build table
    findings = findings_for_hosts([host])
    assert not [f for f in findings if f.rule_id == "vcg-driver-meets-minimum"]
    (f,) = [f for f in findings if f.rule_id == "vcg-driver-unconfirmed" and f.target.endswith("/vmnic3")]
    assert "build 17700523 is not in the build table" in f.message and "vmware -vl" in f.message
    assert _cells(host, findings)["vmnic3"].status == UNKNOWN


def test_a_listing_without_a_minimum_confirms_nothing(demo):
    _audit, hosts = demo
    host = copy.deepcopy(hosts["esxi-h0062-x722-cx4lx"])
    host.product_version = "8.0.3"                             # the ESXi 8.0 nmlx listing names no version
    findings = findings_for_hosts([host])
    (f,) = [f for f in findings if f.rule_id == "vcg-driver-unconfirmed" and f.target.endswith("/vmnic3")]
    assert "names no minimum driver version" in f.message
    assert _cells(host, findings)["vmnic3"].status == UNKNOWN


# --- item 4: the right reason for an unknown cell ----------------------------------------------------------------

def _bcm(version: str | None, product: str | None = "8.0.0") -> Host:
    nic = PhysicalNic(name="vmnic4", vid="14e4", did="16d7", svid="1028", ssid="0bdd", driver="bnxtroce",
                      driver_version=version, firmware_version="36.11.73.00", is_physical=True, mtu=9000)
    return Host(name="esx-bcm", kind="esxi", product_version=product, pnics=[nic])


def _guide(tmp_path, *files):
    apply_import(plan_import(list(files), tmp_path), tmp_path)
    return load_dataset(tmp_path)


def test_guide_lists_the_device_but_the_driver_version_was_not_read(tmp_path):
    data = _guide(tmp_path, SNAPSHOT)
    host = _bcm(None)
    findings = guide_findings([host], data) + findings_for_hosts([host])
    cell = _cells(host, findings)["vmnic4"]
    assert cell.status == UNKNOWN and NOT_IN_DB not in cell.text + cell.reason
    assert "driver version of vmnic4 was not read" in cell.reason
    assert "esxcli network nic get -n vmnic4" in cell.reason


def test_guide_release_unknown_says_so_and_how_to_read_it(tmp_path):
    data = _guide(tmp_path, SNAPSHOT)
    host = _bcm("236.1.128.0", product=None)
    findings = guide_findings([host], data)
    assert "guide-release-unknown" in {f.rule_id for f in findings}
    cell = _cells(host, findings)["vmnic4"]
    assert cell.status == UNKNOWN and NOT_IN_DB not in cell.text + cell.reason
    assert "vmware -vl" in cell.reason


def test_a_search_answer_without_driver_data_is_no_reason_to_warn(tmp_path):
    data = _guide(tmp_path, RESULTS)
    host = _bcm("236.1.128.0", product="8.0.3")
    findings = guide_findings([host], data)
    assert not [f for f in findings if f.rule_id == "guide-driver-not-listed"]
    cell = _cells(host, findings)["vmnic4"]
    assert cell.status == UNKNOWN and NOT_IN_DB not in cell.text + cell.reason
    assert "names no driver" in cell.reason
