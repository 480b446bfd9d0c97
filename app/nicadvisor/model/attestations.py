"""What a person checked by hand: attestations (issue 24 §1).

An admin records that they saw a value for one decisive check on one pNIC (or, for the ESXi release, on the host):
``check`` (a :data:`nicadvisor.model.readiness.DECISIVE_CHECKS` key), ``host``, ``pnic``, ``value`` (the facts seen,
by the model's field names: ``{"pcie_speed_gts": 8, "pcie_width": 8}``), ``who``, ``when`` (ISO date or date and
time) and ``how`` (an evidence file path or a sentence: "BIOS PCIe slot page, photo evidence/esx-a-slot3.jpg").

Applied to an audit (:func:`apply_attestations`) before the rules run, an attestation fills each fact the host did
**not** tell, with evidence whose command is ``"attested by WHO on DATE"``
(:data:`nicadvisor.model.capabilities.ATTESTED_ORIGIN`): the rules judge it like any value, the capability cell says
"attested by WHO on DATE" beside it in every view, and it never looks like a reading taken on the host. A reading
taken on the host wins: where the host told another value, the attestation is overruled and an ``info`` finding
``attestation-disagrees`` names both. Every attestation and what became of it (:class:`AttestationOutcome`) is
listed for the board (JSON ``attestations[]``, a PDF/HTML section, the CLI summary).

The file format (YAML or JSON, ``{"attestations": [...]}``) is checked against :data:`FILE_SCHEMA` (JSON Schema) by
:mod:`nicadvisor.services.attestations`. Pure.
"""
from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Any

from nicadvisor.model.capabilities import ATTESTED_ORIGIN, CAPABILITIES
from nicadvisor.model.entities import Evidence, Finding, Host, Severity

#: The facts an attestation of each decisive check may give (model field names), and their JSON Schema types.
CHECK_FACTS: dict[str, tuple[str, ...]] = {
    "link": ("link_up", "link_speed_mbps"),
    "mtu": ("mtu",),
    "geneve_offload": ("geneve_offload",),
    "rx_filter_or_rss": ("geneve_rx_filter", "rss", "rx_queues"),
    "release": ("product_version", "product_update", "build"),
    "pcie": ("pcie_speed_gts", "pcie_width", "pcie_speed_capable_gts", "pcie_width_capable"),
    "ens": ("ens_capable", "ens_enabled", "ens_mode"),
}
#: Checks about the host itself (``pnic`` is empty).
HOST_CHECKS = ("release",)
#: PCIe rates (GT/s per lane, Gen1…Gen6) and link widths (lanes) a PCIe link can have (PCI Express Base Specification).
PCIE_RATES = (2.5, 5.0, 8.0, 16.0, 32.0, 64.0)
PCIE_WIDTHS = (1, 2, 4, 8, 12, 16, 32)
FACT_SCHEMA: dict[str, dict[str, Any]] = {
    "link_up": {"type": "boolean"},
    "link_speed_mbps": {"type": "integer", "minimum": 1, "maximum": 1_600_000},
    "mtu": {"type": "integer", "minimum": 68, "maximum": 65535},
    "geneve_offload": {"type": "boolean"}, "geneve_rx_filter": {"type": "boolean"}, "rss": {"type": "boolean"},
    "rx_queues": {"type": "integer", "minimum": 1, "maximum": 4096},
    "product_version": {"type": "string", "pattern": r"^[0-9]+\.[0-9]+(\.[0-9]+)?$"},
    "product_update": {"type": "string", "minLength": 1, "maxLength": 40},
    "build": {"type": "string", "pattern": r"^[0-9]{1,12}$"},
    "pcie_speed_gts": {"enum": list(PCIE_RATES) + [2, 5, 8, 16, 32, 64]},
    "pcie_speed_capable_gts": {"enum": list(PCIE_RATES) + [2, 5, 8, 16, 32, 64]},
    "pcie_width": {"enum": list(PCIE_WIDTHS)}, "pcie_width_capable": {"enum": list(PCIE_WIDTHS)},
    "ens_capable": {"type": "boolean"}, "ens_enabled": {"type": "boolean"},
    "ens_mode": {"type": "string", "minLength": 1, "maxLength": 40},
}

#: What a name or a sentence of an attestation may not hold: control characters and Unicode's bidirectional formatting
#: characters (a right-to-left override turns "attested by" text around on screen; an ESC sequence drives a
#: terminal). ``how`` may hold tabs and line ends (a sentence over several lines). ECMA-262 and Python alike; used as
#: ``"not": {"pattern": …}`` (a pattern is searched, and an anchored ``$`` would let a final newline through).
_NO_CONTROLS = {"not": {"pattern": r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"}}
_NO_CONTROLS_BUT_LINES = {"not": {"pattern": r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e"
                                             r"\u2066-\u2069]"}}
#: The fields a text pattern guards (``"not"``; an error on them says "control or bidirectional formatting characters").
TEXT_FIELDS = ("host", "pnic", "who", "how")
#: Days a ``when`` may lie after today (UTC): a date written east of UTC is already tomorrow there.
FUTURE_SLACK_DAYS = 1

#: JSON Schema of an attestation file: ``{"attestations": [ {check, host, pnic, value, who, when, how}, … ]}``; each
#: check allows only its own facts (:data:`CHECK_FACTS`). ``when`` is an ISO date (``2026-11-30``) or date and time.
FILE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "NIC Advisor attestations",
    "type": "object",
    "required": ["attestations"],
    "additionalProperties": False,
    "properties": {"attestations": {"type": "array", "maxItems": 10000, "items": {
        "type": "object",
        "required": ["check", "host", "value", "who", "when", "how"],
        "additionalProperties": False,
        "properties": {
            "check": {"enum": list(CHECK_FACTS)},
            "host": {"type": "string", "minLength": 1, "maxLength": 255, **_NO_CONTROLS},
            "pnic": {"type": "string", "maxLength": 64, **_NO_CONTROLS},
            "value": {"type": "object", "minProperties": 1,
                      "properties": {n: FACT_SCHEMA[n] for facts in CHECK_FACTS.values() for n in facts},
                      "additionalProperties": False},
            "who": {"type": "string", "minLength": 1, "maxLength": 200, **_NO_CONTROLS},
            "when": {"type": "string", "pattern": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9:.]+(Z|[+-][0-9:]+)?)?$"},
            "how": {"type": "string", "minLength": 1, "maxLength": 2000, **_NO_CONTROLS_BUT_LINES},
        },
        "allOf": [{"if": {"properties": {"check": {"const": check}}},
                   "then": {"properties": {"value": {"propertyNames": {"enum": list(facts)}}},
                            **({} if check in HOST_CHECKS else {"required": ["pnic"]})}}
                  for check, facts in CHECK_FACTS.items()],
    }}},
}

DECIDED, AGREES, OVERRULED, NOT_APPLIED = "decided", "agrees", "overruled", "not applied"
#: What the board is told of attestations (PDF and HTML section): they are no reading taken on the host.
BOARD_NOTE = ("These values were not read on a host: a person checked them by hand and recorded who, when and how. Each "
              "decides a matrix cell only where the host told nothing (the cell then says \u201cattested by WHO on "
              "DATE\u201d); a reading taken on the host wins, and a disagreement is an information finding "
              "(attestation-disagrees).")


@dataclass(frozen=True)
class Attestation:
    """One value a person checked by hand (see the module docstring). ``source`` is the file it was read from."""

    check: str
    host: str
    pnic: str
    value: dict[str, Any] = field(hash=False)
    who: str
    when: str
    how: str
    source: str = ""

    @property
    def label(self) -> str:
        """``"attested by alice on 2026-11-30"``: how every view marks a value it decided."""
        return f"{ATTESTED_ORIGIN} {self.who} on {self.when}"

    def value_text(self) -> str:
        """The value seen, in words (``"pcie speed gts 8, pcie width 8"``)."""
        return ", ".join(f"{k.replace('_', ' ')} {_show(v)}" for k, v in self.value.items())

    def to_dict(self) -> dict[str, Any]:
        """``{"check", "host", "pnic", "value", "who", "when", "how", "source"}`` as in the file and the JSON report."""
        return {"check": self.check, "host": self.host, "pnic": self.pnic, "value": dict(self.value), "who": self.who,
                "when": self.when, "how": self.how, "source": self.source}


def _show(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    return f"{v:g}" if isinstance(v, float) else str(v)


@dataclass(frozen=True)
class AttestationOutcome:
    """What became of an attestation in an audit: ``status`` ``decided`` (it gave facts the host did not tell),
    ``agrees`` (the host told the same values), ``overruled`` (the host told another value: the host's is kept, see
    the ``attestation-disagrees`` finding) or ``not applied`` (no such host or pNIC in the audit); ``note`` says
    which facts and why."""

    attestation: Attestation
    status: str
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The attestation's fields plus ``label``, ``status`` and ``note`` (JSON ``attestations[]``)."""
        return {**self.attestation.to_dict(), "label": self.attestation.label, "status": self.status,
                "note": self.note}


def parse_when(text: str) -> str | None:
    """``text`` when it is an ISO date or date and time that exists (``2026-02-30`` does not), else None."""
    return text if when_date(text) is not None else None


def when_date(text: str) -> _dt.date | None:
    """The calendar date of ``when`` (an ISO date, or date and time: its own date as written), None when it is no
    date that exists."""
    try:
        return _dt.datetime.fromisoformat(text.replace("Z", "+00:00").replace(" ", "T", 1)).date()
    except ValueError:
        try:
            return _dt.date.fromisoformat(text)
        except ValueError:
            return None


def _column_of(fact: str) -> str:
    return next((c.key for c in CAPABILITIES if fact in c.facts), "")


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    return str(a).strip().lower() == str(b).strip().lower()


def apply_attestations(hosts: list[Host], attestations: list[Attestation]) -> tuple[list[AttestationOutcome],
                                                                                     list[Finding]]:
    """Apply ``attestations`` to ``hosts`` (in place): fill each fact the host did not tell, with evidence
    ``"attested by WHO on DATE"``. Returns (one outcome per attestation, in order; the ``attestation-disagrees``
    findings). Facts already filled by an earlier attestation in the list are not changed (the first wins, as with
    any source). Linear in attestations."""
    by_name = {h.name.lower(): h for h in hosts}
    outcomes: list[AttestationOutcome] = []
    findings: list[Finding] = []
    for a in attestations:
        host = by_name.get(a.host.lower())
        target: Any = host
        if host is not None and a.check not in HOST_CHECKS:
            target = host.pnic(a.pnic)
        if target is None:
            what = f"host {a.host}" if host is None else f"pNIC {a.pnic} on {host.name}"
            outcomes.append(AttestationOutcome(a, NOT_APPLIED, f"no {what} in this audit"))
            continue
        ev = Evidence(a.label, f"{a.check}: value seen {a.value_text()}; how: {a.how}", a.source)
        filled, same, differ = [], [], []
        for fact, value in a.value.items():
            have = getattr(target, fact)
            if have is None:
                target.set_fact(fact, float(value) if fact.endswith("_gts") else value, ev)
                filled.append(fact)
            elif _same(have, value):
                same.append(fact)
            else:
                differ.append((fact, have, value))
        for fact, have, value in differ:
            read = target.evidence.get(fact)
            how_read = f"{read.command}" if read is not None else "the host's outputs"
            findings.append(Finding(
                rule_id="attestation-disagrees",
                title="A reading on the host disagrees with what a person attested",
                severity=Severity.INFO, host=host.name, obj="" if a.check in HOST_CHECKS else a.pnic,
                message=(f"{fact.replace('_', ' ')}: the host reads {_show(have)} ({how_read}), {a.label} saw "
                         f"{_show(value)} ({a.how}). The host's reading is kept."),
                recommendation=("Check the value again on the host and correct or remove the attestation "
                                f"({a.source or 'the attestation file'})."),
                evidence=tuple(e for e in (read, ev) if e is not None), category=_column_of(fact),
                facts=(fact,)))
        if differ:
            status, note = OVERRULED, "the host reads another " + ", ".join(f[0].replace("_", " ") for f in differ)
        elif filled:
            status, note = DECIDED, "decides " + ", ".join(f.replace("_", " ") for f in filled)
        else:
            status, note = AGREES, "the host reads the same " + ", ".join(f.replace("_", " ") for f in same)
        if filled and status != DECIDED:
            note += "; decides " + ", ".join(f.replace("_", " ") for f in filled)
        outcomes.append(AttestationOutcome(a, status, note))
    return outcomes, findings
