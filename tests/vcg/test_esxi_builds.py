"""ESXi build → release table (resources/vcg/esxi_builds.csv) and nicadvisor.vcg.builds."""
from __future__ import annotations

import csv
import dataclasses
import datetime as dt

import pytest

from capturetools import REPO
from nicadvisor.vcg.builds import (COLUMNS, EsxiBuild, builds_csv_path, guide_release, load_builds, parse_build,
                                   read_builds, release_of_build)
from nicadvisor.vcg.db import VcgDataError

CSV_PATH = REPO / "resources" / "vcg" / "esxi_builds.csv"
HEADER = "build,version,label,update_label,release_date,source\n"
SRC = "https://example.invalid/source"


def _csv_rows() -> list[dict[str, str]]:
    """The data rows, read independently of the module under test."""
    with CSV_PATH.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


# --- the shipped file ------------------------------------------------------------------------------------------

def test_shipped_path_and_header():
    assert builds_csv_path() == CSV_PATH
    first_line = CSV_PATH.read_text(encoding="utf-8").splitlines()[0]
    assert first_line == ",".join(COLUMNS) == HEADER.strip()


def test_csv_is_sorted_and_unique_by_build():
    builds = [int(r["build"]) for r in _csv_rows()]
    assert len(builds) >= 70
    assert builds == sorted(builds)
    assert len(builds) == len(set(builds))


def test_every_row_has_a_source():
    for row in _csv_rows():
        source = row["source"].strip()
        assert source, row
        assert "github.com/" in source or "https://" in source, row


def test_dates_parse():
    dated = 0
    for row in _csv_rows():
        if row["release_date"]:
            assert dt.date.fromisoformat(row["release_date"]).year >= 2015, row
            dated += 1
    assert dated >= 50


def test_loader_reads_every_row():
    rows = load_builds()
    assert [r.build for r in rows] == [int(r["build"]) for r in _csv_rows()]
    assert all(isinstance(r, EsxiBuild) for r in rows)


def test_table_covers_ga_and_update_releases_of_each_line():
    releases = {r.update_label for r in load_builds()}
    for needed in ("ESXi 6.0", "ESXi 6.0 U1", "ESXi 6.0 U2", "ESXi 6.0 U3", "ESXi 6.5", "ESXi 6.5 U1", "ESXi 6.5 U2",
                   "ESXi 6.5 U3", "ESXi 6.7", "ESXi 6.7 U1", "ESXi 6.7 U2", "ESXi 6.7 U3", "ESXi 7.0", "ESXi 7.0 U1",
                   "ESXi 7.0 U2", "ESXi 7.0 U3", "ESXi 8.0", "ESXi 8.0 U1", "ESXi 8.0 U2", "ESXi 8.0 U3", "ESX 9.0"):
        assert needed in releases, needed


def test_each_row_maps_back_to_its_release():
    for row in load_builds():
        assert guide_release(row.version, row.build) == row.update_label, row
        if not row.version.startswith("6."):   # 7.0+: the version alone already names the update
            assert guide_release(row.version, None) == row.update_label, row


# --- exact rows ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("build, version, label, update_label, date", [
    (22380479, "8.0.2", "ESXi 8.0 U2", "ESXi 8.0 U2", dt.date(2023, 9, 21)),
    (23305546, "8.0.2", "ESXi 8.0 U2b", "ESXi 8.0 U2", dt.date(2024, 2, 29)),
    (20513097, "8.0.0", "ESXi 8.0", "ESXi 8.0", dt.date(2022, 10, 11)),
    (20842819, "8.0.0", "ESXi 8.0a", "ESXi 8.0", dt.date(2022, 12, 8)),
    (15843807, "7.0.0", "ESXi 7.0", "ESXi 7.0", dt.date(2020, 4, 2)),
    (17867351, "7.0.2", "ESXi 7.0 U2a", "ESXi 7.0 U2", dt.date(2021, 4, 29)),
    (19193900, "7.0.3", "ESXi 7.0 U3c", "ESXi 7.0 U3", None),
    (24585291, "7.0.3", "ESXi 7.0 U3s", "ESXi 7.0 U3", None),
    (14320388, "6.7.0", "ESXi 6.7 U3", "ESXi 6.7 U3", dt.date(2019, 8, 20)),
    (9298722, "6.5.0", "ESXi 6.5 U2c", "ESXi 6.5 U2", dt.date(2018, 8, 14)),
    (2494585, "6.0.0", "ESXi 6.0", "ESXi 6.0", dt.date(2015, 3, 12)),
    (24755229, "9.0.0.0", "ESX 9.0", "ESX 9.0", dt.date(2025, 6, 17)),
    (24813472, "9.0.0.0100", "ESX 9.0.0.0100", "ESX 9.0", dt.date(2025, 7, 15)),
])
def test_exact_rows(build, version, label, update_label, date):
    row = release_of_build(build)
    assert row is not None
    assert (row.build, row.version, row.label, row.update_label, row.release_date) == \
        (build, version, label, update_label, date)
    assert row.source


def test_sources_name_where_the_row_was_read():
    assert "vmware/vcfcheck" in release_of_build(22380479).source
    assert "2143832" in release_of_build(14320388).source
    assert "CVE-2025-22224" in release_of_build(24585291).source
    assert "techdocs.broadcom.com" in release_of_build(24755229).source


def test_row_is_frozen():
    row = release_of_build(22380479)
    with pytest.raises(dataclasses.FrozenInstanceError):
        row.label = "x"  # type: ignore[misc]


# --- build forms -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("form", [22380479, "22380479", "build-22380479", "Releasebuild-22380479",
                                  " releasebuild-22380479 ", "BUILD-22380479"])
def test_prefix_forms(form):
    assert parse_build(form) == 22380479
    assert release_of_build(form).label == "ESXi 8.0 U2"


@pytest.mark.parametrize("form", [None, "", "build-", "abc", "22380479x", "-5", "0", 0, -1, True, "8.0.2"])
def test_unreadable_build_forms(form):
    assert parse_build(form) is None
    assert release_of_build(form) is None


# --- unknown builds: no neighbour guessing --------------------------------------------------------------------

def test_unknown_build_is_none():
    assert release_of_build(22380480) is None                       # between 8.0 U2 and later rows
    assert release_of_build(1) is None
    assert guide_release(None, "22380480") is None                 # nothing readable: no guess


def test_unknown_build_uses_the_version_not_the_neighbours():
    # 6.0 U1 (VMSA-2017-0006) 5251621 sits above 6.0 U3 5050593: neighbours say nothing about a build in between
    assert release_of_build(5251621).update_label == "ESXi 6.0 U1"
    assert release_of_build(5050593).update_label == "ESXi 6.0 U3"
    # a 6.x version names no update: an unknown build leaves it unknown (None), never the GA release
    assert guide_release("6.0.0", "5251622") is None
    assert guide_release("6.0.0", "5100000") is None
    assert guide_release("8.0.3", "24022511") == "ESXi 8.0 U3"


# --- guide_release ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("version, build, expected", [
    ("8.0.2", "22380479", "ESXi 8.0 U2"),
    ("8.0.2", "Releasebuild-23305546", "ESXi 8.0 U2"),     # patch 8.0 U2b → its update
    ("6.7.0", "build-14320388", "ESXi 6.7 U3"),            # 6.x: only the build gives the update
    ("6.5.0", "7967591", "ESXi 6.5 U1"),                   # 6.5 U1g
    ("7.0.3", "24784741", "ESXi 7.0 U3"),                  # 7.0 U3w
    (None, "24813472", "ESX 9.0"),                         # known build, no version
    ("VMware ESXi 8.0.2 build-22380479", "22380479", "ESXi 8.0 U2"),
])
def test_guide_release_from_build(version, build, expected):
    assert guide_release(version, build) == expected


@pytest.mark.parametrize("version, expected", [
    ("8.0.2", "ESXi 8.0 U2"),
    ("7.0.0", "ESXi 7.0"),
    ("7.0.3", "ESXi 7.0 U3"),
    ("6.7.0 Update 3", "ESXi 6.7 U3"),
    ("9.0.0.0", "ESX 9.0"),
    ("VMware ESXi 8.0 Update 3", "ESXi 8.0 U3"),
])
def test_guide_release_version_only(version, expected):
    assert guide_release(version, None) == expected
    assert guide_release(version, "not-a-build") == expected


def test_guide_release_unreadable():
    assert guide_release(None, None) is None
    assert guide_release("", "") is None
    assert guide_release("garbage", "abc") is None


def test_version_of_another_line_overrides_the_build():
    # build 22380479 is ESXi 8.0 U2; a host saying 7.0.3 is not believed to run it
    assert guide_release("7.0.3", "22380479") == "ESXi 7.0 U3"


# --- read_builds checks ----------------------------------------------------------------------------------------

def _text(*rows: str) -> str:
    return HEADER + "".join(r + "\n" for r in rows)


def test_read_builds_accepts_a_good_table():
    rows = read_builds(_text(f"100,8.0.2,ESXi 8.0 U2,ESXi 8.0 U2,2023-09-21,{SRC}",
                             f"200,6.7.0,ESXi 6.7 U3,ESXi 6.7 U3,,{SRC}"), "t.csv")
    assert [r.build for r in rows] == [100, 200]
    assert rows[1].release_date is None


@pytest.mark.parametrize("rows, message", [
    ((f"200,8.0.2,ESXi 8.0 U2,ESXi 8.0 U2,,{SRC}", f"100,8.0.2,ESXi 8.0 U2,ESXi 8.0 U2,,{SRC}"), "line 3"),
    ((f"100,8.0.2,ESXi 8.0 U2,ESXi 8.0 U2,,{SRC}", f"100,8.0.2,ESXi 8.0 U2b,ESXi 8.0 U2,,{SRC}"), "line 3"),
    ((f"100,8.0.2,ESXi 8.0 U2,ESXi 8.0 U2,2023-13-01,{SRC}",), "release_date"),
    (("100,8.0.2,ESXi 8.0 U2,ESXi 8.0 U2,,",), "source is empty"),
    ((f"100,8.0.2,ESXi 8.0 U2b,ESXi 8.0 U3,,{SRC}",), "label"),
    ((f"100,8.0.3,ESXi 8.0 U2b,ESXi 8.0 U2,,{SRC}",), "version"),
    ((f"100,8.0,ESXi 8.0 U2,ESXi 8.0 U2,,{SRC}",), "version"),
    ((f"100,8.0.2,ESXi 8.0 U2,8.0U2,,{SRC}",), "update_label"),
    ((f"x100,8.0.2,ESXi 8.0 U2,ESXi 8.0 U2,,{SRC}",), "build"),
])
def test_read_builds_rejects(rows, message):
    with pytest.raises(VcgDataError, match=message):
        read_builds(_text(*rows), "t.csv")


def test_read_builds_rejects_a_wrong_header():
    with pytest.raises(VcgDataError, match="header"):
        read_builds("# comment\n" + _text(f"100,8.0.2,ESXi 8.0 U2,ESXi 8.0 U2,,{SRC}"), "t.csv")
