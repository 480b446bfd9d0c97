"""The audit document: model objects to JSON-ready documents and back, the one codec of the audit history
(:mod:`nicadvisor.store`) and of the JSON export (:mod:`nicadvisor.report.json_export`), which adds the derived parts
(capability cells, summary, verdict) on top.

A host document has the shape of a host in the JSON export (schema version :data:`SCHEMA_VERSION`,
``docs/json-output.md``) minus the derived ``capabilities`` cells::

    {"name": "esxi-a", "kind": "esxi", "product_version", "build", "product_update", "inputs": [...],
     "evidence": {field: {"command", "line", "source"}},
     "not_run": [{"command", "reason", "detail", "partial"}],
     "pnics": [{<every PhysicalNic field>, "evidence": {...}}], "vmknics": [...],
     "switches": [...], "modules": [...]}

Field lists come from :func:`dataclasses.fields` of the model classes, so a new model field appears in every document
without a change here. :func:`audit_from_dict` reads such documents (or a whole export written by ``write_json``) back
into :class:`~nicadvisor.model.Audit` objects, evidence included. Derived keys (``capabilities``, ``summary``,
``tool``) are ignored, and so are keys this version does not know (a field a newer NIC Advisor added within the same
schema version); a model field missing from the document stays at its default (``None``: unknown). Units are those of
the model (``*_mbps`` Mbit/s, ``mtu`` bytes, ``*_gts`` GT/s, ``*_usecs`` µs; benchmarks Gbit/s and µs).

:func:`redact_secrets` removes the password part of ``scheme://user:password@host`` URLs from every
string of a document; the history store applies it to everything it writes.
"""
from __future__ import annotations

import dataclasses
import enum
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from nicadvisor.model.conflicts import Conflict
from nicadvisor.model.audit import Audit
from nicadvisor.model.entities import (
    CommandNotRun,
    Evidence,
    Finding,
    Host,
    InputProblem,
    KernelModule,
    PathTest,
    PhysicalNic,
    Severity,
    Switch,
    VmkernelNic,
)
from nicadvisor.model.verdict import COMPLETIONS

#: The version of the audit document's shape (``docs/json-output.md``): stored hosts, the JSON export and reopened
#: exports all carry it.
SCHEMA_VERSION = 1

#: Host fields that are nested collections, and the class of their items.
HOST_COLLECTIONS: dict[str, type] = {
    "pnics": PhysicalNic, "vmknics": VmkernelNic, "switches": Switch, "modules": KernelModule,
}

#: After ``scheme://``: ``user:password@`` (the user may hold an unencoded ``@``: ``administrator@vsphere.local``).
#: Bounded, and tried only where ``://`` stands, so a 16 MB word costs linear time (the earlier regex, which tried
#: a scheme at every letter, took 33 s on 160 k characters).
_USERINFO_RE = re.compile(r"[^\s/:]{0,256}:[^\s/@]{1,1024}@")
_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-")
REDACTED = "***"


def _redact_text(text: str) -> str:
    """``text`` with the password of every ``scheme://user:password@`` replaced by :data:`REDACTED`."""
    if "://" not in text:
        return text
    out: list[str] = []
    done = 0
    for m in re.finditer("://", text):
        start = m.start()
        j = start
        while j > 0 and start - j < 32 and text[j - 1] in _SCHEME_CHARS:
            j -= 1
        if j == start or not text[j].isalpha() or m.end() < done:
            continue
        user = _USERINFO_RE.match(text, m.end())
        if not user:
            continue
        colon = text.index(":", m.end())
        out.append(text[done:colon + 1] + REDACTED + "@")
        done = user.end()
    out.append(text[done:])
    return "".join(out)


class CodecError(ValueError):
    """A document cannot be read back into model objects; the message names the place (``hosts[2].pnics[0]``)."""


def redact_secrets(value: Any) -> Any:
    """``value`` (JSON-ready data) with ``scheme://user:password@`` turned into ``scheme://user:***@``.

    Walks dicts and lists; other values are returned unchanged. Returns new containers.
    """
    if isinstance(value, str):
        return _redact_text(value)
    if isinstance(value, Mapping):
        return {k: redact_secrets(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_secrets(v) for v in value]
    return value


# ---------------------------------------------------------------- to documents

def plain(value: Any) -> Any:
    """``value`` as JSON-safe data: tuples/sets become lists, enums their value, non-finite floats ``None``."""
    if isinstance(value, enum.Enum):
        return plain(value.value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((plain(v) for v in value), key=str)
    return value


def object_to_dict(obj: Any, skip: tuple[str, ...] = (),
                   source: Callable[[str], str] | None = None) -> dict[str, Any]:
    """Every dataclass field of ``obj`` (a model object with an ``evidence`` map) except ``skip``.

    ``evidence`` becomes ``{field: {"command", "line", "source"}}``, each source through ``source`` when given (the
    JSON export names it relative to the inputs given; the audit history keeps it as read). Returns a new dict of
    JSON-safe values.
    """
    out: dict[str, Any] = {}
    for f in dataclasses.fields(obj):
        if f.name in skip or f.name == "evidence":
            continue
        out[f.name] = plain(getattr(obj, f.name))
    out["evidence"] = {name: ev.to_dict() if source is None else {**ev.to_dict(), "source": source(ev.source)}
                       for name, ev in sorted(obj.evidence.items())}
    return out


def benchmark_to_dict(result: Any) -> dict[str, Any]:
    """One benchmark result as a dict: its ``to_dict()``, or the mapping/dataclass itself.

    The bench package's ``BenchResult.to_dict()`` gives ``test, tool, path, throughput_gbps (Gbit/s),
    transactions_per_s, latency_us (µs), duration_s (s), expected {value, unit, basis}, raw, command``.
    Raises TypeError for an object that is none of these.
    """
    to_dict = getattr(result, "to_dict", None)
    if callable(to_dict):
        return plain(to_dict())
    if isinstance(result, Mapping):
        return plain(result)
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        return plain(dataclasses.asdict(result))
    raise TypeError(f"benchmark result {type(result).__name__} has no to_dict()")


#: Keys :func:`benchmark_entry` adds to a result's document: computed from it, never stored.
DERIVED_BENCH_KEYS = ("verdict", "comparison")



def host_to_doc(host: Host, source: Callable[[str], str] | None = None) -> dict[str, Any]:
    """One host as its JSON-export shape without ``capabilities`` (those depend on the findings); its ``inputs`` and
    every evidence source through ``source`` when given (see :func:`object_to_dict`).

    Returns a new dict of JSON-safe values (see the module docstring for the shape).
    """
    out = object_to_dict(host, skip=(*HOST_COLLECTIONS, "not_run", "path_tests", "conflicts"),
                         source=source)
    if source is not None:
        out["inputs"] = [source(i) for i in host.inputs]
    for name in HOST_COLLECTIONS:
        out[name] = [object_to_dict(item, source=source) for item in getattr(host, name)]
    out["not_run"] = [n.to_dict() for n in host.not_run]
    out["path_tests"] = [plain(t.to_dict()) for t in host.path_tests]
    out["conflicts"] = [c.to_dict() for c in host.conflicts]
    if source is not None:
        for c in out["conflicts"]:
            c["values"] = [{**v, "source": source(v["source"])} for v in c["values"]]
    return out


def finding_to_doc(finding: Finding) -> dict[str, Any]:
    """``Finding.to_dict()`` (severity as its string value, references/evidence as lists)."""
    return finding.to_dict()


def problem_to_doc(problem: InputProblem) -> dict[str, str]:
    """``InputProblem.to_dict()``: ``{"source", "message", "command"}``."""
    return problem.to_dict()


# ---------------------------------------------------------------- from documents

def _mapping(doc: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(doc, Mapping):
        raise CodecError(f"{where}: expected an object, got {type(doc).__name__}")
    return doc


def _list(doc: Mapping[str, Any], key: str, where: str) -> list[Any]:
    value = doc.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise CodecError(f"{where}.{key}: expected a list, got {type(value).__name__}")
    return value


def _text(doc: Mapping[str, Any], key: str, where: str, default: str | None = None) -> str:
    value = doc.get(key, default)
    if not isinstance(value, str):
        raise CodecError(f"{where}.{key}: expected a string, got {type(value).__name__}")
    return value


def evidence_from_dict(doc: Any, where: str = "evidence") -> Evidence:
    """``{"command", "line", "source"}`` → :class:`Evidence`. Raises CodecError for a malformed entry."""
    d = _mapping(doc, where)
    return Evidence(command=_text(d, "command", where, ""), line=_text(d, "line", where, ""),
                    source=_text(d, "source", where, ""))


def _evidence_map(doc: Mapping[str, Any], where: str) -> dict[str, Evidence]:
    raw = doc.get("evidence") or {}
    ev = _mapping(raw, f"{where}.evidence")
    return {str(name): evidence_from_dict(item, f"{where}.evidence.{name}") for name, item in ev.items()}


def _copy(value: Any) -> Any:
    """Fresh lists/dicts so the rebuilt objects share nothing with the document."""
    if isinstance(value, list):
        return [_copy(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _copy(v) for k, v in value.items()}
    return value


def object_from_dict(cls: type, doc: Any, where: str, skip: tuple[str, ...] = ()) -> Any:
    """Rebuild a model object (``PhysicalNic``, ``VmkernelNic``, ``Switch``, ``KernelModule``, ``Host``).

    Every dataclass field present in ``doc`` is set (unknown keys are ignored), ``evidence`` is rebuilt
    as :class:`Evidence` objects. Raises CodecError when ``doc`` is not an object or has no string ``name``.
    """
    d = _mapping(doc, where)
    name = d.get("name")
    if not isinstance(name, str) or not name:
        raise CodecError(f"{where}: no name")
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name in ("evidence", *skip) or f.name not in d:
            continue
        kwargs[f.name] = _copy(d[f.name])
    kwargs["evidence"] = _evidence_map(d, where)
    return cls(**kwargs)


def host_from_dict(doc: Any, where: str = "host") -> Host:
    """A host document (stored host, or one ``hosts[]`` entry of an export) → :class:`Host`.

    Raises CodecError naming the place of a malformed entry.
    """
    d = _mapping(doc, where)
    host: Host = object_from_dict(Host, d, where, skip=(*HOST_COLLECTIONS, "not_run", "path_tests", "conflicts"))
    for name, cls in HOST_COLLECTIONS.items():
        items = [object_from_dict(cls, item, f"{where}.{name}[{i}]")
                 for i, item in enumerate(_list(d, name, where))]
        setattr(host, name, items)
    host.not_run = [not_run_from_dict(item, f"{where}.not_run[{i}]") for i, item in enumerate(_list(d, "not_run", where))]
    for i, item in enumerate(_list(d, "path_tests", where)):
        try:
            host.path_tests.append(PathTest.from_dict(dict(_mapping(item, f"{where}.path_tests[{i}]"))))
        except (TypeError, ValueError) as exc:
            raise CodecError(f"{where}.path_tests[{i}]: {exc}") from None
    for i, item in enumerate(_list(d, "conflicts", where)):
        try:
            host.conflicts.append(Conflict.from_dict(dict(_mapping(item, f"{where}.conflicts[{i}]"))))
        except (KeyError, TypeError, ValueError) as exc:
            raise CodecError(f"{where}.conflicts[{i}]: {exc!r}") from None
    return host


def not_run_from_dict(doc: Any, where: str = "not_run") -> CommandNotRun:
    """``{"command", "reason", "detail", "partial"}`` → :class:`CommandNotRun`. Raises CodecError (an unknown
    reason, a missing command)."""
    d = _mapping(doc, where)
    partial = d.get("partial", False)
    if not isinstance(partial, bool):
        raise CodecError(f"{where}.partial: expected true or false, got {type(partial).__name__}")
    try:
        return CommandNotRun(command=_text(d, "command", where), reason=_text(d, "reason", where),
                             detail=_text(d, "detail", where, ""), partial=partial)
    except ValueError as exc:
        raise CodecError(f"{where}.reason: {exc}") from exc


def finding_from_dict(doc: Any, where: str = "finding") -> Finding:
    """``Finding.to_dict()`` output → :class:`Finding`. Raises CodecError (unknown severity, missing key)."""
    d = _mapping(doc, where)
    try:
        severity = Severity(d.get("severity"))
    except ValueError as exc:
        raise CodecError(f"{where}.severity: {exc}") from exc
    try:
        full = Severity(d["full_severity"]) if d.get("full_severity") is not None else None
    except ValueError as exc:
        raise CodecError(f"{where}.full_severity: {exc}") from exc
    return Finding(
        rule_id=_text(d, "rule_id", where), title=_text(d, "title", where, ""), severity=severity,
        host=_text(d, "host", where, ""), obj=_text(d, "object", where, ""),
        target=_text(d, "target", where, ""),
        message=_text(d, "message", where, ""), recommendation=_text(d, "recommendation", where, ""),
        references=tuple(str(r) for r in _list(d, "references", where)),
        evidence=tuple(evidence_from_dict(e, f"{where}.evidence[{i}]")
                       for i, e in enumerate(_list(d, "evidence", where))),
        category=_text(d, "category", where, ""),
        facts=tuple(str(n) for n in _list(d, "facts", where)),
        overlay_role=_text(d, "overlay_role", where, ""), full_severity=full, rollback=_text(d, "rollback", where, ""),
        change=_text(d, "change", where, ""), verify=_text(d, "verify", where, ""),
    )


def problem_from_dict(doc: Any, where: str = "problem") -> InputProblem:
    """``{"source", "message", "command"}`` → :class:`InputProblem`. Raises CodecError."""
    d = _mapping(doc, where)
    return InputProblem(source=_text(d, "source", where, ""), message=_text(d, "message", where, ""),
                        command=_text(d, "command", where, ""))


def benchmark_from_dict(doc: Any, where: str = "benchmark") -> Any:
    """``BenchResult.to_dict()`` output → ``nicadvisor.bench.results.BenchResult`` (``expected`` → ``Expected``).

    A document without exactly the ``BenchResult`` keys is returned as a plain dict (the JSON export and
    every report accept mappings too). Raises CodecError when ``doc`` is not an object.
    """
    from nicadvisor.bench.results import BenchResult, Expected, expected_from_dict

    d = {k: v for k, v in _mapping(doc, where).items() if k not in DERIVED_BENCH_KEYS}  # computed, never stored
    fields = dataclasses.fields(BenchResult)
    names = {f.name for f in fields}
    # results stored before a field with a default existed (endpoints, the catalogue's measures) load too
    required = {f.name for f in fields if f.default is dataclasses.MISSING
                and f.default_factory is dataclasses.MISSING} - {"endpoints"}
    if not required <= set(d) <= names:
        return _copy(d)
    expected = d.get("expected")
    if expected is not None:
        e = _mapping(expected, f"{where}.expected")
        # the first model stored value/unit/basis only; bands added low/high/limits/notes
        if not {"value", "unit", "basis"} <= set(e) <= {f.name for f in dataclasses.fields(Expected)}:
            return _copy(d)
        expected = expected_from_dict(e)
        if expected is None:
            return _copy(d)
    kwargs = {k: d[k] for k in names if k != "expected" and k in d}
    return BenchResult(expected=expected, **kwargs)


def audit_from_dict(doc: Any) -> Audit:
    """Rebuild an :class:`Audit` from the document of :func:`nicadvisor.report.json_export.audit_to_dict` (or a stored one).

    Accepts ``schema_version`` up to :data:`SCHEMA_VERSION` (a missing one is
    read as the current version). Hosts, pNICs, vmknics, switches and modules get their evidence back;
    findings their :class:`Severity` and evidence; benchmarks become ``BenchResult`` objects (see
    :func:`benchmark_from_dict`). Raises CodecError (a ValueError) for a newer schema version or a
    malformed entry, naming where it is.
    """
    d = _mapping(doc, "audit")
    version = d.get("schema_version", SCHEMA_VERSION)
    if not isinstance(version, int) or isinstance(version, bool):
        raise CodecError(f"audit.schema_version: expected an integer, got {version!r}")
    if version > SCHEMA_VERSION:
        raise CodecError(f"audit schema_version {version} is newer than this NIC Advisor supports "
                         f"({SCHEMA_VERSION}); update NIC Advisor")
    audit = Audit(
        hosts=[host_from_dict(h, f"hosts[{i}]") for i, h in enumerate(_list(d, "hosts", "audit"))],
        findings=[finding_from_dict(f, f"findings[{i}]") for i, f in enumerate(_list(d, "findings", "audit"))],
        inputs=[str(s) for s in _list(d, "inputs", "audit")],
        inputs_not_understood=[problem_from_dict(p, f"inputs_not_understood[{i}]")
                               for i, p in enumerate(_list(d, "inputs_not_understood", "audit"))],
        benchmarks=[benchmark_from_dict(b, f"benchmarks[{i}]")
                    for i, b in enumerate(_list(d, "benchmarks", "audit"))],
    )
    created = d.get("created_at")
    if isinstance(created, str) and created:
        audit.created_at = created
    verdict = d.get("verdict")
    if isinstance(verdict, Mapping):  # how far the audit got: an interrupted one stays "not rated" when reopened
        completion = verdict.get("completion")
        if completion in COMPLETIONS:
            audit.completion = completion
        expected = verdict.get("hosts_expected")
        if isinstance(expected, int) and not isinstance(expected, bool) and expected >= 0:
            audit.hosts_expected = expected
    return audit
