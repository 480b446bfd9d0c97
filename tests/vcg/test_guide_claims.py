"""Review of the compatibility-guide import (``nic-advisor vcg import/export/status/fetch``): the tool never says
something reassuring the imported data does not establish, nor an alarming thing it does not say.

Inputs are the files of ``tests/vcg/guide_files`` (public facts, sources in its SOURCES.md), or files written here
that hold the same facts re-laid out, or no device facts at all: rows of the PCI ID ``ffff:ffff`` (no device has it:
0xffff is what a read of an absent PCI device returns), dates, repeated keys. Host facts are model values.
"""
from __future__ import annotations

import copy
import datetime as _dt
import json
import os
import tempfile
import time
from pathlib import Path

import pytest

from nicadvisor.cli import main
from nicadvisor.model import Host, PhysicalNic, Severity
from nicadvisor.vcg.guide_findings import guide_findings
from nicadvisor.vcg.guide_formats import GuideFormatError, read_guide_file, write_exchange_csv
from nicadvisor.vcg import guide_store
from nicadvisor.vcg.guide_store import FILE_NAME, GuideStoreError, apply_import, guide_dir, load_dataset, plan_import
from test_guide_fetch import https_server  # noqa: F401  (the fetch tests' HTTPS server on 127.0.0.1)

FILES = Path(__file__).with_name("guide_files")
SNAPSHOT = FILES / "vcfcheck_snapshot_59003_excerpt.json"      # vsan-hcl list layout: ESX 9.0 and ESXi 8.0
ALL_JSON_80 = FILES / "vsan_all_json_nic_59003.json"            # vsan-hcl all.json layout: ESXi 8.0 only
RESULTS = FILES / "bcg_results_14e4_16d7.json"
DETAILS = FILES / "bcg_details_14e4_16d7_no_ids.json"           # ESX 9.0, needs RESULTS as companion
VCGAPI = FILES / "vcg_api_8086_1572.json"                       # X710 i40en-ens 1.1.3, ESXi 6.7
EXCHANGE = FILES / "exchange_sample.json"
PARTITION = FILES / "vcfcheck_52418_from_nic_facts.json"        # vsan-hcl: 14e4:16ed 14e4:4140, 9.0 and 8.0
ESXI_67_GA_BUILD = "8169922"


def _bcm(version: str | None, firmware: str | None, product: str = "8.0.0", build: str | None = None) -> Host:
    nic = PhysicalNic(name="vmnic4", vid="14e4", did="16d7", svid="1028", ssid="0bdd", driver="bnxtroce",
                      driver_version=version, firmware_version=firmware, is_physical=True, mtu=9000)
    return Host(name="esx-bcm", kind="esxi", product_version=product, build=build, pnics=[nic])


def _x710(driver: str, version: str) -> Host:
    nic = PhysicalNic(name="vmnic0", vid="8086", did="1572", driver=driver, driver_version=version,
                      is_physical=True, mtu=1500)
    return Host(name="esx-x710", kind="esxi", product_version="6.7.0", build=ESXI_67_GA_BUILD, pnics=[nic])


def _ids(findings) -> list[str]:
    return [f.rule_id for f in findings]


def _only(findings, rule_id):
    (f,) = [f for f in findings if f.rule_id == rule_id]
    return f


def _imported(tmp_path, *files, **kwargs):
    apply_import(plan_import(list(files), tmp_path, **kwargs), tmp_path)
    return load_dataset(tmp_path)


def _write(path: Path, doc) -> Path:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


# ------------------------------------------------------------------------------ 1. what makes "guide-listed"


def test_unknown_firmware_is_not_listed_but_says_how_to_read_it(tmp_path):
    data = _imported(tmp_path, SNAPSHOT)
    found = guide_findings([_bcm("236.1.128.0", None)], data)
    assert "guide-listed" not in _ids(found)
    f = _only(found, "guide-firmware-unknown")
    assert f.severity is Severity.INFO and "not read" in f.message
    assert "esxcli network nic get -n vmnic4" in f.recommendation


def test_ens_and_non_ens_modules_are_kept_apart(tmp_path):
    data = _imported(tmp_path, VCGAPI)                               # lists i40en-ens 1.1.3 only
    found = guide_findings([_x710("i40en", "1.1.3")], data)
    assert "guide-listed" not in _ids(found)
    f = _only(found, "guide-driver-not-listed")
    assert "i40en-ens 1.1.3" in f.message and "ENS and non-ENS drivers are listed apart" in f.message
    assert "guide-listed" in _ids(guide_findings([_x710("i40en_ens", "1.1.3")], data))


def test_a_build_suffix_is_compared_when_both_give_one(tmp_path):
    data = _imported(tmp_path, SNAPSHOT)                             # lists 236.1.128.0-1OEM.800 for ESXi 8.0
    other_build = guide_findings([_bcm("236.1.128.0-2vmw.800", "36.11.73.00")], data)
    assert "guide-listed" not in _ids(other_build)
    assert "236.1.128.0-1OEM.800" in _only(other_build, "guide-driver-not-listed").message
    assert "guide-listed" in _ids(guide_findings([_bcm("236.1.128.0-1OEM.800", "36.11.73.00")], data))
    bare = _only(guide_findings([_bcm("236.1.128.0", "36.11.73.00")], data), "guide-listed")
    assert "build was not compared" in bare.message


def test_firmware_is_matched_by_whole_components():
    from nicadvisor.vcg.guide_findings import firmware_match

    assert firmware_match("14.30.1004", "14") == "partial"
    assert firmware_match("14.30.1004", "14.3") == "no"
    assert firmware_match("14.30.1004", "14.30.1004") == "yes"
    assert firmware_match("36.11.55.0", "36.11.55.00") == "yes"
    assert firmware_match("7.10 0x800075e5 19.5.12", "7.10") == "yes"
    assert firmware_match("222.1.68.0/pkg 22.21.06.80", "222.1.68.0") == "yes"
    assert firmware_match("N/A", "14") is None


def test_a_firmware_that_agrees_only_in_part_is_not_listed(tmp_path):
    data = _imported(tmp_path, SNAPSHOT)                             # 236.1.128.0-1OEM.800 ↔ 36.11.55.00 / 36.11.73.00
    for firmware in ("36.11", "36.11.55.00.7"):
        found = guide_findings([_bcm("236.1.128.0", firmware)], data)
        assert "guide-listed" not in _ids(found) and "guide-firmware-not-listed" not in _ids(found), firmware
        assert _only(found, "guide-firmware-unclear").severity is Severity.INFO


# ------------------------------------------------------------------------------ 2. "NIC not listed for this release"


def _details_for_8_0(tmp_path) -> Path:
    # the viewDetails layout of the fixture, with [vcfcheck] 59003 release 8.0 pairs (those of vsan_all_json_nic_59003)
    doc = json.loads(DETAILS.read_text())
    doc["data"]["details"]["subsections"][0]["fieldValues"] = [
        {"productReleaseVersion": "ESXi 8.0", "driverName": "bnxtroce", "driverVersion": "236.1.128.0-1OEM.800",
         "firmwareVersion": "36.11.55.00"},
        {"productReleaseVersion": "ESXi 8.0", "driverName": "bnxtroce", "driverVersion": "236.1.128.0-1OEM.800",
         "firmwareVersion": "36.11.73.00"}]
    return _write(tmp_path / "details_80.json", doc)


def test_merging_is_per_device_and_release(tmp_path):
    store = tmp_path / "store"
    _imported(store, DETAILS, companion=RESULTS)                    # ESX 9.0
    data = _imported(store, _details_for_8_0(tmp_path), companion=RESULTS)   # ESXi 8.0 of the same device
    assert {g.release for g in data.listings} == {"ESX 9.0", "ESXi 8.0"}
    found = guide_findings([_bcm("236.1.128.0-1OEM.900", "36.11.55.00", product="9.0.0.0")], data)
    assert "guide-device-not-listed" not in _ids(found) and "guide-listed" in _ids(found)


def test_a_listing_without_release_decides_nothing(tmp_path):
    doc = json.loads(RESULTS.read_text())
    del doc["data"]["fieldValues"][0]["supportedReleases"]          # the device, no release named
    results = _write(tmp_path / "results.json", doc)
    data = _imported(tmp_path / "store", VCGAPI, results)           # the VCG API answer covers ESXi 6.7
    found = guide_findings([_bcm("236.1.128.0", "36.11.55.00", product="6.7.0", build=ESXI_67_GA_BUILD)], data)
    assert "guide-device-not-listed" not in _ids(found)
    f = _only(found, "guide-release-not-stated")
    assert f.severity is Severity.INFO and "without a release" in f.message and "ESXi 6.7" in f.message


def test_release_labels_unambiguous_are_normalised_others_warned():
    from nicadvisor.vcg.guide_formats import release_reading

    assert release_reading("VMware ESXi 8.0 U2") == ("ESXi 8.0 U2", None)
    assert release_reading("ESXi 8.0.2") == ("ESXi 8.0 U2", None)
    assert release_reading("ESXi 7.0.3") == ("ESXi 7.0 U3", None)
    assert release_reading("ESX 9.0.0.0") == ("ESX 9.0", None)
    for ambiguous in ("ESX 9.0.1", "ESXi 6.7.0", "ESXi 8.0 U3b", "ESXi 8.0 GA-ish"):
        label, doubt = release_reading(ambiguous)
        assert label == ambiguous and doubt, ambiguous


def test_release_labels_in_a_file(tmp_path):
    doc = json.loads(RESULTS.read_text())
    item = doc["data"]["fieldValues"][0]
    # [vcfcheck] 59003 lists 8.0 U2 and 8.0 U3: the same releases, spelled otherwise
    item["supportedReleases"] = [{"name": "VMware ESXi 8.0 U2"}, {"name": "ESXi 8.0.3"}]
    # a row of no device (ffff:ffff) with an ambiguous label
    doc["data"]["fieldValues"].append({"brandName": "", "model": {"name": "no device"}, "vid": "ffff", "did": "ffff",
                                       "supportedReleases": [{"name": "ESX 9.0.1"}, {"name": "ESX 9.0.1"}]})
    gf = read_guide_file(_write(tmp_path / "results.json", doc))
    assert {g.release for g in gf.listings if g.did == "16d7"} == {"ESXi 8.0 U2", "ESXi 8.0 U3"}
    warned = [w for w in gf.warnings if "'ESX 9.0.1'" in w]
    assert len(warned) == 1 and "maintenance release" in warned[0]
    plan = plan_import([tmp_path / "results.json"], tmp_path / "store")
    assert any("'ESX 9.0.1'" in w for w in plan.warnings)


def test_absence_from_the_vsan_hcl_is_a_warning_worded_for_the_vsan_hcl(tmp_path):
    # the vSAN HCL data: 59003 for ESXi 8.0 (all.json facts) and 52418 for 9.0/8.0: it covers ESX 9.0, not for 59003
    data = _imported(tmp_path, PARTITION, ALL_JSON_80)
    f = _only(guide_findings([_bcm("236.1.128.0-1OEM.900", "36.11.55.00", product="9.0.0.0")], data),
              "guide-device-not-listed")
    assert f.severity is Severity.WARNING
    assert "vSAN HCL" in f.message and "general networking" in f.message and "vSAN/RDMA" in f.message


def test_absence_is_judged_against_data_of_the_same_kind(tmp_path):
    # the VCG API answer covers ESXi 6.7 (an X710); the details answer lists the BCM57414 for ESX 9.0 only and has
    # no ESXi 6.7 data: it does not say the BCM57414 is not listed for 6.7
    data = _imported(tmp_path, VCGAPI, DETAILS, companion=RESULTS)
    f = _only(guide_findings([_bcm("236.1.128.0", "36.11.55.00", product="6.7.0", build=ESXI_67_GA_BUILD)], data),
              "guide-release-not-imported")
    assert f.severity is Severity.INFO  # the details answer (the kind that lists it) has no 6.7 data at all


# ------------------------------------------------------------------------------ 3. size of the stored guide


def test_an_import_too_large_to_be_read_back_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(guide_store, "MAX_STORE_BYTES", 3000)
    with pytest.raises(GuideStoreError, match=r"would store 11 listings in \d+ bytes, more than the 3000"):
        plan_import([SNAPSHOT], tmp_path)
    assert not (tmp_path / FILE_NAME).exists()


def test_replace_works_over_an_unreadable_or_oversized_guide(tmp_path, monkeypatch):
    monkeypatch.setattr(guide_store, "MAX_STORE_BYTES", 4000)
    (tmp_path / FILE_NAME).write_text('{"format": "nicadvisor-guide", "version": 4, "files": [], "listings": ['
                                      + " " * 5000 + "]}", encoding="utf-8")
    with pytest.raises(GuideStoreError, match="--replace"):
        load_dataset(tmp_path)
    with pytest.raises(GuideStoreError, match="--replace"):
        plan_import([EXCHANGE], tmp_path)
    plan = plan_import([EXCHANGE], tmp_path, replace=True)
    assert plan.new.version == 5 and any("cannot be read" in n for n in plan.diff.notes)
    apply_import(plan, tmp_path)
    assert load_dataset(tmp_path).version == 5 and (tmp_path / "guide.v4.json").stat().st_size > 5000


def test_a_file_giving_too_many_listings_is_refused_while_read():
    with pytest.raises(GuideFormatError, match="more than 5 listings"):
        read_guide_file(SNAPSHOT, max_listings=5)


# ------------------------------------------------------------------------------ 4. a complete vSAN HCL dump


def _all_json(timestamp: str, with_partition: bool, path: Path) -> Path:
    doc = json.loads(ALL_JSON_80.read_text())
    doc["timestamp"] = timestamp
    if with_partition:  # 52418 as an all.json entry: its 8.0 facts from vcfcheck_52418_from_nic_facts.json
        entry = json.loads(PARTITION.read_text())[0]
        doc["data"]["nic"].append({"id": 52418, "vid": "14e4", "did": "16ed", "svid": "14e4", "ssid": "4140",
                                   "releases": {"ESXi 8.0": {"bnxtroce": {"223.0.192.0-1OEM.800": {"firmwares": []}}}}})
        assert "223.0.192.0-1OEM.800" in entry["rel"]["8.0"]["drv"]["bnxtroce"]
    return _write(path, doc)


def test_a_newer_full_vsan_hcl_replaces_the_older(tmp_path):
    store, old = tmp_path / "store", tmp_path / "old"
    old.mkdir()
    _imported(store, _all_json("2026-01-01T00:00:00Z", True, old / "all.json"))
    plan = plan_import([_all_json("2026-11-01T00:00:00Z", False, tmp_path / "all.json")], store)
    assert any(n.startswith("14e4:16ed") for n in plan.diff.devices_removed)
    assert any("complete vSAN HCL dump replaces" in n for n in plan.diff.notes)
    apply_import(plan, store)
    data = load_dataset(store)
    assert {g.did for g in data.listings} == {"16d7"}
    assert [f.data_date[:10] for f in data.files] == ["2026-11-01"]
    assert data.data_date() == _dt.date(2026, 11, 1)


def test_a_dump_keeps_the_data_of_other_sources(tmp_path):
    data = _imported(tmp_path, VCGAPI, SNAPSHOT)
    plan = plan_import([_all_json("2026-11-01T00:00:00Z", False, tmp_path / "all.json")], tmp_path)
    assert {g.release for g in plan.new.listings if g.source == "vsan-hcl"} == {"ESXi 8.0"}
    assert [g for g in plan.new.listings if g.source == "vcg-api"] == [g for g in data.listings
                                                                        if g.source == "vcg-api"]
    assert {f.name for f in plan.new.files} == {VCGAPI.name, "all.json"}


# ------------------------------------------------------------------------------ 5. dates


def test_a_data_date_in_the_future_is_not_used(tmp_path):
    gf = read_guide_file(_all_json("2100-01-01T00:00:00Z", False, tmp_path / "all.json"))
    assert gf.data_date is None and any("in the future" in w for w in gf.warnings)
    data = _imported(tmp_path / "store", tmp_path / "all.json")
    today = data.data_date() + _dt.timedelta(days=200)
    assert guide_store.staleness(data, today)[0] == "error"


def test_a_stored_future_date_counts_from_the_import():
    f = guide_store.ImportedFile("all.json", "0" * 64, "vsan-hcl", "2100-01-01T00:00:00+00:00",
                                 "2026-01-01T00:00:00+00:00", 6)
    assert f.age_date() == (_dt.date(2026, 1, 1), False) and "not used" in f.date_text()


def test_undated_formats_say_so_and_are_aged_from_the_import(tmp_path):
    data = _imported(tmp_path, SNAPSHOT)                             # the vcfcheck snapshot states no date
    assert "date of the data not stated; imported on " in data.describe()
    assert "data of" not in data.describe()
    level, message = guide_store.staleness(data, data.data_date() + _dt.timedelta(days=100))
    assert level == "warning" and "states no date" in message and "counted from its import" in message


def test_cli_status_and_import_name_the_missing_date(capsys):
    try:
        assert main(["vcg", "import", str(SNAPSHOT)]) == 0
        out = capsys.readouterr().out
        assert "date of the data not stated" in out
        assert main(["vcg", "status"]) == 0
        out = capsys.readouterr().out
        assert "date of the data not stated; imported on" in out and "no date st," not in out
    finally:
        for p in guide_dir().glob("guide*.json"):
            p.unlink()


def test_an_export_keeps_the_age_of_the_data(tmp_path):
    try:
        assert main(["vcg", "import", str(_all_json("2026-01-01T00:00:00Z", False, tmp_path / "all.json"))]) == 0
        for name in ("out.json", "out.csv"):
            assert main(["vcg", "export", str(tmp_path / name)]) == 0
            assert read_guide_file(tmp_path / name).data_date.date() == _dt.date(2026, 1, 1)
    finally:
        for p in guide_dir().glob("guide*.json"):
            p.unlink()


# ------------------------------------------------------------------------------ 6. files that fit two formats


def test_a_file_fitting_two_formats_is_refused(tmp_path):
    results, all_json = json.loads(RESULTS.read_text()), json.loads(ALL_JSON_80.read_text())
    both = _write(tmp_path / "both.json", {"data": {"fieldValues": results["data"]["fieldValues"],
                                                    "nic": all_json["data"]["nic"]}})
    with pytest.raises(GuideFormatError, match=r"fits more than one format \(bcg-results, vsan-hcl\)") as err:
        read_guide_file(both)
    assert str(err.value).startswith(str(both))
    api = json.loads(VCGAPI.read_text())
    mixed = _write(tmp_path / "mixed.json", {"data": {"nic": all_json["data"]["nic"]}, "matches": api["matches"]})
    with pytest.raises(GuideFormatError, match=r"fits more than one format \(vsan-hcl, vcg-api\)"):
        read_guide_file(mixed)


def test_repeated_json_keys_are_warned(tmp_path):
    text = ALL_JSON_80.read_text().replace('"totalCount": 1,', '"totalCount": 1, "totalCount": 2,', 1)
    f = tmp_path / "all.json"
    f.write_text(text, encoding="utf-8")
    gf = read_guide_file(f)
    assert any("repeated keys" in w and "'totalCount'" in w for w in gf.warnings)


def test_a_driver_version_listed_twice_with_other_firmware_is_warned(tmp_path):
    doc = json.loads(ALL_JSON_80.read_text())
    twice = copy.deepcopy(doc["data"]["nic"][0])
    pairs = twice["releases"]["ESXi 8.0"]["bnxtroce"]["236.1.128.0-1OEM.800"]["firmwares"]
    twice["releases"]["ESXi 8.0"]["bnxtroce"]["236.1.128.0-1OEM.800"]["firmwares"] = pairs[:1]
    doc["data"]["nic"].append(twice)
    gf = read_guide_file(_write(tmp_path / "all.json", doc))
    (warned,) = [w for w in gf.warnings if "other firmware" in w]
    assert "236.1.128.0-1OEM.800" in warned and "14e4:16d7 1028:0bdd ESXi 8.0" in warned


# ------------------------------------------------------------------------------ 7. minor


def test_stale_temp_files_of_the_store_are_cleaned(tmp_path):
    stale, fresh = tmp_path / ".guide.abc123", tmp_path / ".guide.def456"
    stale.write_bytes(b"")
    fresh.write_bytes(b"")
    old = time.time() - 3600
    os.utime(stale, (old, old))
    apply_import(plan_import([EXCHANGE], tmp_path), tmp_path)
    assert not stale.exists() and fresh.exists()  # a young one may be another import's, under way


def test_a_number_too_long_to_convert_names_the_file(tmp_path):
    f = tmp_path / "long.json"
    f.write_text('{"timestamp": 1' + "0" * 5000 + ', "data": {"nic": []}}', encoding="utf-8")
    with pytest.raises(GuideFormatError) as err:
        read_guide_file(f)
    assert str(err.value).startswith(f"{f}: ")


def test_an_import_that_changes_nothing_writes_nothing(tmp_path, capsys):
    apply_import(plan_import([EXCHANGE], tmp_path), tmp_path)
    before = (tmp_path / FILE_NAME).stat().st_mtime_ns
    again = plan_import([EXCHANGE], tmp_path)
    assert again.unchanged and again.diff.empty
    apply_import(again, tmp_path)
    assert load_dataset(tmp_path).version == 1 and not (tmp_path / "guide.v1.json").exists()
    assert (tmp_path / FILE_NAME).stat().st_mtime_ns == before
    try:
        assert main(["vcg", "import", str(EXCHANGE)]) == 0
        assert main(["vcg", "import", str(EXCHANGE)]) == 0
        assert "nothing to change: the imported guide stays version 1" in capsys.readouterr().out
        assert load_dataset().version == 1
    finally:
        for p in guide_dir().glob("guide*.json"):
            p.unlink()


def _pair_details(tmp_path) -> Path:
    # no device: ffff:ffff; one row naming a firmware and an additional firmware (the viewDetails keys)
    doc = {"data": {"details": {"vid": "ffff", "did": "ffff", "model": "no device", "subsections": [{"fieldValues": [
        {"productReleaseVersion": "ESXi 8.0", "driverName": "nodrv", "driverVersion": "1.0",
         "firmwareVersion": "1.0", "additionalFirmwareVersion": "2.0"}]}]}}}
    return _write(tmp_path / "details.json", doc)


def test_view_details_firmware_and_additional_firmware_are_a_pair(tmp_path):
    (g,) = read_guide_file(_pair_details(tmp_path)).listings
    assert g.firmware == ("1.0",) and g.additional_firmware == "2.0" and g.source == "bcg-details"
    data = _imported(tmp_path / "store", tmp_path / "details.json")

    def host(firmware):
        nic = PhysicalNic(name="vmnic1", vid="ffff", did="ffff", driver="nodrv", driver_version="1.0",
                          firmware_version=firmware, is_physical=True)
        return Host(name="h", kind="esxi", product_version="8.0.0", pnics=[nic])

    assert "guide-firmware-not-listed" in _ids(guide_findings([host("2.0")], data))  # the additional one alone
    assert "guide-firmware-unclear" in _ids(guide_findings([host("1.0")], data))     # the pair not shown
    assert "guide-listed" in _ids(guide_findings([host("1.0 2.0")], data))


def test_exchange_files_carry_source_and_additional_firmware(tmp_path):
    listings = list(read_guide_file(_pair_details(tmp_path)).listings) + list(read_guide_file(SNAPSHOT).listings)
    write_exchange_csv(listings, tmp_path / "x.csv")
    back = read_guide_file(tmp_path / "x.csv").listings
    assert back == tuple(listings) and back[0].additional_firmware == "2.0"
    assert {g.source for g in back} == {"bcg-details", "vsan-hcl"}


def test_fetch_leaves_no_temporary_folder(tmp_path, monkeypatch):
    from nicadvisor.collect.guide_fetch import GuideFetchError, fetch_guide

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    with pytest.raises(GuideFetchError):
        fetch_guide("https://127.0.0.1:1/all.json", timeout_s=2)
    assert list(scratch.iterdir()) == []


def test_cli_fetch_removes_its_download(https_server, tmp_path, monkeypatch):
    base, ca = https_server
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    try:
        assert main(["vcg", "fetch", "--url", f"{base}/service/vsan/all.json", "--ca-file", ca]) == 0
        assert list(scratch.glob("nic-advisor-guide-*")) == []
        assert load_dataset() is not None
    finally:
        for p in guide_dir().glob("guide*.json"):
            p.unlink()
