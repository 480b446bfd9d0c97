"""Issue 16 §4: the imported compatibility guide decides a capability cell. When it lists, for the pNIC's device, the
host's release and the installed driver version, a feature the overlay needs (Geneve offload, Geneve Rx filters, the
ENS mode of the host switch), the cell is decided "from the compatibility guide (file, date)", at a lower trust than
the host's own reading, which wins (a conflict is shown); a listing that does not name the feature warns "not listed
for …", never a "no".

Guide input: tests/vcg/guide_files/exchange_x710_ens_nsxt30.csv (public facts, SOURCES.md): the X710 with i40en-ens
1.1.3 on ESXi 6.7 listed for N-VDS Enhanced Data Path and nothing else. Host facts are model values: an ESXi 6.7 GA
host (build 8169922) whose X710 uplinks an NSX host switch in ENS mode."""
from __future__ import annotations

from pathlib import Path

from nicadvisor.model import Evidence, Host, PhysicalNic, Severity, Switch
from nicadvisor.model.capabilities import PASS, WARN, capability_matrix
from nicadvisor.model.readiness import readiness
from nicadvisor.vcg.guide_store import apply_import, load_dataset, plan_import
from nicadvisor.judgement import judge

GUIDE = Path(__file__).parent / "guide_files" / "exchange_x710_ens_nsxt30.csv"


def _ev(what: str) -> Evidence:
    return Evidence("test value", what, "tests/vcg/test_guide_decides_cells.py")


def _host(**read) -> Host:
    p = PhysicalNic("vmnic2")
    for k, v in dict(vid="8086", did="1572", driver="i40en_ens", driver_version="1.1.3", link_up=True,
                     link_speed_mbps=10000, mtu=9000, is_physical=True, **read).items():
        p.set_fact(k, v, _ev(f"{k} = {v}"))
    h = Host("esx67", kind="esxi", pnics=[p], switches=[Switch("nvds-ens", kind="opaque", mtu=9000, uplinks=["vmnic2"],
                                                              ens_mode="ens", nsx_host_switch=True)])
    for k, v in dict(product_version="6.7.0", build="8169922", product_update="GA").items():
        h.set_fact(k, v, _ev(f"{k} = {v}"))
    return h


def _guide(tmp_path):
    apply_import(plan_import([GUIDE], tmp_path), tmp_path)
    return load_dataset(tmp_path)


def _cells(host, findings):
    (row,) = capability_matrix(host, findings)
    return row.cells


def test_a_listed_feature_decides_the_cell_from_the_guide_with_its_file_and_date(tmp_path):
    host, data = _host(), _guide(tmp_path)
    findings = judge([host], guide=data)
    (listed,) = [f for f in findings if f.rule_id == "guide-feature-listed"]
    assert listed.obj == "vmnic2" and listed.category == "ens" and "ENS poll mode" in listed.title
    ens = _cells(host, findings)["ens"]
    assert ens.status == PASS and "from the compatibility guide" in ens.text
    assert GUIDE.name in ens.reason and "data of 2026-" in ens.reason  # the file and its date
    assert "esxcfg-nics -e" in ens.reason  # and how to read it on the host, which would win
    assert host.pnic("vmnic2").ens_capable is None  # a cell decided, never a fact invented
    # without the guide the driver catalogue, a document of lower trust than the guide, decides the same cell (i40en_ens
    # is the ENS driver): with the guide, the guide decided it
    ens = _cells(host, judge([host], guide=None))["ens"]
    assert ens.status == PASS and "from the driver catalogue" in ens.text
    # the ENS decisive check is made through the guide
    assert "ens" not in {m.check for m in readiness(host, findings).missing}


def test_a_feature_the_listing_does_not_name_warns_never_a_no(tmp_path):
    host, data = _host(), _guide(tmp_path)
    findings = judge([host], guide=data)
    warned = {f.title: f for f in findings if f.rule_id == "guide-feature-not-listed"}
    assert set(warned) == {"Not listed for Geneve offload in the compatibility guide",
                           "Not listed for Geneve Rx filters in the compatibility guide"}
    f = warned["Not listed for Geneve offload in the compatibility guide"]
    assert f.severity is Severity.WARNING and "not for Geneve offload" in f.message and "whether vmnic2 does it is not known" in f.message
    assert "vsish -e get /net/pNics/vmnic2/properties" in f.recommendation
    cells = _cells(host, findings)
    assert cells["geneve_offload"].status == WARN and "Not listed for Geneve offload" in cells["geneve_offload"].reason
    assert host.pnic("vmnic2").geneve_offload is None  # not a "no": no-geneve-offload did not fire
    assert "no-geneve-offload" not in {x.rule_id for x in findings}
    # Rx filters not listed and RSS not read: the Rx filter / RSS check stays open, with its command
    missing = {m.check: m for m in readiness(host, findings).missing}
    assert "rx_filter_or_rss" in missing and "geneve_offload" not in missing


def test_the_host_reading_wins_and_a_conflict_is_shown(tmp_path):
    host, data = _host(ens_capable=False, geneve_offload=True), _guide(tmp_path)
    findings = judge([host], guide=data)
    conflicts = [f for f in findings if f.rule_id == "guide-feature-conflict"]
    assert {f.category for f in conflicts} == {"ens", "geneve_offload"}
    ens = next(f for f in conflicts if f.category == "ens")
    assert "reads ens capable = False on the host" in ens.message and "the value read on the host is used" in ens.message
    assert not [f for f in findings if f.rule_id in ("guide-feature-listed", "guide-feature-not-listed")
                and f.category in ("ens", "geneve_offload")]
    cells = _cells(host, findings)
    assert "from the compatibility guide" not in cells["ens"].text  # the reading, not the guide
    assert cells["geneve_offload"].status == PASS and "geneve offload yes" in cells["geneve_offload"].text


def test_the_vsan_hcl_names_no_nsx_feature_so_its_listings_warn_of_none(tmp_path):
    from nicadvisor.vcg.guide_findings import feature_findings

    snapshot = Path(__file__).parent / "guide_files" / "vcfcheck_snapshot_59003_excerpt.json"
    apply_import(plan_import([snapshot], tmp_path), tmp_path)
    data = load_dataset(tmp_path)
    p = PhysicalNic("vmnic4", vid="14e4", did="16d7", svid="1028", ssid="0bdd", driver="bnxtroce",
                    driver_version="236.1.128.0-1OEM.800", firmware_version="36.11.73.00", is_physical=True)
    h = Host("esx80", kind="esxi", product_version="8.0.0", build="20513097", pnics=[p])
    assert [f for f in feature_findings([h], data)] == []


def test_a_listing_decides_every_pnic_it_matches_not_only_todays_uplinks(tmp_path):
    """Issue 24 §1: a vCenter-only audit of an E810 host with a guide imported decided vmnic0's Geneve cells from the
    guide, while vmnic1 (same IDs, driver and release) stayed unknown because it uplinks nothing today; yet the free
    pNICs are often the ones NSX takes. The listing here is written for this test in the exchange format (a listing
    that names both Geneve features for the E810-C QSFP, icen 1.8.3.0, ESXi 8.0): what is tested is that it decides
    both pNICs, not what the real guide lists."""
    guide = tmp_path / "e810_geneve_listing.csv"
    guide.write_text("# format: nic-advisor-vcg-exchange 1\n# generated_at: 2026-11-25T06:26:37Z\n"
                     "vid,did,svid,ssid,vendor,model,release,driver,driver_version,driver_type,firmware,features,link\n"
                     "8086,1592,,,Intel Corporation,Ethernet Controller E810-C for QSFP,ESXi 8.0,icen,1.8.3.0,,,"
                     "Geneve-Offload;Geneve-RxFilters,\n", encoding="utf-8")
    store = tmp_path / "store"
    apply_import(plan_import([guide], store), store)
    data = load_dataset(store)
    pnics = []
    for name in ("vmnic0", "vmnic1"):
        p = PhysicalNic(name)
        for k, v in dict(vid="8086", did="1592", driver="icen", driver_version="1.8.3.0", link_up=True,
                         link_speed_mbps=100000, mtu=9000, is_physical=True).items():
            p.set_fact(k, v, _ev(f"{name} {k} = {v}"))
        pnics.append(p)
    h = Host("esx80", kind="esxi", pnics=pnics, switches=[Switch("vds-overlay", kind="distributed", mtu=9000,
                                                                 uplinks=["vmnic0"])])
    for k, v in dict(product_version="8.0.0", build="20513097", product_update="GA").items():
        h.set_fact(k, v, _ev(f"{k} = {v}"))
    assert h.overlay_role(h.pnic("vmnic1")) == "none"  # not an uplink today
    findings = judge([h], guide=data)
    listed = {(f.obj, f.category) for f in findings if f.rule_id == "guide-feature-listed"}
    assert listed == {(n, c) for n in ("vmnic0", "vmnic1") for c in ("geneve_offload", "rx_filter")}
    rows = {r.pnic: r.cells for r in capability_matrix(h, findings)}
    for name in ("vmnic0", "vmnic1"):
        for column in ("geneve_offload", "rx_filter"):
            assert rows[name][column].status == PASS and "from the compatibility guide" in rows[name][column].text
    # a pNIC that cannot carry the overlay is not warned about a feature a listing leaves out
    assert not [f for f in findings if f.rule_id == "guide-feature-not-listed" and f.obj == "vmnic1"]
