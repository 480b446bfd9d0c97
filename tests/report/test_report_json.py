"""JSON export: shape, values, schema (positive and negative), round trip, versioning."""
from __future__ import annotations

import copy
import dataclasses
import json

import jsonschema
import pytest
from pypdf import PdfReader

from audit_sample import CX6_PCI, LNKCAP, LSPCI_SRC, NIC_LIST, NIC_LIST_CMD, UNDERSTOOD_SOURCE, VMNIC2, build_audit
from capturetools import completed, ready_host
from nicadvisor import __version__
from nicadvisor.model import Audit, CommandNotRun, Host, KernelModule, PhysicalNic, Switch, VmkernelNic
from nicadvisor.model.entities import NOT_RUN_REASONS, PATH_CAUSES, PathTest
from nicadvisor.model.capabilities import CAPABILITIES
from nicadvisor.report import audit_to_dict, load_schema, read_json, validate_document, write_json, write_pdf
from nicadvisor.report.json_export import benchmark_to_dict
from nicadvisor.services.audit import AuditRequest, run_audit


def _pnic(doc, host, name):
    h = next(h for h in doc["hosts"] if h["name"] == host)
    return next(p for p in h["pnics"] if p["name"] == name)


def test_document_validates_and_carries_the_facts(audit):
    doc = audit_to_dict(audit)
    validate_document(doc)
    assert doc["schema_version"] == 1
    assert doc["tool"] == {"name": "NIC Advisor", "version": __version__}
    assert doc["created_at"] == "2026-11-21T10:00:00+00:00"
    assert [h["name"] for h in doc["hosts"]] == ["esxi-a", "lnx-1"]
    esxi = doc["hosts"][0]
    assert (esxi["kind"], esxi["product_version"], esxi["build"]) == ("esxi", "8.0.2", "22380479")
    assert NIC_LIST in esxi["inputs"]

    vmnic2 = _pnic(doc, "esxi-a", "vmnic2")
    assert vmnic2["pci_address"] == "0000:5e:00.0"
    assert vmnic2["link_speed_mbps"] == 100000
    assert vmnic2["mtu"] == 1500
    assert vmnic2["driver"] == "icen"
    assert vmnic2["geneve_offload"] is None  # unknown stays null, never false/0
    assert vmnic2["evidence"]["mtu"] == {"command": NIC_LIST_CMD, "line": VMNIC2, "source": NIC_LIST}
    assert vmnic2["capabilities"]["mtu"] == {"status": "fail", "symbol": "✖", "text": "mtu 1500",
                                             "rule_ids": ["MTU-PNIC-001"],
                                             "reason": "pNIC MTU below the Geneve minimum"}
    assert vmnic2["capabilities"]["geneve_offload"]["status"] == "unknown"
    assert set(vmnic2["capabilities"]) == {c.key for c in CAPABILITIES}
    assert _pnic(doc, "esxi-a", "vmnic3")["capabilities"]["geneve_offload"]["status"] == "pass"
    assert _pnic(doc, "esxi-a", "vmnic0")["capabilities"]["link"]["status"] == "warn"
    # pseudo devices are exported but not rated
    vusb0 = _pnic(doc, "esxi-a", "vusb0")
    assert vusb0["is_physical"] is False and vusb0["capabilities"] == {} and vusb0["evidence"] == {}

    cx = _pnic(doc, "lnx-1", CX6_PCI)
    assert cx["pcie_speed_capable_gts"] == 16.0 and cx["pcie_width_capable"] == 16
    assert cx["evidence"]["pcie_width_capable"]["line"] == LNKCAP
    assert cx["evidence"]["pcie_width_capable"]["source"] == LSPCI_SRC

    assert esxi["vmknics"][0]["name"] == "vmk2" and esxi["vmknics"][0]["mtu"] == 9000
    assert {s["name"]: (s["kind"], s["mtu"], s["uplinks"]) for s in esxi["switches"]} == {
        "vSwitch0": ("standard", 1500, ["vmnic0"]), "DSwitch_063LongName": ("distributed", 9000, ["vmnic3"])}
    assert esxi["modules"][0]["version"] == "2.6.0.30-1OEM.800.1.0.20613240"
    assert esxi["modules"][0]["parameters"] == {"RxITR": "int"}

    assert [f["severity"] for f in doc["findings"]] == ["error", "warning", "info", "warning", "info"]
    assert doc["findings"][0]["evidence"][0]["source"] == NIC_LIST
    assert doc["inputs_not_understood"] == [{"source": UNDERSTOOD_SOURCE,
                                             "message": "no parser for command 'esxcli network nic foo'",
                                             "command": "esxcli network nic foo"}]
    assert [b["test"] for b in doc["benchmarks"]] == ["TCP_STREAM", "TCP_RR"]
    assert doc["benchmarks"][1]["expected"]["unit"] == "µs"
    assert doc["summary"] == {"hosts": 2, "pnics": 5, "pseudo_devices": 1, "errors": 1, "warnings": 2,
                              "infos": 2, "ready": False}


def test_write_json_round_trip(audit, tmp_path):
    path = write_json(audit, tmp_path / "audit.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["audit.json"]  # no temporary file left
    text = path.read_text(encoding="utf-8")
    assert "µs" in text and "✖" in text  # UTF-8, not \\u escapes
    assert json.loads(text) == audit_to_dict(audit)
    assert read_json(path) == audit_to_dict(audit)


def test_ready_without_errors_and_empty_audit(tmp_path):
    a = build_audit()
    a.findings = [f for f in a.findings if f.severity.value != "error"]
    doc = audit_to_dict(a)  # lnx-1's pNICs have no MTU in the inputs: no all-clear
    assert doc["summary"]["ready"] is False and doc["verdict"]["label"] == "NOT RATED"
    lnx = doc["verdict"]["hosts"][1]
    assert (lnx["host"], lnx["status"], lnx["label"]) == ("lnx-1", "not_rated", "NOT RATED")
    assert "link state of enp2s0" in lnx["reason"] and lnx["finish"][0] == "ip -d -j link show"
    validate_document(doc)
    a.hosts = a.hosts[:1]
    a.inputs = [i for i in a.inputs if not i.startswith("captures/linux_")]
    doc = audit_to_dict(a)  # captures/esxi-b/ gave no host (its one file was not understood): not all-clear
    assert doc["verdict"]["label"] == "NOT RATED" and "captures/esxi-b/odd_output.txt" in doc["verdict"]["reason"]
    a.inputs_not_understood = []
    doc = audit_to_dict(a)  # no error and every input read, but Geneve offload, RSS, the release … were not read
    assert doc["summary"]["ready"] is False and doc["verdict"]["label"] == "NOT RATED"
    assert doc["verdict"]["reason"] == "1 of 1 host could not be rated: esxi-a"
    assert "decisive checks not made on esxi-a: run " in doc["verdict"]["causes"][0]
    validate_document(doc)
    ready = audit_to_dict(completed(run_audit(AuditRequest(capture_paths=(str(ready_host(tmp_path)),)))))
    assert ready["summary"]["ready"] is True and ready["verdict"]["label"] == "READY"
    assert ready["readiness"]["hosts_rated"] == ready["readiness"]["hosts"] == 1
    validate_document(ready)
    empty = audit_to_dict(Audit(created_at="2026-11-21T10:00:00+00:00"))
    validate_document(empty)
    assert empty["benchmarks"] == [] and empty["hosts"] == []
    assert empty["summary"] == {"hosts": 0, "pnics": 0, "pseudo_devices": 0, "errors": 0, "warnings": 0,
                                "infos": 0, "ready": False}
    assert empty["verdict"]["label"] == "NOT RATED"


def test_benchmarks_accept_dicts_reject_unknown_objects_and_drop_nan():
    assert benchmark_to_dict({"test": "TCP_RR", "tool": "netperf", "latency_us": float("nan")}) == {
        "test": "TCP_RR", "tool": "netperf", "latency_us": None}
    with pytest.raises(TypeError, match="to_dict"):
        benchmark_to_dict(object())


def _broken(doc, mutate):
    bad = copy.deepcopy(doc)
    mutate(bad)
    return bad


def _set_pnic(key, value):
    def mutate(d):
        d["hosts"][0]["pnics"][0][key] = value
    return mutate


MUTATIONS = {
    "pci address not normalised": _set_pnic("pci_address", "18:00.0"),
    "pci address upper case": _set_pnic("pci_address", "0000:5E:00.0"),
    "vendor id not 4 lower hex": _set_pnic("vid", "0x8086"),
    "speed as text": _set_pnic("link_speed_mbps", "1000"),
    "speed zero": _set_pnic("link_speed_mbps", 0),
    "boolean as text": _set_pnic("tso", "on"),
    "unknown ens mode": _set_pnic("ens_mode", "turbo"),
    "field not in the model": _set_pnic("speed", 1000),
    "pnic field missing": lambda d: d["hosts"][0]["pnics"][0].pop("mtu"),
    "evidence for a non-field": lambda d: d["hosts"][0]["pnics"][0]["evidence"].update(
        {"nonsense": {"command": "c", "line": "l", "source": "s"}}),
    "evidence without line": lambda d: d["hosts"][0]["pnics"][0]["evidence"]["mtu"].pop("line"),
    "unknown capability status": lambda d: d["hosts"][0]["pnics"][0]["capabilities"]["mtu"].update(
        {"status": "ok"}),
    "unknown capability column": lambda d: d["hosts"][0]["pnics"][0]["capabilities"].update(
        {"bogus": {"status": "pass", "symbol": "✔", "text": "", "rule_ids": []}}),
    "unknown severity": lambda d: d["findings"][0].update({"severity": "critical"}),
    "finding without recommendation": lambda d: d["findings"][0].pop("recommendation"),
    "host kind": lambda d: d["hosts"][0].update({"kind": "windows"}),
    "switch kind": lambda d: d["hosts"][0]["switches"][0].update({"kind": "vds"}),
    "newer schema version": lambda d: d.update({"schema_version": 2}),
    "summary missing ready": lambda d: d["summary"].pop("ready"),
    "not understood without source": lambda d: d["inputs_not_understood"][0].pop("source"),
    "benchmark without test": lambda d: d["benchmarks"][0].pop("test"),
    "hosts not a list": lambda d: d.update({"hosts": {}}),
}


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_broken_document_fails_validation(audit, name):
    doc = audit_to_dict(audit)
    with pytest.raises(jsonschema.ValidationError):
        validate_document(_broken(doc, MUTATIONS[name]))


def test_read_json_refuses_newer_and_foreign_documents(audit, tmp_path):
    doc = audit_to_dict(audit)
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps(dict(doc, schema_version=2)), encoding="utf-8")
    with pytest.raises(ValueError, match="newer"):
        read_json(newer)
    foreign = tmp_path / "foreign.json"
    foreign.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(ValueError, match="schema_version"):
        read_json(foreign)


_TYPES = {"str": "string", "int": "integer", "float": "number", "bool": "boolean", "list[str]": "array",
          "dict[str, str]": "object"}


@pytest.mark.parametrize("cls, ref", [(PhysicalNic, "pnic"), (VmkernelNic, "vmknic"), (Switch, "switch"),
                                      (KernelModule, "module"), (Host, "host")])
def test_schema_covers_every_model_field_with_its_type(cls, ref):
    """When a model field is added, this test asks for it in audit.schema.json (with its JSON type)."""
    definition = load_schema()["$defs"][ref]
    for f in dataclasses.fields(cls):
        assert f.name in definition["properties"], f"{cls.__name__}.{f.name} missing from the schema"
        assert f.name in definition["required"]
        if f.name in ("evidence", *COLLECTIONS):
            continue
        prop = definition["properties"][f.name]
        nullable = f.type.endswith(" | None")
        base = f.type.removesuffix(" | None")
        if "enum" in prop:
            assert (None in prop["enum"]) == nullable, f.name
            continue
        expected = [_TYPES[base], "null"] if nullable else _TYPES[base]
        assert prop["type"] == expected, f"{cls.__name__}.{f.name}: {prop['type']} != {expected}"
    names = {f.name for f in dataclasses.fields(cls)}
    assert set(definition["properties"]) - names <= {"capabilities", "release"}  # derived, never stored
    field_names = [f.name for f in dataclasses.fields(cls) if f.name != "evidence" and f.name not in COLLECTIONS]
    assert sorted(definition["properties"]["evidence"]["propertyNames"]["enum"]) == sorted(field_names)


#: Host fields holding lists of objects of their own schema definition (no evidence of their own on the host).
COLLECTIONS = ("pnics", "vmknics", "switches", "modules", "not_run", "path_tests", "conflicts")


def test_schema_covers_the_commands_not_run():
    definition = load_schema()["$defs"]["command_not_run"]
    assert sorted(definition["properties"]) == sorted(f.name for f in dataclasses.fields(CommandNotRun))
    assert definition["properties"]["reason"]["enum"] == list(NOT_RUN_REASONS)
    assert load_schema()["$defs"]["host"]["properties"]["not_run"]["items"] == {"$ref": "#/$defs/command_not_run"}


def test_schema_covers_every_field_of_a_path_test():
    """Issue 17 §1: the TEP mesh's rows are in the export (``hosts[].path_tests[]``) field by field."""
    definition = load_schema()["$defs"]["path_test"]
    names = {f.name for f in dataclasses.fields(PathTest)}
    assert set(definition["properties"]) == names == set(definition["required"])
    assert definition["properties"]["cause"]["enum"] == list(PATH_CAUSES)


def test_schema_is_valid_and_knows_the_capability_columns():
    schema = load_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    caps = schema["$defs"]["pnic"]["properties"]["capabilities"]["properties"]
    assert list(caps) == [c.key for c in CAPABILITIES]


def test_real_bench_results_validate_and_reach_the_pdf(tmp_path):
    """The bench package's BenchResult (netperf TCP_RR on a veth pair: performance-baselines.md §0)."""
    results = pytest.importorskip("nicadvisor.bench.results")
    a = build_audit()
    a.inputs.append("local")  # this machine is audited: its netns run measured an audited host
    a.benchmarks = [results.BenchResult(
        test="TCP_RR", tool="netperf", path="netns", throughput_gbps=None, transactions_per_s=17800.0,
        latency_us=56.0, duration_s=10.0,
        expected=results.Expected(54.0, "µs", "netperf TCP_RR on loopback (performance-baselines.md §0)"),
        raw="", command="netperf -t TCP_RR -l 10")]
    doc = audit_to_dict(a)
    validate_document(doc)
    assert doc["benchmarks"][0]["expected"] == {"value": 54.0, "unit": "µs",
                                                "basis": "netperf TCP_RR on loopback (performance-baselines.md §0)",
                                                "low": None, "high": None, "limits": [], "notes": []}
    text = " ".join(p.extract_text() for p in PdfReader(str(write_pdf(a, tmp_path / "b.pdf"))).pages)
    assert "56 µs" in text and "netperf -t TCP_RR -l 10" in text
