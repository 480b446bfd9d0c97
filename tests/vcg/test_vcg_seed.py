"""Seeding the compatibility database from the shipped resources/vcg/nic_facts.csv (all 41 rows)."""
from __future__ import annotations

import csv
import hashlib
from pathlib import Path

import pytest

from capturetools import REPO, SHARED
from nicadvisor.vcg import VcgDataError, build_database, open_database, shipped_csv_path
from nicadvisor.parsers.base import hex4
from nicadvisor.vcg.normalize import (firmware_matches, normalise_driver, parse_host_version, parse_release,
                                      release_matches, version_at_least, version_key)
from nicadvisor.vcg.seed import FEATURE_COLUMNS, classify_trust

CSV_PATH = REPO / "resources" / "vcg" / "nic_facts.csv"


def _csv_rows() -> list[tuple[int, dict[str, str]]]:
    """(file line, row) for every data row, read independently of the seed code."""
    with CSV_PATH.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        return [(reader.line_num, row) for row in reader]


@pytest.fixture(scope="module")
def vcg():
    db = open_database(in_memory=True)
    yield db
    db.close()


def test_shipped_csv_is_the_research_copy_unchanged():
    assert shipped_csv_path() == CSV_PATH
    research = SHARED / "design" / "research" / "nic_facts.csv"
    assert CSV_PATH.read_bytes() == research.read_bytes()
    assert (REPO / "resources" / "vcg" / "nic_facts_notes.md").read_bytes() == \
        (SHARED / "design" / "research" / "nic_facts_notes.md").read_bytes()


def test_seed_loads_every_csv_row(vcg):
    rows = _csv_rows()
    assert len(rows) == 41
    counts = vcg.counts()
    assert counts["listing"] == 41
    lines = [r["origin_line"] for r in vcg.connection.execute("SELECT origin_line FROM listing ORDER BY origin_line")]
    assert lines == list(range(2, 43))
    assert vcg.info()["seed_rows"] == "41"
    assert vcg.info()["format"] == "nicadvisor-vcg"
    # every listing keeps its row's citation verbatim
    sources = {r["origin_line"]: r["source"] for r in vcg.connection.execute("SELECT * FROM listing")}
    for line, row in rows:
        assert sources[line] == row["source_url_or_repo_path"]
    # one driver row per non-empty driver cell (no row in this CSV has parameters without a driver)
    assert counts["driver"] == sum(1 for _, r in rows if r["driver"])
    assert counts["firmware"] == 0          # nic_facts.csv has no firmware column


def test_feature_rows_are_the_yes_cells_plus_the_derived_ens_rows(vcg):
    rows = _csv_rows()
    stated = sum(1 for _, r in rows for c in FEATURE_COLUMNS if r[c] == "yes")
    db = vcg.connection
    assert db.execute("SELECT count(*) FROM feature WHERE derived_from IS NULL").fetchone()[0] == stated
    assert db.execute("SELECT count(*) FROM feature WHERE supported = 0").fetchone()[0] == 0   # no "no" cell
    # geneve_rx_filter is empty everywhere (nic_facts_notes.md): unknown, so no row, never "no"
    assert db.execute("SELECT count(*) FROM feature WHERE code = 'geneve_rx_filter'").fetchone()[0] == 0
    derived = {(r["origin_line"], r["derived_from"]) for r in db.execute(
        "SELECT l.origin_line, f.derived_from FROM feature f JOIN listing l USING (listing_id) "
        "WHERE f.derived_from IS NOT NULL")}
    assert (2, "i40en-ens is an ENS (Enhanced Datapath) driver") in derived     # X710, NSX-T 3.0 guide
    assert (29, "ens_poll=yes") in derived                                      # ConnectX-4, NVIDIA manual
    assert (41, "nenic_ens is an ENS (Enhanced Datapath) driver") in derived     # Cisco VIC, ESX 9.0 notes
    ens_driver_rows = sum(1 for _, r in rows if r["driver"].split("(")[0].strip().lower().endswith(("_ens", "-ens")))
    poll_rows = sum(1 for _, r in rows if r["ens_poll"] == "yes" or r["ens_interrupt"] == "yes")
    assert len(derived) == ens_driver_rows + poll_rows


@pytest.mark.parametrize(("line", "trust"), [
    (2, "vendor-doc"),      # docs.vmware.com NSX-T 3.0 install guide
    (22, "community"),      # servethehome.com E810-CQDA2 review
    (23, "vendor-doc"),     # Intel irdman release note inside the VMware driver package
    (27, "vendor-doc"),     # knowledge.broadcom.com KB 344494
    (37, "vcg"),            # vmware/vcfcheck vSAN HCL snapshot
    (39, "community"),      # vcdx200.uw.cz / nielshagoort.com blogs
    (40, "community"),      # geminustech.com blog
    (41, "vendor-doc"),     # techdocs.broadcom.com ESX 9.0 release notes
])
def test_trust_follows_the_first_citation(vcg, line, trust):
    row = vcg.connection.execute("SELECT trust, source FROM listing WHERE origin_line = ?", (line,)).fetchone()
    assert row["trust"] == trust
    assert classify_trust(row["source"]) == trust


def test_releases_are_parsed_from_the_csv_cells(vcg):
    labels = {r["label"] for r in vcg.connection.execute("SELECT label FROM release")}
    assert labels == {"ESXi 4.x", "ESXi 5.0", "ESXi 5.1", "ESXi 6.7", "ESXi 6.7 U1", "ESXi 7.0", "ESXi 7.0 U3",
                      "ESXi 8.0", "ESX 9.0"}
    igb = vcg.connection.execute(
        "SELECT group_concat(r.label, '|') FROM listing l JOIN listing_release USING (listing_id) "
        "JOIN release r USING (release_id) WHERE l.origin_line = 27").fetchone()[0]
    assert sorted(igb.split("|")) == ["ESXi 4.x", "ESXi 5.0", "ESXi 5.1"]


def test_drivers_are_normalised_and_keep_the_listed_text(vcg):
    rows = {r["name_as_listed"]: r for r in vcg.connection.execute("SELECT * FROM driver")}
    assert rows["i40en-ens"]["name"] == "i40en" and rows["i40en-ens"]["module"] == "i40en_ens"
    assert rows["i40en_ens (Intel40en async)"]["name"] == "i40en"
    assert rows["nmlx5_core (inbox nmlx)"]["name"] == "nmlx5_core"
    assert rows["igb (async)"]["name"] == "igb" and rows["igb (async)"]["max_rx_queues"] == 8
    assert rows["bnx2x"]["module_param"] == "RSS=<n> number of queues in an RSS pool, supported values 2-4"


def test_build_database_reseeds_only_when_the_csv_changes(tmp_path):
    db_path = tmp_path / "vcg.sqlite3"
    assert build_database(db_path) == db_path
    with open_database(db_path) as first:
        seeded_at, sha = first.info()["seeded_at"], first.info()["seed_sha256"]
    build_database(db_path)
    with open_database(db_path) as again:
        assert again.info()["seeded_at"] == seeded_at and again.info()["seed_sha256"] == sha
    # a changed seed file (the real CSV without its last row) replaces the seeded rows
    lines = CSV_PATH.read_text(encoding="utf-8").splitlines(keepends=True)
    shorter = tmp_path / "nic_facts.csv"
    shorter.write_text("".join(lines[:-1]), encoding="utf-8")
    build_database(db_path, csv_path=shorter)
    with open_database(db_path, csv_path=shorter) as changed:
        assert changed.counts()["listing"] == 40
        assert changed.info()["seed_sha256"] != sha
        assert changed.match("15ad", "07b0") == []        # the vmxnet3 row was the last one
    with open_database(db_path) as back:                   # the shipped CSV again
        assert back.counts()["listing"] == 41


def test_malformed_seed_rows_are_refused_with_their_line(tmp_path):
    lines = CSV_PATH.read_text(encoding="utf-8").splitlines(keepends=True)
    bad = tmp_path / "bad.csv"
    bad.write_text(lines[0] + lines[1].replace(",8086,1572,", ",8086,zz72,", 1), encoding="utf-8")
    with pytest.raises(VcgDataError, match=r"bad\.csv line 2: column did"):
        open_database(in_memory=True, csv_path=bad)
    bad.write_text(lines[0] + lines[1].replace(",6.7,", ",six,", 1), encoding="utf-8")
    with pytest.raises(VcgDataError, match="esxi_release 'six'"):
        open_database(in_memory=True, csv_path=bad)
    bad.write_text("vendor,model\nIntel,X\n", encoding="utf-8")
    with pytest.raises(VcgDataError, match="header lacks"):
        open_database(in_memory=True, csv_path=bad)


# --- pure helpers --------------------------------------------------------------------------------

def test_normalisation_helpers():
    assert hex4("0x8086") == "8086" and hex4(-32634) == "8086" and hex4("10FB") == "10fb" and hex4("") is None
    assert hex4("N/A") is None
    for name in ("i40en_ens", "i40en-ens", "i40en_ens (Intel40en async)", "I40EN"):
        assert normalise_driver(name) == "i40en"
    assert normalise_driver("nmlx5_core (inbox nmlx)") == "nmlx5_core" and normalise_driver("") is None
    assert version_key("1.11.2.6-1OEM.700.1.0.15843807") == "00001.00011.00002.00006"
    assert version_at_least("4.21.71.101", "4.17.15.16") is True
    assert version_at_least("1.8.6", "1.11.2") is False
    assert version_at_least("231.0.153.0", "231.0.153.0-1OEM.800") is True
    assert version_at_least("N/A", "1.0") is None
    assert firmware_matches("7.10 0x800075e5 19.5.12", "7.10") is True
    assert firmware_matches("14.30.1004", "16.35.2000") is False
    assert firmware_matches("14.30.1004", "N/A") is None


def test_release_helpers():
    assert parse_release("7.0 U3") == (7, 0, 3)
    assert parse_release("4.x") == (4, None, 0)
    assert parse_release("6.7") == (6, 7, 0)
    assert parse_release("seven") is None
    assert parse_host_version("8.0.3") == (8, 0, 3)
    assert parse_host_version("VMware ESXi 7.0.3 build-18905247") == (7, 0, 3)
    assert parse_host_version("ESXi 8.0 Update 2") == (8, 0, 2)
    assert parse_host_version("8.0U3b") == (8, 0, 3)
    assert parse_host_version("8.0") == (8, 0, None)
    assert parse_host_version("unknown") is None
    assert release_matches((8, 0, 0), (8, 0, 3))
    assert release_matches((7, 0, 3), (7, 0, 3)) and not release_matches((7, 0, 3), (7, 0, 2))
    assert not release_matches((7, 0, 3), (8, 0, 3))
    assert release_matches((4, None, 0), (4, 1, None))
    assert not release_matches((7, 0, 3), (7, 0, None))


def test_resources_folder_documents_its_sources():
    text = (REPO / "resources" / "vcg" / "SOURCES.md").read_text(encoding="utf-8")
    assert hashlib.sha256(CSV_PATH.read_bytes()).hexdigest() in text
    assert Path(shipped_csv_path()).name == "nic_facts.csv"
