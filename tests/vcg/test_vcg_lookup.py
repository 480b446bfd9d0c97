"""Lookups in the seeded compatibility database, with PCI IDs and driver versions read from real captures."""
from __future__ import annotations

import os
import re
import stat

import pytest

from capturetools import REPO, capture_path
from nicadvisor.collect.sources import read_capture
from nicadvisor.vcg import VcgEntry, default_database_path, open_database, vcg_notes

CSV_PATH = REPO / "resources" / "vcg" / "nic_facts.csv"
NSX_T_30_ENS = ("https://docs.vmware.com/en/VMware-NSX-T-Data-Center/3.0/installation/"
                "GUID-F459E3E4-F5F2-4032-A723-07D4051EFF8D.html")
NSX_41_RSS = "https://docs.vmware.com/en/VMware-NSX/4.1/administration/GUID-A8C5BF37-2BC6-4F78-9464-EA952981876A.html"
VCFCHECK = "github:vmware/vcfcheck Data/VsanHcl/VsanHclCompatibility.json@467a44f926c2756d4a2126fe80c62bc0e3bfe16a"


@pytest.fixture(scope="module")
def vcg():
    db = open_database(in_memory=True)
    yield db
    db.close()


def _lspci_ids() -> dict[str, tuple[str, str]]:
    """vmnic → (vid, did) from the real ESXi ``lspci -n`` capture (Intel mfd-network-adapter fixture)."""
    cap = read_capture(capture_path("esxi_lspci-n_class0200_mixed_i350_e810_bcm57416_82599_x710.txt"))
    out = {}
    for m in re.finditer(r"Class 0200: ([0-9a-f]{4}):([0-9a-f]{4}) \[(\S+)\]", cap.text):
        out[m.group(3)] = (m.group(1), m.group(2))
    return out


def _of(entries: list[VcgEntry], kind: str) -> list[VcgEntry]:
    return [e for e in entries if e.kind == kind]


def test_x710_from_a_real_lspci_capture_is_matched_with_source_and_trust(vcg):
    ids = _lspci_ids()
    assert ids["vmnic10"] == ("8086", "1572")
    entries = vcg.match(*ids["vmnic10"])
    device = entries[0]
    assert device.kind == "device"
    assert device.data["model"] == "Ethernet Controller X710 for 10GbE SFP+"
    assert device.data["match"] == "device" and device.data["svid"] is None
    assert device.data["port_speed_gbps"] == 10
    assert device.trust == "vendor-doc" and device.source.startswith(NSX_T_30_ENS)
    drivers = _of(entries, "driver")
    assert [(d.data["driver_as_listed"], d.data["version_min"], d.data["releases"], d.data["origin_line"])
            for d in drivers] == [
        ("i40en-ens", "1.1.3", ["ESXi 6.7"], 2),
        ("i40en_ens", None, ["ESXi 7.0 U3"], 6),
        ("i40en_ens (Intel40en async)", None, ["ESXi 8.0"], 10),
        ("i40en", None, ["ESX 9.0"], 14),
    ]
    assert drivers[0].summary == ("Driver i40en-ens 1.1.3 or later is named for Intel Ethernet Controller X710 "
                                  "for 10GbE SFP+ on ESXi 6.7.")
    assert drivers[3].data["module_param"] == "DRSS=<per-port list> RSS=<per-port list> (example: DRSS=0,0,0 RSS=8,8,8)"
    assert drivers[3].source.startswith("https://techdocs.broadcom.com/us/en/vmware-cis/vcf/vcf-9-0-and-later/")
    features = {(f.data["feature"], f.data["origin_line"]) for f in _of(entries, "feature")}
    assert features == {("ens", 2), ("ens", 6), ("rss", 6), ("ens", 10), ("rss", 10), ("rss", 14)}
    assert all(e.trust == "vendor-doc" for e in entries)


def test_82599_from_the_same_capture_and_unknown_devices_return_nothing(vcg):
    ids = _lspci_ids()
    e = vcg.match(*ids["vmnic8"])                                   # 8086:10fb
    assert e[0].data["model"] == "82599ES 10-Gigabit SFI/SFP+ Network Connection"
    assert _of(e, "driver")[0].data["driver_as_listed"] == "ixgben-ens"
    for nic in ("vmnic4", "vmnic0", "vmnic14", "PF_0.202.0_VF_0"):  # I350, E810-C SFP (1593), BCM57416, X710 VF
        assert vcg.match(*ids[nic]) == [], nic
    assert vcg.match("ffff", "0001") == []
    assert vcg.match("not-hex", "1572") == [] and vcg.match(None, None) == []


def test_release_and_driver_filters_for_an_x710_on_esxi_8(vcg):
    # driver and version as printed by esxcli network nic get on a real X710
    # (capture esxi_esxcli_nic_get_i40en_x710_fw7.10.txt)
    cap = read_capture(capture_path("esxi_esxcli_nic_get_i40en_x710_fw7.10.txt"))
    driver = re.search(r"Driver: (\S+)", cap.text).group(1)
    version = re.search(r"\n\s+Version: (\S+)", cap.text).group(1)
    assert (driver, version) == ("i40en", "1.8.6")
    entries = vcg.match("8086", "1572", driver=driver, driver_version=version, esxi_version="8.0.3")
    assert [e.kind for e in entries] == ["device", "driver", "feature", "feature", "note"]
    drv = entries[1]
    assert drv.data["releases"] == ["ESXi 8.0"] and drv.source.startswith(NSX_41_RSS)
    assert drv.data["meets_minimum"] is None          # the source states no minimum
    assert {f.data["feature"] for f in _of(entries, "feature")} == {"ens", "rss"}
    note = entries[-1]
    assert note.data["reason"] == "other_release" and note.data["origin_lines"] == [2, 6, 14]
    assert "ESXi 6.7, ESXi 7.0 U3 and ESX 9.0" in note.summary
    # another driver: every listing names i40en, so only the device entry and a note remain
    other = vcg.match("8086", "1572", driver="ixgben")
    assert [e.kind for e in other] == ["device", "note"]
    assert other[1].data["reason"] == "other_driver" and len(other[1].data["origin_lines"]) == 4
    # an unreadable version does not filter, and says so
    loose = vcg.match("8086", "1572", esxi_version="latest")
    assert loose[-1].data["reason"] == "esxi_version_unreadable" and len(_of(loose, "driver")) == 4


def test_connectx4_lx_from_a_real_vmkchdev_capture(vcg):
    cap = read_capture(capture_path("unattributed_esxi703_nic_list_x722_connectx4lx_vmkchdev.txt"))
    m = re.search(r"0000:5e:00\.0 (\w{4}):(\w{4}) (\w{4}):(\w{4}) vmkernel vmnic2", cap.text)
    vid, did, svid, ssid = m.groups()
    assert (vid, did, svid, ssid) == ("15b3", "1015", "15b3", "0003")
    version = re.search(r"\n\s+Version: (\S+)", cap.text).group(1)
    assert version == "4.21.71.101"
    entries = vcg.match(vid, did, svid, ssid, driver="nmlx5_core", driver_version=version)
    levels = [e.data["match"] for e in entries if e.kind != "note"]
    assert levels == sorted(levels, key=["exact", "subsystem_vendor", "device", "family"].index)  # specific first
    first_driver = _of(entries, "driver")[0]
    assert first_driver.data["match"] == "device" and first_driver.data["version_min"] == "4.17.15.16"
    assert first_driver.data["meets_minimum"] is True
    assert "the host's version 4.21.71.101 meets this minimum" in first_driver.summary
    assert first_driver.source.startswith("https://docs.nvidia.com/networking/display/VMwarev4171516/Introduction")
    family = [e for e in entries if e.data.get("match") == "family"]
    assert {e.data["model"] for e in family} == {"ConnectX-4 onwards (nmlx5 driver family)",
                                                 "ConnectX (nmlx inbox driver family)"}
    assert vcg.feature(vid, did, "ens_poll", svid=svid, ssid=ssid) is True
    assert vcg.feature(vid, did, "ens_interrupt") is None
    # the X722 of the same host (8086:37d1) is not in the seed (it lists 37d2 only)
    assert vcg.match("8086", "37d1", "15d9", "37d1") == []


def test_exact_subsystem_row_and_potential_match(vcg):
    exact = vcg.match("14e4", "16ed", "14e4", "4140", esxi_version="9.0")
    assert [e.kind for e in exact] == ["device", "driver", "note"]
    assert exact[0].data["match"] == "exact" and exact[0].trust == "vcg"
    assert exact[1].data["driver_as_listed"] == "bnxtroce" and exact[1].data["version_min"] == "231.0.153.0-1OEM.800"
    assert exact[1].source.startswith(VCFCHECK)
    assert vcg.match("14e4", "16ed", "14e4", "1234") == []          # another subsystem: not this listing
    potential = vcg.match("14e4", "16ed")                           # subsystem unknown
    assert {e.data["match"] for e in potential} == {"potential"}
    assert potential[0].summary.startswith("Potential match (subsystem not known): Broadcom BCM57414")


def test_exact_svid_ssid_entries_come_before_wildcard_entries(tmp_path):
    # The seed has no device with both an exact-subsystem row and a wildcard row, so this test builds a
    # database from the real bnxtroce row (line 37) plus a copy of it with svid/ssid cleared, cited as a test row.
    lines = CSV_PATH.read_text(encoding="utf-8").splitlines(keepends=True)
    exact_row = lines[36]
    assert exact_row.startswith("Broadcom,BCM57414 NetXtreme-E RDMA Partition,14e4,16ed,14e4,4140,")
    cells = exact_row.rstrip("\n").split(",")
    wildcard = cells[:4] + ["", ""] + cells[6:21] + ["test: nic_facts.csv line 37 with svid/ssid cleared"]
    csv_file = tmp_path / "ordering.csv"
    csv_file.write_text(lines[0] + ",".join(wildcard) + "\n" + exact_row, encoding="utf-8")
    with open_database(in_memory=True, csv_path=csv_file) as db:
        entries = db.match("14e4", "16ed", "14e4", "4140")
        assert [(e.kind, e.data["match"]) for e in entries] == [
            ("device", "exact"), ("driver", "exact"), ("device", "device"), ("driver", "device")]
        assert entries[0].source.startswith(VCFCHECK) and entries[0].trust == "vcg"
        assert entries[2].source.startswith("test:") and entries[2].trust == "unverified"
        # a host with another subsystem only matches the wildcard row
        other = db.match("14e4", "16ed", "1028", "0001")
        assert [e.data["match"] for e in other] == ["device", "device"]


def test_firmware_rows_are_matched_against_the_host_firmware(vcg, tmp_path):
    # nic_facts.csv has no firmware column; nic_facts_notes.md (lines 37-38) quotes the vcfcheck pair
    # bnxtroce 238.1.122.0 <-> firmware 38.11.38.06, which is inserted here to exercise the firmware table.
    with open_database(tmp_path / "fw.sqlite3") as db:
        conn = db.connection
        device_id = conn.execute("SELECT device_id FROM device WHERE vid='14e4' AND did='16ed'").fetchone()[0]
        source = VCFCHECK + " (entry id 52418; pair quoted in nic_facts_notes.md lines 37-38)"
        listing = conn.execute("INSERT INTO listing (device_id, origin, origin_line, source, trust) "
                               "VALUES (?, 'test', NULL, ?, 'vcg')", (device_id, source)).lastrowid
        driver = conn.execute("INSERT INTO driver (listing_id, name, module, name_as_listed, version_min, "
                              "source, trust) VALUES (?, 'bnxtroce', 'bnxtroce', 'bnxtroce', '238.1.122.0', ?, 'vcg')",
                              (listing, source)).lastrowid
        conn.execute("INSERT INTO firmware (listing_id, driver_id, version, source, trust) "
                     "VALUES (?, ?, '38.11.38.06', ?, 'vcg')", (listing, driver, source))
        fw = _of(db.match("14e4", "16ed", "14e4", "4140", firmware_version="38.11.38.06"), "firmware")
        assert len(fw) == 1 and fw[0].data["firmware_matches"] is True and fw[0].trust == "vcg"
        assert fw[0].summary.startswith("Firmware 38.11.38.06 is listed with driver bnxtroce 238.1.122.0")
        miss = _of(db.match("14e4", "16ed", "14e4", "4140", firmware_version="37.0.1"), "firmware")
        assert miss[0].data["firmware_matches"] is False and "differs" in miss[0].summary


def test_feature_lookup(vcg):
    assert vcg.feature("8086", "1572", "rss") is True
    assert vcg.feature("8086", "1572", "RSS", esxi_version="6.7") is None    # 6.7 row states no RSS
    assert vcg.feature("8086", "1572", "ENS") is True                       # derived from the i40en-ens driver
    assert vcg.feature("8086", "1572", "geneve_offload") is None            # never stated: unknown, not False
    assert vcg.feature("15ad", "07b0", "Geneve-Offload") is True            # vmxnet3_ens, ESX 9.0 release notes
    assert vcg.feature("15ad", "07b0", "vxlan_offload") is True
    assert vcg.feature("15ad", "07b0", "geneve_rx_filter") is None
    assert vcg.feature("14e4", "168e", "vxlan_offload") is True            # bnx2x 57810 (community source)
    assert vcg.feature("15b3", "101d", "rss") is True                       # family row: "Mellanox nmlx", ESXi 8.0
    assert vcg.feature("1234", "5678", "rss") is None
    with pytest.raises(ValueError, match="unknown feature"):
        vcg.feature("8086", "1572", "warp_drive")


def test_vcg_notes_cite_trust_and_source(vcg):
    entries = vcg.match("8086", "1572", driver="i40en_ens", esxi_version="8.0 U2")
    notes = vcg_notes(entries)
    assert notes[0].startswith("Intel Ethernet Controller X710 for 10GbE SFP+ (8086:1572, any subsystem) is in the "
                               "compatibility database: 10 Gbit/s ports. [vendor documentation; source: ")
    assert any(n.startswith("RSS is stated as supported") and NSX_41_RSS in n for n in notes)
    assert notes[-2].startswith("3 more statements about this device concern other releases")
    assert notes[-1].startswith("Statements from vendor documentation or community sources are not Broadcom")
    assert vcg_notes(entries + entries) == notes                            # duplicates removed
    certified = vcg_notes(vcg.match("14e4", "16ed", "14e4", "4140"))
    assert all("not Broadcom Compatibility Guide" not in n for n in certified)
    assert "[compatibility guide data; source: github:vmware/vcfcheck" in certified[0]
    assert vcg_notes([]) == []


def test_open_database_builds_the_default_cache_file_lazily(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = default_database_path()
    assert path == tmp_path / "cache" / "nic-advisor" / "vcg.sqlite3"
    assert not path.exists()
    with open_database() as db:
        assert db.path == path and db.counts()["listing"] == 41
        seeded_at = db.info()["seeded_at"]
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    with open_database() as db:
        assert db.info()["seeded_at"] == seeded_at                          # not rebuilt
    with open_database(":memory:") as mem:
        assert mem.path is None and mem.counts()["listing"] == 41
