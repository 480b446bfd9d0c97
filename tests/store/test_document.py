"""Round trip of model objects through the JSON documents (store/codec.py), on the real demo-lab audit."""
from __future__ import annotations

import copy
import dataclasses
import json

import pytest

from nicadvisor.bench.results import BenchResult, Expected
from nicadvisor.model import Evidence, Severity
from nicadvisor.report.json_export import audit_to_dict, read_json, write_json
from nicadvisor.report.remediation import display_source, input_roots
from nicadvisor.document import (
    CodecError,
    audit_from_dict,
    benchmark_from_dict,
    host_from_dict,
    host_to_doc,
    redact_secrets,
)


def _as_exported(audit):
    """``audit`` with every input and evidence source named as the export names it: relative to the folders given
    as inputs (issue 19 §1: the demo's JSON held 389 absolute paths of the auditor's machine)."""
    roots = input_roots(audit)

    def rel(source):
        return display_source(source, roots)

    def evidence(e):
        return Evidence(e.command, e.line, rel(e.source))

    a = copy.deepcopy(audit)
    for h in a.hosts:
        h.inputs = [rel(i) for i in h.inputs]
        for obj in (h, *h.pnics, *h.vmknics, *h.switches, *h.modules):
            obj.evidence = {k: evidence(e) for k, e in obj.evidence.items()}
        h.conflicts = [dataclasses.replace(c, values=tuple(dataclasses.replace(v, source=rel(v.source))
                                                           for v in c.values)) for c in h.conflicts]
    a.findings = [dataclasses.replace(f, evidence=tuple(evidence(e) for e in f.evidence)) for f in a.findings]
    a.inputs = [rel(i) for i in a.inputs]
    a.inputs_not_understood = [dataclasses.replace(p, source=rel(p.source)) for p in a.inputs_not_understood]
    return a


def test_audit_round_trip_through_export_document(audit, bench_result):
    audit.benchmarks = [bench_result]
    doc = json.loads(json.dumps(audit_to_dict(audit)))  # through real JSON text
    back = audit_from_dict(doc)
    assert back == _as_exported(audit) and back != audit  # the same audit, its paths relative to the inputs
    assert not [s for s in json.dumps(doc).split('"') if s.startswith("/") and "demo-lab" in s]
    assert back.created_at == audit.created_at
    host = next(h for h in back.hosts if h.name == "esxi-mfd-x550-e810")
    vmnic2 = host.pnic("vmnic2")
    assert (vmnic2.driver, vmnic2.link_speed_mbps, vmnic2.pci_address) == ("icen", 100000, "0000:5e:00.0")
    assert host.pnic("vmnic1").link_speed_mbps is None  # unknown stays unknown
    ev = back.hosts[0].pnic("vmnic0").evidence["driver"]
    assert isinstance(ev, Evidence) and ev.command == "esxcli network nic get -n vmnic0"
    assert ev.line.strip() == "Driver: ne1000"
    assert {f.severity for f in back.findings} == {Severity.ERROR, Severity.WARNING, Severity.INFO}
    assert all(isinstance(e, Evidence) for f in back.findings for e in f.evidence)
    bench = back.benchmarks[0]
    assert isinstance(bench, BenchResult) and bench.expected is None
    assert bench.transactions_per_s == 24816.193 and bench.endpoints.startswith("127.0.0.1 → 127.0.0.1")


def test_written_export_reopens(audit, tmp_path):
    path = write_json(audit, tmp_path / "audit.json")
    assert audit_from_dict(read_json(path)) == _as_exported(audit)


def test_host_doc_round_trip_shares_nothing(audit):
    host = next(h for h in audit.hosts if h.name == "esxi-sio4-nsxv")
    doc = host_to_doc(host)
    assert "capabilities" not in doc["pnics"][0]
    back = host_from_dict(doc)
    assert back == host
    assert [s.name for s in back.switches] == [s.name for s in host.switches] and len(back.switches) == 4
    doc["switches"][0]["uplinks"].append("vmnic99")
    assert back == host


def test_unknown_keys_ignored_and_missing_fields_unknown():
    back = host_from_dict({"name": "h", "added_by_a_newer_version": 1,
                           "pnics": [{"name": "vmnic0", "mtu": 9000, "not_a_field": True}]})
    assert back.pnics[0].mtu == 9000 and back.pnics[0].link_speed_mbps is None
    assert back.kind is None and back.evidence == {}


@pytest.mark.parametrize("doc, where", [
    ({"hosts": [{"pnics": []}]}, "hosts[0]: no name"),
    ({"hosts": [{"name": "h", "pnics": [{"name": "vmnic0", "evidence": {"mtu": "x"}}]}]},
     "hosts[0].pnics[0].evidence.mtu"),
    ({"findings": [{"rule_id": "r", "severity": "fatal"}]}, "findings[0].severity"),
    ({"schema_version": 2}, "newer"),
    ({"hosts": {}}, "audit.hosts"),
    ([], "expected an object"),
])
def test_malformed_documents_name_the_place(doc, where):
    with pytest.raises(CodecError, match=where.replace("[", r"\[").replace("]", r"\]")):
        audit_from_dict(doc)


def test_foreign_benchmark_stays_a_mapping():
    assert benchmark_from_dict({"test": "TCP_RR", "note": "old"}) == {"test": "TCP_RR", "note": "old"}


def test_redact_secrets():
    doc = {"inputs": ["https://root:Pa55:w0rd!@esxi-a.lab/sdk", "captures/esxi-a"],
           "n": 3, "nested": [{"s": "ssh://admin:hunter2@10.0.0.5:22 refused"}]}
    out = redact_secrets(doc)
    assert out == {"inputs": ["https://root:***@esxi-a.lab/sdk", "captures/esxi-a"],
                   "n": 3, "nested": [{"s": "ssh://admin:***@10.0.0.5:22 refused"}]}
    assert redact_secrets("vcenter://administrator@vsphere.local:S3cret@vc.lab") == \
        "vcenter://administrator@vsphere.local:***@vc.lab"
    for kept in ("https://esxi-a:443/sdk", "vcenter://administrator@vsphere.local@vc", "/tmp/a:b@c"):
        assert redact_secrets(kept) == kept


def test_a_benchmark_stored_before_the_catalogue_measures_still_loads_as_a_result(bench_result):
    from nicadvisor.document import benchmark_from_dict

    old = {k: v for k, v in bench_result.to_dict().items()
           if k in ("test", "tool", "path", "throughput_gbps", "transactions_per_s", "latency_us", "duration_s",
                    "expected", "raw", "command")}
    back = benchmark_from_dict(old)
    assert isinstance(back, BenchResult) and back.transactions_per_s == bench_result.transactions_per_s
    assert back.endpoints == "" and back.p99_latency_us is None
    assert isinstance(benchmark_from_dict({"test": "TCP_RR", "mystery": 1}), dict)  # not a result: kept as it is
