"""A build the table does not hold is "update unknown", never the GA release; the release
level ``vmware -vl`` prints decides it; ESX 9 releases carry the labels the guide formats use."""
from __future__ import annotations

import pytest

from nicadvisor.parsers.registry import parse_output
from nicadvisor.vcg.builds import guide_release, read_builds
from nicadvisor.vcg.guide_formats import normalise_release

HEADER = "build,version,label,update_label,release_date,source\n"
# vmware -vl as the HPE GreenLake README shows it (quoted in the note of the demo-lab capture
# esxi-hpe-connectx5/esxi_esxcfg-nics-l_nmlx5_core_connectx5_25g_esxi703.txt)
VMWARE_VL = "VMware ESXi 7.0.3 build-22348816\nVMware ESXi 7.0 Update 3\n"


@pytest.mark.parametrize("version, build", [
    ("6.7.0", "17700523"),    # ESXi 6.7 P05 (ESXi670-202103001), KB 2143832: a patch of the 6.7 U3 line
    ("6.7.0", "16075168"),    # ESXi 6.7 P02
    ("6.5.0", "17477841"),    # ESXi 6.5 P06
    ("6.7.0", None),          # 6.x prints 6.7.0 for every update
])
def test_a_6x_build_not_in_the_table_is_update_unknown(version, build):
    assert guide_release(version, build) is None


def test_the_ga_build_is_the_ga_release():
    assert guide_release("6.7.0", "8169922") == "ESXi 6.7"
    assert guide_release("6.5.0", "4564106") == "ESXi 6.5"


def test_the_level_vmware_vl_prints_decides_the_update():
    from nicadvisor.vcg.builds import level_from_records

    results = parse_output("vmware -vl", VMWARE_VL)
    level = level_from_records([rec for r in results for rec in r.records])
    assert level == "Update 3"
    host = {name: f.value for r in results for name, f in r.host.items()}
    assert guide_release(host["product_version"], host["build"], level) == "ESXi 7.0 U3"
    assert guide_release("6.7.0", "17700523", "Update 3") == "ESXi 6.7 U3"
    assert guide_release("6.7.0", "17700523", "GA") == "ESXi 6.7"


@pytest.mark.parametrize("version, expected", [
    ("9.0.0.0", "ESX 9.0"), ("9.0.0.0100", "ESX 9.0"), ("9.0.1.0", "ESX 9.0"), ("9.1.0.0", "ESX 9.1"),
])
def test_esx9_releases_carry_the_guide_formats_labels(version, expected):
    release = guide_release(version, None)
    assert release == expected
    assert normalise_release(release) == release                     # a label the guide formats produce
    assert normalise_release(version.rsplit(".", 2)[0]) == release    # "9.0" → "ESX 9.0", as an import reads it


def test_the_table_accepts_an_esx9_maintenance_release_row():
    rows = read_builds(HEADER + "100,9.0.1.0,ESX 9.0.1.0,ESX 9.0,,https://example.invalid/source\n")
    assert rows[0].update_label == "ESX 9.0"
