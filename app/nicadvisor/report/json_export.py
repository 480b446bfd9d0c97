"""The audit as a JSON document (schema version 1), validated by ``audit.schema.json``.

Shape (documented field by field in ``docs/json-output.md``)::

    {"schema_version": 1,
     "tool": {"name": "NIC Advisor", "version": "0.1.0"},
     "created_at": "2026-11-21T10:00:00+00:00",
     "inputs": ["captures/esxi-a/nic_list.txt", ...],
     "hosts": [{"name", "kind", "product_version", "build", "product_update", "inputs", "evidence",
                "release": {"label", "text"},
                "pnics":    [{<every PhysicalNic field>, "evidence": {field: {"command", "line", "source"}},
                              "capabilities": {key: {"status", "symbol", "text", "rule_ids"}}}],
                "vmknics":  [{<every VmkernelNic field>, "evidence": {...}}],
                "switches": [{<every Switch field>, "evidence": {...}}],
                "modules":  [{<every KernelModule field>, "evidence": {...}}]}],
     "findings": [Finding.to_dict(), ...],
     "inputs_not_understood": [InputProblem.to_dict(), ...],
     "attestations": [AttestationOutcome.to_dict(), ...],
     "benchmarks": [BenchResult.to_dict() + {"verdict", "comparison"}, ...],
     "summary": {"hosts", "pnics", "pseudo_devices", "errors", "warnings", "infos", "ready"},
     "verdict": {"status", "label", "reason", "causes",
                 "hosts": [{"host", "status", "label", "reason", "missing", "finish", "checks_made",
                            "checks_applicable"}],
                 "completion", "hosts_expected"},
     "readiness": {"decisive_checks", "columns", "hosts_rated", "hosts"}}

Field lists come from :func:`dataclasses.fields` of the model classes, so a new model field appears in
the export without a change here (the schema test then asks for it to be added to ``audit.schema.json``).
Units are those of the model (``*_mbps`` Mbit/s, ``mtu`` bytes, ``*_gts`` GT/s, ``*_usecs`` µs).
Unknown facts are ``null``, never 0. ``capabilities`` holds one entry per column of
:data:`nicadvisor.model.capabilities.CAPABILITIES` for pNICs in the capability matrix; pseudo devices
(``is_physical`` False, e.g. ``vusb0``) are not rated and carry ``{}``.
"""
from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from nicadvisor import __version__
from nicadvisor.atomic_file import atomic_write  # noqa: F401  (the report writers' import, kept)
from nicadvisor.document import DERIVED_BENCH_KEYS, SCHEMA_VERSION, benchmark_to_dict, host_to_doc, plain
from nicadvisor.model.capabilities import STATUS_SYMBOL, capability_matrix
from nicadvisor.model.audit import Audit
from nicadvisor.model.entities import Host, Severity, findings_by_host
from nicadvisor.model.references import citations
from nicadvisor.model.text import escape_undecoded
from nicadvisor.model.verdict import coverage_of
from nicadvisor.vcg.builds import host_release, release_text

TOOL_NAME = "NIC Advisor"


def benchmark_entry(result: Any) -> dict[str, Any]:
    """A benchmark result as every report shows it: :func:`benchmark_to_dict` plus ``verdict`` (``"pass"``,
    ``"warn"``, ``"fail"`` against its expected band, ``""`` without one) and ``comparison`` (the sentence:
    ``"within band"``, ``"12 % slower than expected; bounded by: …"``, ``"no expectation: <why>"``), both from
    :func:`nicadvisor.bench.results.verdict_of` / ``comparison_of`` so that the CLI, the wizard, JSON, CSV, HTML and
    PDF say the same. Raises TypeError as :func:`benchmark_to_dict`."""
    from nicadvisor.bench.results import comparison_of, verdict_of

    doc = {k: v for k, v in benchmark_to_dict(result).items() if k not in DERIVED_BENCH_KEYS}
    return {**doc, "verdict": verdict_of(doc), "comparison": comparison_of(doc)}


def summarize(audit: Audit, verdict: Any | None = None) -> dict[str, Any]:
    """Counts for the cover page and the JSON ``summary``.

    ``pnics`` counts ports that are physical or of unknown kind, ``pseudo_devices`` those with
    ``is_physical`` False (``vusb0``, bonds, VLAN devices). ``ready`` is True only when the verdict is READY
    (``verdict``, :attr:`Audit.verdict` computed when not given).
    """
    all_pnics = [p for h in audit.hosts for p in h.pnics]
    pseudo = sum(1 for p in all_pnics if p.is_physical is False)
    counts = {s: sum(1 for f in audit.findings if f.severity is s) for s in Severity}
    return {
        "hosts": len(audit.hosts),
        "pnics": len(all_pnics) - pseudo,
        "pseudo_devices": pseudo,
        "errors": counts[Severity.ERROR],
        "warnings": counts[Severity.WARNING],
        "infos": counts[Severity.INFO],
        "ready": (verdict or audit.verdict).ready,
    }


def host_to_dict(host: Host, findings: list, source: Callable[[str], str] | None = None) -> dict[str, Any]:
    """One host as :func:`nicadvisor.document.host_to_doc` gives it (input and evidence sources through ``source``),
    with its ESXi ``release`` and each physical pNIC with its capability cells. ``findings``: the audit's (or the
    host's own)."""
    out = host_to_doc(host, source)
    out["release"] = {"label": host_release(host), "text": release_text(host)}
    rows = {row.pnic: row for row in capability_matrix(host, findings)}
    for pnic, d in zip(host.pnics, out["pnics"]):
        row = rows.get(pnic.name) if pnic.is_physical is not False else None
        d["capabilities"] = {} if row is None else {
            key: {"status": cell.status, "symbol": STATUS_SYMBOL[cell.status], "text": cell.text,
                  "rule_ids": sorted({f.rule_id for f in cell.findings}), "reason": cell.reason}
            for key, cell in row.cells.items()
        }
    return out


def finding_to_dict(finding: Any, source: Callable[[str], str] | None = None) -> dict[str, Any]:
    """``Finding.to_dict()`` with its evidence sources through ``source`` and ``citations``: each document it cites
    by title, version, publisher, section and URL (:mod:`nicadvisor.model.references`; ``references`` keep the
    internal keys, as ids)."""
    d = plain(finding.to_dict())
    if source is not None:
        d["evidence"] = [{**e, "source": source(e["source"])} for e in d["evidence"]]
    d["citations"] = [c.to_dict() for c in citations(finding.references)]
    return d


def audit_to_dict(audit: Audit) -> dict[str, Any]:
    """The whole audit as the schema-version-1 document described in the module docstring. Inputs and evidence
    sources are named relative to the folders given as inputs (``demo-lab/esxi-a/nic_list.txt``), never with the
    auditor's absolute paths (:func:`nicadvisor.report.remediation.display_source`).

    Raises TypeError if a benchmark result cannot be converted (see :func:`benchmark_to_dict`).
    """
    from nicadvisor.report.remediation import display_source, input_roots

    roots = input_roots(audit)

    def source(path: str) -> str:
        return display_source(path, roots)

    of_host = findings_by_host(audit.findings)  # each host's matrix reads its own findings: linear in hosts
    verdict = audit.verdict  # computed once: it reads every finding
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": TOOL_NAME, "version": __version__},
        "created_at": audit.created_at,
        "inputs": [source(i) for i in audit.inputs],
        "hosts": [host_to_dict(h, of_host.get(h.name, []), source) for h in audit.hosts],
        "findings": [finding_to_dict(f, source) for f in audit.findings],
        "inputs_not_understood": [{**p.to_dict(), "source": source(p.source)} for p in audit.inputs_not_understood],
        "attestations": [{**o.to_dict(), "source": source(o.attestation.source)} for o in audit.attestations],
        "benchmarks": [benchmark_entry(b) for b in (audit.benchmarks or [])],
        "summary": summarize(audit, verdict),
        "verdict": {**verdict.to_dict(), "completion": audit.completion, "hosts_expected": audit.hosts_expected},
        "readiness": coverage_of(audit, verdict).to_dict(),
        "scope": scope_dict(audit),
    }


def scope_dict(audit: Audit) -> dict[str, Any]:
    """The JSON ``scope``: ``target_nsx`` (the NSX version the rollout targets, or null), ``target_nsx_hosts`` (each
    host's ESXi release against it, :func:`nicadvisor.vcg.nsx_interop.host_support`) and ``captured`` (when the
    inputs were captured, :func:`nicadvisor.report.scope.capture_lines`)."""
    from nicadvisor.report.scope import capture_lines
    from nicadvisor.vcg.nsx_interop import host_support

    target = getattr(audit, "target_nsx", None)
    return {"target_nsx": target, "target_nsx_hosts": [r.to_dict() for r in host_support(audit.hosts, target)],
            "captured": capture_lines(audit)}


def _json_chunks(audit: Audit) -> Iterator[str]:
    """The JSON text of :func:`audit_to_dict` in pieces (2-space indent, strict: no NaN, final newline), each
    written with the bytes of file names that were not UTF-8 as the text ``\\xNN`` (no UTF-8 file can hold them
    as they are; a piece is a whole token, so an escape is never split)."""
    encoder = json.JSONEncoder(indent=2, ensure_ascii=False, allow_nan=False)
    for chunk in encoder.iterencode(audit_to_dict(audit)):
        yield escape_undecoded(chunk, in_json=True)
    yield "\n"


def to_json(audit: Audit) -> str:
    """The document of :func:`audit_to_dict` as UTF-8-ready JSON text (2-space indent, strict: no NaN)."""
    return "".join(_json_chunks(audit))


def write_json(audit: Audit, path: str | os.PathLike[str]) -> Path:
    """Write the audit to ``path`` (UTF-8 JSON, ``\\n`` line ends), replacing it atomically; returns the path.

    Raises OSError if the folder cannot be written, TypeError for an unconvertible benchmark. Streamed: the text
    is never whole in memory (``json.dumps`` of 1,000 hosts peaked at 400 MB for a 50 MB file).
    """
    chunks = _json_chunks(audit)
    first = next(chunks)  # an unconvertible value raises before any file is made

    def _write(tmp: Path) -> None:
        with open(tmp, "x", encoding="utf-8", newline="\n") as fh:
            fh.write(first)
            for chunk in chunks:
                fh.write(chunk)

    return atomic_write(path, _write)


SCHEMA_FILE = Path(__file__).with_name("audit.schema.json")


def load_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the export, read from ``audit.schema.json`` beside this module."""
    with open(SCHEMA_FILE, encoding="utf-8") as fh:
        return json.load(fh)


def validate_document(doc: Mapping[str, Any]) -> None:
    """Validate an export against :func:`load_schema`.

    Raises ``jsonschema.ValidationError`` (the most relevant error) if ``doc`` does not conform.
    """
    import jsonschema  # imported here: only validation needs it

    validator = jsonschema.Draft202012Validator(load_schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(doc))
    if error is not None:
        raise error


def read_json(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read an export written by :func:`write_json` (any older or equal schema version) and validate it.

    Raises ValueError for a document of a newer ``schema_version`` than :data:`SCHEMA_VERSION` (written by
    a newer NIC Advisor) or without one, ``jsonschema.ValidationError`` if it does not conform,
    ``json.JSONDecodeError`` for text that is not JSON and OSError if it cannot be read.
    """
    with open(path, encoding="utf-8") as fh:
        doc = json.load(fh)
    version = doc.get("schema_version") if isinstance(doc, dict) else None
    if not isinstance(version, int) or isinstance(version, bool):
        raise ValueError(f"{path}: not a NIC Advisor export (no integer schema_version)")
    if version > SCHEMA_VERSION:
        raise ValueError(f"{path}: schema_version {version} is newer than this NIC Advisor supports "
                         f"({SCHEMA_VERSION}); update NIC Advisor")
    validate_document(doc)
    return doc
