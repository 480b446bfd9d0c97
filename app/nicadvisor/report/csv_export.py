"""CSV exports: the tuning checklist (one row per finding), the verdict (one row for the audit, one per host), the
pNIC inventory (one row per pNIC, with its host's verdict), the benchmark results (one row per result) and the TEP
mesh (one row per pair and frame size).

Both files are UTF-8 with a byte-order mark (``utf-8-sig``) so that spreadsheet programs show ``µ`` and
``✔`` correctly, with ``\\r\\n`` row ends (the :mod:`csv` default). Unknown values are empty cells, never 0.
A cell that a spreadsheet would run as a formula (starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return, as OWASP lists them, and not a plain number) gets a leading ``'``, and control characters (an ESC
sequence in a host name) become ``�``, since evidence lines and names are device output.
"""
from __future__ import annotations

import csv
import dataclasses
import os
from pathlib import Path
from typing import Any

from nicadvisor.model.audit import Audit
from nicadvisor.model.changes import KIND
from nicadvisor.model.capabilities import CAPABILITIES, capability_matrix, switch_port_cell
from nicadvisor.model.capabilities import origin_of
from nicadvisor.model.entities import Finding, PhysicalNic, findings_by_host
from nicadvisor.model.references import citations
from nicadvisor.model.text import formula_escaped, without_controls
from nicadvisor.report.json_export import atomic_write, benchmark_entry
from nicadvisor.report.remediation import display_source, input_roots

ENCODING = "utf-8-sig"

#: Columns of :func:`write_csv`, in order.
CHECKLIST_COLUMNS = (
    "done", "severity", "host", "target", "rule_id", "title", "message", "recommendation", "change", "verify",
    "rollback", "full_severity", "evidence", "references",
)



def _safe(value: str) -> str:
    """``value`` without control characters (each becomes ``�``; ESC sequences from device text) and with the bytes
    of a file name that were not UTF-8 as ``\\xNN`` (:func:`~nicadvisor.model.text.without_controls`), with a
    leading ``'`` when a spreadsheet could read it as a formula (it starts with ``= + - @``, a tab or a carriage
    return and is not a plain number)."""
    return formula_escaped(without_controls(value))


def _cell(value: Any) -> str:
    """A model value as CSV text: None → empty, booleans → ``true``/``false``, lists joined by ``; ``,
    dicts as ``k=v; k=v``."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "; ".join(_cell(v) for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{k}={_cell(v)}" for k, v in value.items())
    return _safe(str(value))


def _evidence_text(finding: Finding, roots: list[str]) -> str:
    """The finding's evidence as ``command [source]: line`` entries, one per line; the source relative to the input
    folders (:func:`nicadvisor.report.remediation.display_source`)."""
    return "\n".join(f"{e.command} [{display_source(e.source, roots)}]: {e.line}" if e.source else
                     f"{e.command}: {e.line}" for e in finding.evidence)


def _references_text(finding: Finding) -> str:
    """Each document the finding cites as ``Title. Version. Publisher. §section. URL``, joined by ``; ``
    (:mod:`nicadvisor.model.references`: no internal file names)."""
    return "; ".join(c.text() for c in citations(finding.references))


def checklist_rows(audit: Audit) -> list[dict[str, str]]:
    """One dict per finding (keys :data:`CHECKLIST_COLUMNS`), most severe first, then by host and target.

    ``done`` is empty (to be ticked by the reader); ``change`` is the exact change (or "Manual: …"), ``verify`` how to
    check it, ``rollback`` how to undo it ("" when the rule gives none); ``full_severity`` is set when the finding
    holds only if its pNIC carries the overlay and was lowered from it; ``evidence`` holds ``command [source]: line``
    entries separated by newlines; ``references`` the cited documents by title, version and URL, joined by ``; ``.
    """
    roots = input_roots(audit)
    ordered = sorted(audit.findings, key=lambda f: (f.severity.rank, f.host, f.target))
    return [
        {
            "done": "",
            "severity": f.severity.value,
            "host": _safe(f.host),
            "target": _safe(f.target),
            "rule_id": _safe(f.rule_id),
            "title": _safe(f.title),
            "message": _safe(f.message),
            "recommendation": _safe(f.recommendation),
            "change": _safe(f.change),
            "verify": _safe(f.verify),
            "rollback": _safe(f.rollback),
            "full_severity": f.full_severity.value if f.full_severity is not None else "",
            "evidence": _safe(_evidence_text(f, roots)),
            "references": _safe(_references_text(f)),
        }
        for f in ordered
    ]


#: Columns of :func:`write_benchmarks_csv`, in order (units in the names; the expected band's edges in ``expected_unit``).
BENCHMARK_COLUMNS = (
    "test", "spec", "tool", "path", "client", "server", "endpoints", "throughput_gbps", "transactions_per_s",
    "latency_us", "p99_latency_us", "loss_pct", "expected_low", "expected_high", "expected_unit", "verdict",
    "comparison", "expected_basis", "command", "path_conditions",
)


def benchmark_rows(audit: Audit) -> list[dict[str, str]]:
    """One dict per benchmark result (:func:`nicadvisor.report.json_export.benchmark_entry`: the same verdict and
    comparison as every other view); a point expectation fills both edges with its value."""
    rows = []
    for b in audit.benchmarks or []:
        d = benchmark_entry(b)
        e = d.get("expected") if isinstance(d.get("expected"), dict) else {}
        low = e.get("low") if e.get("low") is not None else e.get("value")
        high = e.get("high") if e.get("high") is not None else e.get("value")
        row = {k: _cell(d.get(k)) for k in BENCHMARK_COLUMNS if k in d}
        row.update(expected_low=_cell(low), expected_high=_cell(high), expected_unit=_cell(e.get("unit")),
                   expected_basis=_cell(e.get("basis")))
        rows.append({k: row.get(k, "") for k in BENCHMARK_COLUMNS})
    return rows


#: Columns of :func:`write_verdict_csv`, in order.
VERDICT_COLUMNS = ("scope", "host", "status", "label", "reason", "finish")


def verdict_rows(audit: Audit) -> list[dict[str, str]]:
    """The one verdict (:func:`nicadvisor.model.verdict.verdict_of`, as every view shows it): a first row with
    ``scope`` ``audit`` (its ``reason`` followed by its causes, one per line), then one row per host (``scope``
    ``host``, its ``finish``: the "Finish this audit" commands still needed, one per line), then one row per change the
    verdict counts (:attr:`nicadvisor.model.verdict.Verdict.changes`: ``scope`` ``configuration`` for what the rollout
    sets, ``blocker`` for the rest; ``host`` the hosts it touches, ``status`` its kind, ``label`` its noun, ``reason``
    what and where). A spreadsheet of an audit that read nothing says NOT RATED and why, never an empty list."""
    v = audit.verdict
    reason = "\n".join([v.reason, *v.causes])
    rows = [{"scope": "audit", "host": "", "status": v.status, "label": v.label, "reason": _safe(reason), "finish": ""}]
    rows += [{"scope": "host", "host": _safe(h.host), "status": h.status, "label": h.label, "reason": _safe(h.reason),
              "finish": _safe("\n".join(h.finish))} for h in v.hosts]
    rows += [{"scope": "configuration" if c.configuration else "blocker", "host": _safe(", ".join(c.hosts)),
              "status": c.kind, "label": KIND[c.kind].noun,
              "reason": _safe(c.what + (f" on {c.target}" if c.target else "")), "finish": ""} for c in v.changes]
    return rows


def inventory_columns(rows: list[dict[str, str]] | None = None) -> tuple[str, ...]:
    """Columns of :func:`write_inventory_csv`: ``host``, every PhysicalNic field (model order, without
    ``evidence``), ``<capability key>_status`` for each capability-matrix column, then ``host_verdict`` (READY /
    NOT READY / NOT RATED) and ``switch_port`` (where the pNIC is cabled, or the command that reads it:
    :func:`nicadvisor.model.capabilities.switch_port_cell`; last, so that the earlier columns keep their places), then
    ``not_read_on_host`` (each value learnt elsewhere and where from: ``pcie_width: from the server's BMC (Redfish);
    mtu: attested by alice on 2026-11-30``, left out when no value was). Given
    the ``rows`` of an export, a fact column empty in every row is left out (a column no input of this audit filled
    says nothing); ``host``, ``name``, the statuses, the verdict and ``switch_port`` stay."""
    fields = tuple(f.name for f in dataclasses.fields(PhysicalNic) if f.name != "evidence")
    columns = ("host",) + fields + tuple(f"{c.key}_status" for c in CAPABILITIES) + ("host_verdict", "switch_port",
                                                                                      "not_read_on_host")
    if rows is None:
        return columns
    kept = {"host", "name", "host_verdict", "switch_port"} | {f"{c.key}_status" for c in CAPABILITIES}
    return tuple(c for c in columns if c in kept or any(r.get(c) for r in rows))


#: The rule whose finding on a pNIC says its driver is a legacy vmklinux one (rules/link_driver.yaml).
LEGACY_DRIVER_RULE = "legacy-vmklinux-driver"


def inventory_rows(audit: Audit) -> list[dict[str, str]]:
    """One dict per pNIC of every host (pseudo devices included, with empty capability statuses).
    ``legacy_vmklinux`` is ``true`` for a pNIC the rule ``legacy-vmklinux-driver`` flagged (its driver is a vmklinux
    one) when the inputs did not say it themselves."""
    rows = []
    labels = {h.host: h.label for h in audit.verdict.hosts}
    of_host = findings_by_host(audit.findings)
    for host in audit.hosts:
        mine = of_host.get(host.name, [])
        matrix = {r.pnic: r for r in capability_matrix(host, mine)}
        legacy = {f.obj for f in mine if f.rule_id == LEGACY_DRIVER_RULE}
        for pnic in host.pnics:
            row = {"host": _safe(host.name), "host_verdict": labels.get(host.name, ""),
                   "switch_port": _safe(switch_port_cell(host, pnic)) if pnic.is_physical is not False else ""}
            row.update({name: _cell(value) for name, value in pnic.facts().items()})
            elsewhere = [f"{n}: {o}" for n, ev in pnic.evidence.items() if (o := origin_of(ev))]
            if elsewhere:
                row["not_read_on_host"] = _safe("; ".join(elsewhere))
            if pnic.legacy_vmklinux is None and pnic.name in legacy:
                row["legacy_vmklinux"] = "true"
            cells = matrix[pnic.name].cells if pnic.is_physical is not False and pnic.name in matrix else {}
            for cap in CAPABILITIES:
                row[f"{cap.key}_status"] = cells[cap.key].status if cap.key in cells else ""
            rows.append(row)
    return rows


def _write_rows(path: str | os.PathLike[str], columns: tuple[str, ...], rows: list[dict[str, str]]) -> Path:
    def _write(tmp: Path) -> None:
        with open(tmp, "x", encoding=ENCODING, newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(columns))
            writer.writeheader()
            writer.writerows(rows)

    return atomic_write(path, _write)


def write_csv(audit: Audit, path: str | os.PathLike[str]) -> Path:
    """Write the tuning checklist: a header row :data:`CHECKLIST_COLUMNS`, then one row per finding
    (see :func:`checklist_rows`). Replaces ``path`` atomically; returns it. Raises OSError if unwritable."""
    return _write_rows(path, CHECKLIST_COLUMNS, checklist_rows(audit))


def write_inventory_csv(audit: Audit, path: str | os.PathLike[str]) -> Path:
    """Write the pNIC inventory: header :func:`inventory_columns` (without the fact columns no row fills), one row
    per pNIC with its facts in model units (``link_speed_mbps`` Mbit/s, ``mtu`` bytes, ``pcie_*_gts`` GT/s, ``coalesce_*_usecs`` µs).
    Replaces ``path`` atomically; returns it. Raises OSError if unwritable."""
    rows = inventory_rows(audit)
    columns = inventory_columns(rows)
    return _write_rows(path, columns, [{c: row.get(c, "") for c in columns} for row in rows])


def write_verdict_csv(audit: Audit, path: str | os.PathLike[str]) -> Path:
    """Write the verdict: header :data:`VERDICT_COLUMNS`, the audit's row, then one row per host
    (:func:`verdict_rows`). Replaces ``path`` atomically; returns it. Raises OSError if unwritable."""
    return _write_rows(path, VERDICT_COLUMNS, verdict_rows(audit))


#: Columns of :func:`write_path_tests_csv`: the TEP mesh, one row per pair and frame size.
PATH_TEST_COLUMNS = ("from_host", "from_if", "source", "to_host", "to_if", "destination", "netstack", "frame_bytes",
                     "payload_bytes", "result", "cause", "rtt_min_us", "rtt_avg_us", "rtt_max_us", "sent", "received",
                     "detail", "command")


def path_test_rows(audit: Audit) -> list[dict[str, str]]:
    """One row per path test of the audit's hosts (the TEP mesh, ``bench --mtu-check``): both ends, the frame,
    ``pass``/``fail``/empty (did not run), the cause, the round trips (µs) and the command."""
    from nicadvisor.model.path_tests import all_path_tests

    out = []
    for t in all_path_tests(audit.hosts):
        out.append({k: _cell(v) for k, v in {
            "from_host": t.client, "from_if": t.client_if, "source": t.source, "to_host": t.server,
            "to_if": t.server_if, "destination": t.destination, "netstack": t.netstack, "frame_bytes": t.frame_bytes,
            "payload_bytes": t.payload_bytes, "result": {True: "pass", False: "fail", None: ""}[t.ok],
            "cause": t.cause, "rtt_min_us": t.rtt_min_us, "rtt_avg_us": t.rtt_avg_us, "rtt_max_us": t.rtt_max_us,
            "sent": t.sent, "received": t.received, "detail": t.detail, "command": t.command}.items()})
    return out


def write_path_tests_csv(audit: Audit, path: str | os.PathLike[str]) -> Path:
    """Write :func:`path_test_rows` (columns :data:`PATH_TEST_COLUMNS`) to ``path``; returns the path. Raises
    OSError."""
    return _write_rows(path, PATH_TEST_COLUMNS, path_test_rows(audit))


#: Columns of :func:`write_attestations_csv`: what people checked by hand and what became of it.
ATTESTATION_COLUMNS = ("host", "pnic", "check", "value", "who", "when", "how", "label", "status", "note", "source")


def attestation_rows(audit: Audit) -> list[dict[str, str]]:
    """One row per attestation of the audit (:attr:`Audit.attestations`), in the order given."""
    return [{k: _cell(v) for k, v in {**o.to_dict(), "value": o.attestation.value_text()}.items()
             if k in ATTESTATION_COLUMNS} for o in audit.attestations]


def write_attestations_csv(audit: Audit, path: str | os.PathLike[str]) -> Path:
    """Write :func:`attestation_rows` (columns :data:`ATTESTATION_COLUMNS`) to ``path``; returns the path. Raises
    OSError."""
    return _write_rows(path, ATTESTATION_COLUMNS, attestation_rows(audit))


def write_benchmarks_csv(audit: Audit, path: str | os.PathLike[str]) -> Path:
    """Write the benchmark results: header :data:`BENCHMARK_COLUMNS`, one row per result (Gbit/s, transactions/s,
    µs, %). Replaces ``path`` atomically; returns it. Raises OSError if unwritable."""
    return _write_rows(path, BENCHMARK_COLUMNS, benchmark_rows(audit))
