"""The host's update level (``Host.product_update``, the release level ``vmware -vl`` printed) in the model, the
history and the JSON export, and in the compatibility-guide findings: :func:`nicadvisor.vcg.builds.host_release`
is the one mapping, and an unknown update says what was read, what is missing and how to learn it (``vmware -vl``),
never "not listed for this release".

Guide data: ``guide_files/exchange_sample.csv`` (sources in guide_files/SOURCES.md): BCM57414 14e4:16d7 1028:0bdd
for ESX 9.0 only, X710 8086:1572 i40en-ens 1.1.3 for ESXi 6.7, ConnectX-4 15b3:1013 nmlx5_core 4.17.15.16 for ESXi 6.7
U1, all from one exchange file that names no source (so its ESXi 6.7 listings cover ESXi 6.7 for every device).
Build 17700523 is ESXi 6.7 P05, which the build table does not hold (KB 2143832 names no update for it)."""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from nicadvisor.model import Audit, Evidence, Host, PhysicalNic, Severity
from nicadvisor.report.json_export import audit_to_dict, validate_document
from nicadvisor.document import host_from_dict, host_to_doc
from nicadvisor.store.history import AuditStore
from nicadvisor.vcg.builds import guide_release, host_release, release_unknown_reason
from nicadvisor.vcg.guide_findings import guide_findings
from nicadvisor.vcg.guide_store import apply_import, load_dataset, plan_import

FILES = Path(__file__).with_name("guide_files")
EXCHANGE = FILES / "exchange_sample.csv"
P05 = "17700523"


def _host(nic: PhysicalNic, update: str | None = None, version: str = "6.7.0", build: str | None = P05) -> Host:
    host = Host(name="esx-67", kind="esxi", product_version=version, build=build, pnics=[nic])
    if update is not None:
        host.product_update = update
        host.evidence["product_update"] = Evidence(command="vmware -vl", line=f"VMware ESXi {version} {update}",
                                                   source="esx-67/vmware_-vl.txt")
    return host


def _x710() -> PhysicalNic:
    return PhysicalNic(name="vmnic0", vid="8086", did="1572", driver="i40en_ens", driver_version="1.1.3",
                       is_physical=True, mtu=1500)


def _cx4() -> PhysicalNic:
    return PhysicalNic(name="vmnic2", vid="15b3", did="1013", driver="nmlx5_core", driver_version="4.17.15.16",
                       is_physical=True, mtu=1500)


def _bcm() -> PhysicalNic:
    return PhysicalNic(name="vmnic4", vid="14e4", did="16d7", svid="1028", ssid="0bdd", driver="bnxtroce",
                       driver_version="236.1.128.0-1OEM.900", firmware_version="36.11.73.00", is_physical=True,
                       mtu=9000)


@pytest.fixture
def data(tmp_path):
    apply_import(plan_import([EXCHANGE], tmp_path), tmp_path)
    return load_dataset(tmp_path)


def _ids(findings) -> list[str]:
    return [f.rule_id for f in findings if f.rule_id != "guide-data-stale"]


# --- 1. the model, the history and the export ----------------------------------------------------------------------

@pytest.mark.parametrize("update, expected", [("Update 3", "ESXi 6.7 U3"), ("GA", "ESXi 6.7"), ("U1", "ESXi 6.7 U1")])
def test_host_release_uses_the_hosts_update_level(update, expected):
    assert host_release(_host(_x710(), update)) == expected


def test_a_level_does_not_override_the_update_a_7x_version_carries():
    # the level comes from another line, possibly another output: the 7.0 / 8.0 version's own third number decides
    assert guide_release("7.0.3", None, "Update 2") == "ESXi 7.0 U3"
    assert host_release(_host(_x710(), "Update 2", version="7.0.3", build=None)) == "ESXi 7.0 U3"


def test_an_unreadable_level_is_said():
    host = _host(_x710(), "Update three")
    assert host_release(host) is None
    assert "'Update three' was not understood" in release_unknown_reason(host)


def test_the_update_level_round_trips_through_the_history_document():
    host = _host(_x710(), "Update 3")
    doc = json.loads(json.dumps(host_to_doc(host)))
    assert doc["product_update"] == "Update 3"
    assert doc["evidence"]["product_update"]["line"] == "VMware ESXi 6.7.0 Update 3"
    back = host_from_dict(doc)
    assert back == host and back.product_update == "Update 3"
    assert host_from_dict({k: v for k, v in doc.items() if k != "product_update"}).product_update is None


def test_the_update_level_is_stored_and_reloaded_by_the_history(tmp_path):
    audit = Audit(hosts=[_host(_x710(), "Update 3")], created_at="2026-11-25T06:26:37+00:00")
    with AuditStore(tmp_path / "history.sqlite") as store:
        audit_id = store.save(audit)
        back = store.load(audit_id)
    assert back.hosts[0].product_update == "Update 3"
    assert back.hosts[0].evidence["product_update"].command == "vmware -vl"
    assert host_release(back.hosts[0]) == "ESXi 6.7 U3"


def test_the_json_export_carries_and_validates_the_update_level():
    doc = audit_to_dict(Audit(hosts=[_host(_x710(), "GA")], created_at="2026-11-25T06:26:37+00:00"))
    assert doc["hosts"][0]["product_update"] == "GA"
    assert doc["hosts"][0]["evidence"]["product_update"]["command"] == "vmware -vl"
    validate_document(doc)
    doc["hosts"][0]["product_update"] = 3
    with pytest.raises(jsonschema.ValidationError):
        validate_document(doc)


# --- 2. the guide findings -----------------------------------------------------------------------------------------

def test_the_guide_checks_the_listing_of_the_update_vmware_vl_printed(data):
    assert "guide-listed" in _ids(guide_findings([_host(_x710(), "GA")], data))          # X710: ESXi 6.7
    assert "guide-listed" in _ids(guide_findings([_host(_cx4(), "Update 1")], data))     # ConnectX-4: ESXi 6.7 U1


def test_unknown_update_says_what_is_known_and_what_is_missing(data):
    (f,) = guide_findings([_host(_x710())], data)
    assert f.rule_id == "guide-release-unknown" and f.severity is Severity.INFO
    assert "for ESXi 6.7;" in f.message                                  # the listing of the host's 6.7 line
    assert f"the version of esx-67 was read (ESXi 6.7.0, build {P05}), but its update level was not" in f.message
    assert "ESXi 6.x prints 6.7.0 for every update" in f.message
    assert f"build {P05} is not in the build table" in f.message and "no update level was read" in f.message
    assert "release of esx-67 was not read" not in f.message
    assert "vmware -vl" in f.recommendation and "esxcli system version get" not in f.recommendation


def test_unknown_update_names_every_listing_of_the_line(data):
    (f,) = guide_findings([_host(_cx4())], data)
    assert f.rule_id == "guide-release-unknown" and "ESXi 6.7 U1" in f.message
    assert "which of these listings applies" in f.message


def test_no_listing_for_the_line_is_not_reported_as_unlisted_while_the_update_is_unknown(data):
    # known update: the data covers ESXi 6.7 and lists the BCM57414 for ESX 9.0 only, so "not listed" is right
    known = guide_findings([_host(_bcm(), "GA")], data)
    assert "guide-device-not-listed" in _ids(known)
    # unknown update: no ESXi 6.7 listing of it at all, and the update level decides which listing would apply
    (f,) = guide_findings([_host(_bcm())], data)
    assert f.rule_id == "guide-release-unknown" and f.severity is Severity.INFO
    assert "for ESX 9.0 and for no release of ESXi 6.7" in f.message
    assert "the update level decides" in f.message and "not listed for" not in f.message
    assert "vmware -vl" in f.recommendation


def test_nothing_read_asks_for_vmware_vl(data):
    (f,) = guide_findings([_host(_x710(), version=None, build=None)], data)
    assert f.rule_id == "guide-release-unknown"
    assert "release of esx-67 was not read" in f.message
    assert "vmware -vl" in f.recommendation and "esxcli system version get" not in f.recommendation
