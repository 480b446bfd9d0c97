"""The cited driver-capability catalogue: schema validation, lookups, version/module/release gating, sources."""
from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
import yaml

from capturetools import REPO, SHARED
from nicadvisor.model import Host, PhysicalNic
from nicadvisor.model.capabilities import PASS, capability_matrix
from nicadvisor.rules_engine import evaluate, load_rules
from nicadvisor.vcg.driver_catalogue import (CAPABILITIES, ORIGIN_LABEL, PNIC_FIELDS, DriverCatalogueError,
                                              load_catalogue, parse_catalogue, shipped_catalogue_path)
from nicadvisor.judgement import fill_from_driver_catalogue
from nicadvisor.vcg.knowledge import rss_commands

CATALOGUE = REPO / "resources" / "vcg" / "driver_catalogue.yaml"

# A small catalogue with a `since`, used where the shipped data has none (no source names a first version).
SINCE_TEXT = textwrap.dedent("""\
    format: nicadvisor-driver-catalogue
    version: 1
    drivers:
      - os: esxi
        driver: demo
        vendor: Example
        facts:
          - capability: geneve_offload
            value: true
            since: "1.11.2"
            source: test fixture, not a real document
          - capability: max_rx_queues
            value: 16
            source: test fixture, not a real document
    """)


@pytest.fixture(scope="module")
def catalogue():
    return load_catalogue()


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "bad_catalogue.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_shipped_file_is_found_and_loads(catalogue):
    assert shipped_catalogue_path() == CATALOGUE
    assert catalogue.origin == str(CATALOGUE)
    assert ("esxi", "i40en") in catalogue.drivers()
    assert ("linux", "ice") in catalogue.drivers("linux")
    assert {("linux", "bnxt_en"), ("linux", "qede")} <= set(catalogue.drivers("linux"))
    # no public primary source states a bnxtnet or qedentv capability (SOURCES.md "Not in the catalogue, and why")
    assert not {"bnxtnet", "qedentv"} & {d for _, d in catalogue.drivers()}
    assert all(os == "esxi" for os, _ in catalogue.drivers("esxi"))


def test_every_fact_has_a_non_empty_source():
    data = yaml.safe_load(CATALOGUE.read_text(encoding="utf-8"))
    facts = [(d["driver"], f) for d in data["drivers"] for f in d["facts"]]
    assert len(facts) >= 15
    for driver, fact in facts:
        assert isinstance(fact.get("source"), str) and fact["source"].strip(), (driver, fact["capability"])


def test_reference_file_citations_name_an_existing_section():
    """A citation of shared/reference must name a section heading that exists in that file."""
    data = yaml.safe_load(CATALOGUE.read_text(encoding="utf-8"))
    cited = [f["source"] for d in data["drivers"] for f in d["facts"] if ".txt §" in f["source"]]
    assert cited, "the i40en Rx-filter fact cites nsx-t-performance-on-intel.txt"
    text = (SHARED / "reference" / "nsx-t-performance-on-intel.txt").read_text(encoding="utf-8")
    for source in cited:
        for section in re.findall(r"§(\d+(?:\.\d+)+)", source):
            assert re.search(rf"^#+ {re.escape(section)} ", text, re.M), section


def test_schema_rejects_a_value_of_the_wrong_type_naming_the_file(tmp_path):
    bad = SINCE_TEXT.replace("value: 16", "value: true")  # max_rx_queues needs an integer
    path = _write(tmp_path, bad)
    with pytest.raises(DriverCatalogueError) as err:
        load_catalogue(path)
    message = str(err.value)
    assert message.startswith(f"{path}: ")
    assert "drivers[0].facts[1].value" in message
    assert "line 13" in message  # the line of the bad value


def test_schema_rejects_a_fact_without_source(tmp_path):
    bad = SINCE_TEXT.replace("        source: test fixture, not a real document\n", "", 1)
    with pytest.raises(DriverCatalogueError, match=r"bad_catalogue\.yaml: .*'source' is a required property"):
        load_catalogue(_write(tmp_path, bad))


def test_schema_rejects_an_empty_source_and_an_unknown_capability(tmp_path):
    with pytest.raises(DriverCatalogueError, match="bad_catalogue.yaml"):
        blank = SINCE_TEXT.replace("source: test fixture, not a real document", 'source: " "', 1)
        load_catalogue(_write(tmp_path, blank))
    with pytest.raises(DriverCatalogueError, match="capability"):
        load_catalogue(_write(tmp_path, SINCE_TEXT.replace("capability: geneve_offload", "capability: lro")))


def test_invalid_yaml_and_semantic_errors_are_reported_with_the_file(tmp_path):
    with pytest.raises(DriverCatalogueError, match=r"bad_catalogue\.yaml: line \d+: not valid YAML"):
        load_catalogue(_write(tmp_path, "drivers: [\n"))
    twice = SINCE_TEXT.replace("capability: max_rx_queues\n        value: 16",
                               "capability: geneve_offload\n        value: false")
    with pytest.raises(DriverCatalogueError, match="geneve_offload is stated twice"):
        load_catalogue(_write(tmp_path, twice))
    ens_name = SINCE_TEXT.replace("driver: demo", "driver: demo_ens")
    with pytest.raises(DriverCatalogueError, match="without an _ens suffix"):
        load_catalogue(_write(tmp_path, ens_name))
    placeholder = SINCE_TEXT.replace(
        "        source: test fixture, not a real document\n",
        "        set_command: ethtool -L {interface} combined {value}\n"
        "        source: test fixture, not a real document\n", 1)
    with pytest.raises(DriverCatalogueError, match=r"unknown placeholder \{interface\}"):
        load_catalogue(_write(tmp_path, placeholder))


def test_i40en_lookup_on_an_esxi_8_host(catalogue):
    facts = catalogue.lookup("i40en", "1.14.1.0-1OEM.700.1.0.15525992", "esxi", esxi_version="8.0.3")
    assert facts["geneve_rx_filter"].decided and facts["geneve_rx_filter"].value is True
    assert "nsx-t-performance-on-intel.txt §1.4.5" in facts["geneve_rx_filter"].source
    rss = facts["rss"]
    assert rss.decided and rss.value is True
    assert rss.module_param == "RSS=1,0"
    assert rss.reason.startswith(ORIGIN_LABEL)
    assert rss.command("set", driver="i40en", value="1,0") == \
        'esxcli system module parameters set -m i40en -p "DRSS=0,0 RSS=1,0"'
    assert rss.command("rollback", driver="i40en") == 'esxcli system module parameters set -m i40en -p ""'
    assert facts["drss"].module_param == "DRSS=4,0" and facts["drss"].pnic_field is None
    # the ENS fact names the i40en_ens module only: not decided for the plain i40en module
    assert facts["ens"].decided is False and facts["ens"].value is None
    assert "i40en_ens" in facts["ens"].reason and "i40en" in facts["ens"].reason


def test_ens_suffix_case_and_dash_find_the_same_family(catalogue):
    plain = catalogue.lookup("i40en", None, "esxi", esxi_version="8.0.3")
    for name in ("i40en_ens", "I40EN_ENS", "i40en-ens", " i40en-ens (Intel40en async) "):
        facts = catalogue.lookup(name, None, "esxi", esxi_version="8.0.3")
        assert set(facts) == set(plain), name
        assert facts["ens"].decided and facts["ens"].value is True, name
        assert facts["ens"].pnic_field == "ens_capable"


def test_esxi_release_gates_a_fact(catalogue):
    old = catalogue.lookup("i40en_ens", "1.8.6", "esxi", esxi_version="7.0.2")
    assert old["rss"].decided is False and old["rss"].value is None
    assert old["rss"].reason == "stated for ESXi 7.0 U3 and later; the host runs ESXi 7.0.2"
    unknown = catalogue.lookup("i40en_ens", "1.8.6", "esxi")
    assert unknown["rss"].value is None and "ESXi version is unknown" in unknown["rss"].reason
    assert catalogue.lookup("i40en_ens", "1.8.6", "esxi", esxi_version="7.0 Update 3")["rss"].value is True
    icen = catalogue.lookup("icen", "1.12.5.0", "esxi", esxi_version="8.0.3")
    assert icen["rss"].value is None
    assert catalogue.lookup("icen", None, "esxi", esxi_version="ESX 9.0.0.0")["rss"].value is True


def test_nmlx5_drss_range_and_commands(catalogue):
    facts = catalogue.lookup("nmlx5_core", "4.23.0.66", "esxi", esxi_version="8.0.2")
    drss = facts["drss"]
    assert drss.decided and drss.module_param == "DRSS=<n>"
    assert "power of 2" in drss.range and "2-16" in drss.range
    assert drss.command("set", driver="nmlx5_core", value=8) == \
        "esxcli system module parameters set -m nmlx5_core -p DRSS=8"
    assert facts["ens_poll"].value is True and facts["ens_poll"].pnic_field is None


def test_linux_lookups(catalogue):
    ice = catalogue.lookup("ice", "1.13.7", "linux")
    assert ice["geneve_offload"].value is True and ice["geneve_offload"].pnic_field == "geneve_offload"
    assert ice["rss"].command("set", nic="ens1f0", value=16) == "ethtool -L ens1f0 combined 16"
    assert ice["rss"].command("rollback", nic="ens1f0", previous=8) == "ethtool -L ens1f0 combined 8"
    assert ice["rss"].command("rollback", nic="ens1f0") == "ethtool -L ens1f0 combined {previous}"
    ixgbe = catalogue.lookup("ixgbe", None, "linux")
    assert ixgbe["max_rx_queues"].value == 64 and ixgbe["max_rx_queues"].pnic_field == "rx_queues_max"
    assert ixgbe["rss"].range.startswith("0-16")
    # the same module name on the other OS is a different entry
    assert catalogue.lookup("ice", "1.13.7", "esxi") == {}


BNXT_BNXT_C = "0020ae2a4aa81becd182231bf48acd66c86c86dd"
BNXT_README = "edcb6804d8de8cf664c325935088ed63bd684a0a"
QEDE_MAIN_C = "01e23015a97c46ea376aacde549510b336bd5987"


def test_bnxt_en_lookup(catalogue):
    facts = catalogue.lookup("bnxt_en", "1.10.2-223.0.161.0", "linux")
    assert set(facts) == {"geneve_offload", "rss"}  # no max_rx_queues: the driver reads it from the firmware
    geneve = facts["geneve_offload"]
    assert geneve.decided and geneve.value is True and geneve.since is None
    assert geneve.reason.startswith(f"{ORIGIN_LABEL} (bnxt_en): ")
    assert "drivers/net/ethernet/broadcom/bnxt/bnxt.c" in geneve.source and BNXT_BNXT_C in geneve.source
    assert "UDP_TUNNEL_TYPE_GENEVE" in geneve.note and "NETIF_F_GSO_UDP_TUNNEL" in geneve.note
    assert geneve.command("set") is None
    rss = facts["rss"]
    assert rss.decided and rss.value is True and rss.module_param is None and rss.since is None
    assert "weka/netxtreme-bnxt_en" in rss.source and "bnxt_en/README.TXT" in rss.source
    assert BNXT_README in rss.source and "1.10.2" in rss.source and "out-of-tree" in rss.source
    assert rss.command("set", nic="ens2f0np0", value=16) == "ethtool -L ens2f0np0 combined 16 rx 0 tx 0"
    assert rss.command("rollback", nic="ens2f0np0", previous=8) == "ethtool -L ens2f0np0 combined 8 rx 0 tx 0"
    assert "up to 8" in rss.range
    # a version the source does not name changes nothing: no fact has `since`
    assert catalogue.lookup("bnxt_en", None, "linux")["rss"].value is True
    # the ESXi driver of the same NICs is another module, not in the catalogue
    assert catalogue.lookup("bnxtnet", "230.0.112.0-1OEM.800.1.0.20613240", "esxi", esxi_version="9.0") == {}
    assert catalogue.lookup("bnxt_en", None, "esxi") == {}


def test_qede_lookup(catalogue):
    facts = catalogue.lookup("qede", "8.37.0.20", "linux")
    assert set(facts) == {"geneve_offload", "rss"}
    geneve = facts["geneve_offload"]
    assert geneve.decided and geneve.value is True and geneve.since is None
    assert "drivers/net/ethernet/qlogic/qede/qede_main.c" in geneve.source and QEDE_MAIN_C in geneve.source
    assert "option length greater than 32B" in geneve.note
    rss = facts["rss"]
    assert rss.decided and rss.value is True and QEDE_MAIN_C in rss.source
    # stated in code only: no command, parameter or range
    assert (rss.set_command, rss.rollback_command, rss.module_param, rss.range) == (None, None, None, None)
    assert rss.command("set", nic="ens3f0", value=8) is None
    assert catalogue.lookup("qedentv", "3.70.35.0-1OEM.700.1.0.15843807", "esxi", esxi_version="8.0.3") == {}


def _linux_host(driver: str, version: str | None = None) -> Host:
    nic = PhysicalNic(name="ens2f0np0", driver=driver, driver_version=version, is_physical=True, mtu=9000,
                      link_up=True, link_speed_mbps=25000)
    return Host(name="kvm1", kind="linux", product_version="Ubuntu 22.04", pnics=[nic])


def test_a_linux_bnxt_en_pnic_gets_geneve_offload_from_the_catalogue():
    host = _linux_host("bnxt_en", "1.10.2-223.0.161.0")
    assert fill_from_driver_catalogue(host) == ["ens2f0np0.geneve_offload"]
    nic = host.pnic("ens2f0np0")
    assert nic.geneve_offload is True
    ev = nic.evidence["geneve_offload"]
    assert ev.command == ORIGIN_LABEL
    assert ev.line == "bnxt_en 1.10.2-223.0.161.0: geneve_offload = True"
    assert "bnxt/bnxt.c" in ev.source and BNXT_BNXT_C in ev.source
    assert nic.rss is None  # RSS is not filled: a driver that can do RSS says nothing about RSS being on
    (row,) = capability_matrix(host, evaluate(load_rules(), [host]))
    cell = row.cells["geneve_offload"]
    assert cell.status == PASS and cell.text.endswith(f"· {ORIGIN_LABEL}") and "not read on the host" in cell.reason
    enable, rollback = rss_commands(host, nic, "4")
    assert enable == "ethtool -L ens2f0np0 combined <queues> rx 0 tx 0"
    assert rollback == "ethtool -L ens2f0np0 combined 4 rx 0 tx 0"
    assert rss_commands(host, nic, None)[1] == "ethtool -L ens2f0np0 combined <the count read before> rx 0 tx 0"


def test_a_linux_qede_pnic_gets_geneve_offload_and_no_rss_command():
    host = _linux_host("qede")
    assert fill_from_driver_catalogue(host) == ["ens2f0np0.geneve_offload"]
    nic = host.pnic("ens2f0np0")
    assert nic.geneve_offload is True and nic.evidence["geneve_offload"].command == ORIGIN_LABEL
    assert nic.evidence["geneve_offload"].line == "qede (version unknown): geneve_offload = True"
    assert QEDE_MAIN_C in nic.evidence["geneve_offload"].source
    assert rss_commands(host, nic, "8") == (None, None)  # the catalogue states no command for qede


def test_version_below_since_is_undecided():
    cat = parse_catalogue(SINCE_TEXT, origin="fixture.yaml")
    low = cat.lookup("demo", "1.9.0-1OEM.700.1.0.15843807", "esxi")["geneve_offload"]
    assert low.decided is False and low.value is None and low.since == "1.11.2"
    assert low.reason == "needs demo 1.11.2 or later; the host runs 1.9.0-1OEM.700.1.0.15843807"
    high = cat.lookup("demo_ens", "1.11.2.6-1OEM.700.1.0.15843807", "esxi")["geneve_offload"]
    assert high.decided is True and high.value is True
    unknown = cat.lookup("demo", None, "esxi")["geneve_offload"]
    assert unknown.value is None and unknown.reason == "needs demo 1.11.2 or later; the host's demo version is unknown"
    # a fact without `since` holds for every version, known or not
    assert cat.lookup("demo", None, "esxi")["max_rx_queues"].value == 16


def test_unknown_or_missing_driver_gives_nothing(catalogue):
    assert catalogue.lookup("e1000e", "3.2.6", "linux") == {}
    assert catalogue.lookup(None, "1.0", "esxi") == {}
    assert catalogue.lookup("", None, "esxi") == {}
    with pytest.raises(ValueError, match="os must be"):
        catalogue.lookup("i40en", None, "windows")


def test_facts_are_frozen_and_command_rejects_unknown_kind(catalogue):
    fact = catalogue.lookup("ice", None, "linux")["rss"]
    with pytest.raises(AttributeError):
        fact.value = False  # type: ignore[misc]
    with pytest.raises(ValueError):
        fact.command("apply")
    assert catalogue.lookup("ice", None, "linux")["geneve_offload"].command("set") is None


def test_capability_fields_exist_on_the_model():
    assert set(PNIC_FIELDS) == set(CAPABILITIES)
    model_fields = set(PhysicalNic.__dataclass_fields__)
    for field in PNIC_FIELDS.values():
        assert field is None or field in model_fields, field
