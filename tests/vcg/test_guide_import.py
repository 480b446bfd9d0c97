"""Importing the compatibility guide the user has (issue 8 §1–2): validated, versioned, diffed, applied atomically,
aged like vSAN Health's HCL database, and used per pNIC (device / driver / firmware listed for the host's release).

Inputs are the files of ``tests/vcg/guide_files`` (public facts, sources in its SOURCES.md). Host facts are model
values (no device output): a Dell-subsystem BCM57414 (14e4:16d7:1028:0bdd) with the bnxtroce versions the guide files
list.
"""
from __future__ import annotations

import datetime as _dt
import json
import stat
from pathlib import Path

import pytest

from nicadvisor.cli import main
from nicadvisor.model import Host, PhysicalNic, Severity
from nicadvisor.services.audit import evaluate_findings
from nicadvisor.vcg.guide_findings import guide_findings
from nicadvisor.vcg.guide_formats import GuideFormatError
from nicadvisor.vcg.guide_store import (FILE_NAME, GuideStoreError, apply_import, guide_dir, load_dataset,
                                        plan_import, staleness)

FILES = Path(__file__).with_name("guide_files")
SNAPSHOT = FILES / "vcfcheck_snapshot_59003_excerpt.json"      # ESX 9.0 and ESXi 8.0, 11 listings
ALL_JSON_80 = FILES / "vsan_all_json_nic_59003.json"            # ESXi 8.0 only, 6 listings
EXCHANGE = FILES / "exchange_sample.json"                       # 3 devices


def _bcm(version: str, firmware: str, product: str = "8.0.0") -> Host:
    nic = PhysicalNic(name="vmnic4", vid="14e4", did="16d7", svid="1028", ssid="0bdd", driver="bnxtroce",
                      driver_version=version, firmware_version=firmware, is_physical=True, mtu=9000)
    return Host(name="esx-bcm", kind="esxi", product_version=product, pnics=[nic])


def test_first_import_is_version_1_with_a_diff_and_owner_only(tmp_path):
    plan = plan_import([EXCHANGE], tmp_path)
    assert plan.current is None and plan.new.version == 1
    assert len(plan.diff.devices_added) == 3 and plan.diff.listings_added == 3 and not plan.diff.devices_removed
    assert plan.diff.lines()[0] == "3 device(s) added, 0 changed, 0 removed; 3 listing(s) added, 0 removed"
    path = apply_import(plan, tmp_path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    data = load_dataset(tmp_path)
    assert data.version == 1 and data.listings == plan.new.listings
    (f,) = data.files
    assert f.name == EXCHANGE.name and f.format == "exchange-json" and len(f.sha256) == 64 and f.listings == 3


def test_a_newer_import_updates_the_devices_it_names_and_keeps_the_previous_version(tmp_path):
    apply_import(plan_import([EXCHANGE], tmp_path), tmp_path)
    plan = plan_import([SNAPSHOT], tmp_path)
    # the BCM57414 (in both) is renewed by the snapshot; the X710 and ConnectX-4 rows of the first file are kept
    (changed,) = plan.diff.devices_changed
    assert changed.startswith("14e4:16d7 1028:0bdd")
    assert not plan.diff.devices_added and not plan.diff.devices_removed
    assert {g.did for g in plan.new.listings} == {"16d7", "1572", "1013"}
    apply_import(plan, tmp_path)
    assert (tmp_path / "guide.v1.json").exists() and load_dataset(tmp_path).version == 2
    # --replace: the files are the whole guide
    plan = plan_import([SNAPSHOT], tmp_path, replace=True)
    assert len(plan.diff.devices_removed) == 2 and {g.did for g in plan.new.listings} == {"16d7"}


def test_a_bad_file_changes_nothing(tmp_path):
    apply_import(plan_import([EXCHANGE], tmp_path), tmp_path)
    before = (tmp_path / FILE_NAME).read_bytes()
    bad = tmp_path / "notes.json"
    bad.write_text('{"hello": "world"}', encoding="utf-8")
    with pytest.raises(GuideFormatError, match=str(bad)):
        plan_import([SNAPSHOT, bad], tmp_path)
    assert (tmp_path / FILE_NAME).read_bytes() == before


def test_a_plan_made_before_another_import_is_refused(tmp_path):
    stale_plan = plan_import([EXCHANGE], tmp_path)
    apply_import(plan_import([SNAPSHOT], tmp_path), tmp_path)
    with pytest.raises(GuideStoreError, match="changed since this import was prepared"):
        apply_import(stale_plan, tmp_path)


def test_a_damaged_store_names_itself(tmp_path):
    (tmp_path / FILE_NAME).write_text("{broken", encoding="utf-8")
    with pytest.raises(GuideStoreError, match=rf"{tmp_path / FILE_NAME}: cannot be read"):
        load_dataset(tmp_path)


def test_age_warns_after_90_days_and_errors_after_180(tmp_path):
    apply_import(plan_import([EXCHANGE], tmp_path), tmp_path)
    data = load_dataset(tmp_path)
    made = data.data_date()
    assert staleness(data, made + _dt.timedelta(days=90)) is None
    level, message = staleness(data, made + _dt.timedelta(days=91))
    assert level == "warning" and "91 days old" in message
    assert staleness(data, made + _dt.timedelta(days=181))[0] == "error"
    host = _bcm("236.1.128.0", "36.11.55.00", product="9.0.0.0")
    stale = [f for f in guide_findings([host], data, made + _dt.timedelta(days=200)) if f.rule_id == "guide-data-stale"]
    assert [f.severity for f in stale] == [Severity.ERROR]


@pytest.fixture
def snapshot(tmp_path):
    apply_import(plan_import([SNAPSHOT], tmp_path), tmp_path)
    return load_dataset(tmp_path)


def _only(findings, rule_id):
    (f,) = [f for f in findings if f.rule_id == rule_id]
    return f


def test_listed_device_driver_and_firmware(snapshot):
    found = guide_findings([_bcm("236.1.128.0", "36.11.73.00")], snapshot)
    f = _only(found, "guide-listed")
    assert f.severity is Severity.INFO and "listed for ESXi 8.0" in f.message
    assert "compatibility guide data (imported)" in f.message and SNAPSHOT.name in f.references[0]


def test_firmware_not_the_listed_pair(snapshot):
    f = _only(guide_findings([_bcm("236.1.128.0", "23.31.18.10")], snapshot), "guide-firmware-not-listed")
    assert f.severity is Severity.WARNING and "36.11.55.00, 36.11.73.00" in f.message
    assert f.change.startswith("Manual: NIC firmware is written with the vendor's update tool") and f.rollback


def test_driver_version_not_listed_names_the_listed_ones(snapshot):
    f = _only(guide_findings([_bcm("230.0.1.0", "23.31.18.10")], snapshot), "guide-driver-not-listed")
    assert f.severity is Severity.WARNING and "229.0.146.0-1OEM.800" in f.message
    assert "bnxtroce 238.1.122.0-1OEM.800" in f.recommendation  # the newest listed version
    # the exact install of that version, its check and the install of the version read as the roll-back
    assert f.change.startswith("esxcli software vib install -d /vmfs/volumes/<datastore>/<bnxtroce 238.1.122.0-1OEM.800")
    assert "230.0.1.0" in f.rollback and f.verify.startswith("esxcli network nic get -n ")


def test_device_not_listed_for_the_hosts_release(tmp_path):
    # the snapshot lists the BCM57414 for 8.0 and 9.0; the exchange file covers ESXi 6.7 (an X710 listing)
    apply_import(plan_import([SNAPSHOT, EXCHANGE], tmp_path), tmp_path)
    host = _bcm("236.1.128.0", "36.11.73.00", product="6.7.0")
    host.build = "8169922"  # the ESXi 6.7 GA build: "6.7.0" alone names no update level (it prints it for every one)
    f = _only(guide_findings([host], load_dataset(tmp_path)), "guide-device-not-listed")
    assert f.severity is Severity.ERROR and "not for ESXi 6.7" in f.message and "ESXi 8.0" in f.message


def test_an_unlisted_device_or_another_subsystem_says_nothing(snapshot):
    other = _bcm("236.1.128.0", "36.11.73.00")
    other.pnics[0].ssid = "ffff"
    assert guide_findings([other], snapshot) == []
    unknown_sub = _bcm("236.1.128.0", "36.11.73.00")
    unknown_sub.pnics[0].svid = unknown_sub.pnics[0].ssid = None
    assert guide_findings([unknown_sub], snapshot) == []  # a potential match decides nothing


def test_the_audit_uses_the_guide_in_the_users_data_folder():
    apply_import(plan_import([SNAPSHOT]))  # default folder: the test run's XDG data dir
    try:
        rule_ids = {f.rule_id for f in evaluate_findings([_bcm("236.1.128.0", "23.31.18.10")])}
        assert "guide-firmware-not-listed" in rule_ids
        (guide_dir() / FILE_NAME).write_text("[]", encoding="utf-8")
        broken = [f for f in evaluate_findings([_bcm("236.1.128.0", "23.31.18.10")]) if f.rule_id == "guide-unreadable"]
        assert broken and broken[0].severity is Severity.WARNING
    finally:
        for p in guide_dir().glob("guide*.json"):
            p.unlink()


def test_cli_import_status_export(tmp_path, capsys):
    try:
        assert main(["vcg", "status"]) == 0
        assert "no compatibility guide imported" in capsys.readouterr().out
        assert main(["vcg", "import", str(EXCHANGE), "--dry-run"]) == 0
        out = capsys.readouterr().out
        assert "3 device(s) added" in out and "dry run: nothing was changed" in out
        assert not (guide_dir() / FILE_NAME).exists()
        assert main(["vcg", "import", str(EXCHANGE)]) == 0
        assert "imported as version 1" in capsys.readouterr().out
        assert main(["vcg", "status"]) == 0
        assert "3 device(s), 3 listing(s)" in capsys.readouterr().out
        assert main(["vcg", "export", str(tmp_path / "out.csv")]) == 0
        assert main(["vcg", "import", str(tmp_path / "out.csv"), "--dry-run"]) == 0
        assert "0 device(s) added, 0 changed, 0 removed" in capsys.readouterr().out  # the export round-trips
        assert main(["vcg", "import", str(tmp_path / "missing.json")]) == 2
        assert "missing.json" in capsys.readouterr().err
        doc = json.loads((guide_dir() / FILE_NAME).read_text(encoding="utf-8"))
        assert doc["format"] == "nicadvisor-guide" and doc["version"] == 1
    finally:
        for p in guide_dir().glob("guide*.json"):
            p.unlink()


def test_the_pdf_scope_names_the_guide_the_audit_used(tmp_path):
    from pypdf import PdfReader

    from nicadvisor.model import Audit
    from nicadvisor.report.pdf import write_pdf

    host = _bcm("236.1.128.0", "23.31.18.10")
    apply_import(plan_import([SNAPSHOT]))
    try:
        audit = Audit(hosts=[host], inputs=["x"], findings=evaluate_findings([host]))
    finally:
        for p in guide_dir().glob("guide*.json"):
            p.unlink()
    # the scope paragraph follows the board's decision page (page 1), on the summary's first pages
    first = " ".join(" ".join(p.extract_text() for p in PdfReader(write_pdf(audit, tmp_path / "a.pdf")).pages[:3]).split())
    assert f"the imported compatibility guide {SNAPSHOT.name} (vsan-hcl" in first
    bare = Audit(hosts=[host], inputs=["x"], findings=evaluate_findings([host]))
    first = " ".join(" ".join(p.extract_text() for p in PdfReader(write_pdf(bare, tmp_path / "b.pdf")).pages[:3]).split())
    assert "no imported compatibility guide was used" in first


def test_a_release_the_imported_data_does_not_cover_is_no_error(tmp_path):
    # all.json facts of ESXi 8.0 only: a host on 9.0 cannot be judged from them
    apply_import(plan_import([ALL_JSON_80], tmp_path), tmp_path)
    data = load_dataset(tmp_path)
    found = guide_findings([_bcm("236.1.128.0", "36.11.73.00", product="9.0.0.0")], data)
    assert [f.rule_id for f in found] == ["guide-release-not-imported"] and found[0].severity is Severity.INFO
