"""Attestation files: read one for an audit (``--attestations FILE``), add one attestation to it (``nic-advisor
attest``, the wizard's dialog).

The file is YAML (JSON is YAML too): ``{"attestations": [ {check, host, pnic, value, who, when, how}, … ]}``,
checked against :data:`nicadvisor.model.attestations.FILE_SCHEMA` with ``jsonschema``; an error names the file, the
attestation (its position) and the field. At most :data:`MAX_FILE_BYTES` are read (a hand-kept list is small), and
YAML aliases are refused (bounded time: no alias "bomb").
Adding writes the whole file again atomically (:func:`nicadvisor.atomic_file.atomic_write`): a failed write leaves
the old one.
"""
from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import Any

import yaml

from nicadvisor.atomic_file import atomic_write
from nicadvisor.model.attestations import CHECK_FACTS, FACT_SCHEMA, FILE_SCHEMA, Attestation, parse_when

#: Largest attestation file read (bytes).
MAX_FILE_BYTES = 4 * 1024 * 1024


class _NoAliasLoader(yaml.SafeLoader):
    """YAML without anchors and aliases: a hand-kept list needs none, and an alias "bomb" (a list of lists of
    aliases) would cost exponential time to validate and to quote in a message."""

    def compose_node(self, parent, index):  # noqa: ANN001 - PyYAML's signature
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(None, None, "aliases (*name) are not allowed in an attestation file",
                                              event.start_mark)
        return super().compose_node(parent, index)


class AttestationError(ValueError):
    """An attestation file or value that cannot be used; the message names the file, the attestation and why."""


def _validate(doc: Any, where: str) -> None:
    import jsonschema

    validator = jsonschema.Draft202012Validator(FILE_SCHEMA)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        path = list(e.absolute_path)
        at = (f"attestation {path[1] + 1}" + (f", field {'.'.join(str(p) for p in path[2:])}" if path[2:] else "")
              if len(path) >= 2 and path[0] == "attestations" else "the file")
        more = f" (and {len(errors) - 1} more problems)" if len(errors) > 1 else ""
        message = e.message if len(e.message) <= 300 else e.message[:300] + "…"  # it quotes the value: keep it short
        raise AttestationError(f"{where}: {at}: {message}{more}")
    for i, item in enumerate(doc["attestations"], 1):
        if parse_when(item["when"]) is None:
            raise AttestationError(f"{where}: attestation {i}, field when: {item['when']!r} is not a date that exists")


def _read_doc(path: Path) -> dict:
    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise AttestationError(f"{path}: no such file") from None
    except OSError as exc:
        raise AttestationError(f"{path}: {exc.strerror or exc}") from None
    if len(data) > MAX_FILE_BYTES:
        raise AttestationError(f"{path}: larger than {MAX_FILE_BYTES} bytes: not an attestation file")
    try:
        doc = yaml.load(data.decode("utf-8"), Loader=_NoAliasLoader)  # noqa: S506 - a SafeLoader without aliases
    except (UnicodeDecodeError, yaml.YAMLError) as exc:
        raise AttestationError(f"{path}: not YAML or JSON: {str(exc).splitlines()[0]}") from None
    return {"attestations": []} if doc is None else doc


def load_attestations(path: str | Path) -> list[Attestation]:
    """The attestations of the file ``path`` (``source`` = the path). Raises AttestationError (missing, unreadable,
    too large, not YAML/JSON, not valid against the schema, a date that does not exist)."""
    p = Path(path)
    doc = _read_doc(p)
    _validate(doc, str(p))
    return [Attestation(check=i["check"], host=i["host"], pnic=i.get("pnic", ""), value=dict(i["value"]),
                        who=i["who"], when=i["when"], how=i["how"], source=str(p)) for i in doc["attestations"]]


def parse_value(check: str, text: str) -> tuple[str, Any]:
    """``"pcie_width=8"`` → ``("pcie_width", 8)`` typed for the fact (``yes``/``no``/``true``/``false`` for a yes-no
    fact, a number, or text). Raises AttestationError naming the facts ``check`` allows."""
    fact, sep, raw = text.partition("=")
    fact, raw = fact.strip(), raw.strip()
    allowed = CHECK_FACTS.get(check, ())
    if not sep or fact not in allowed:
        raise AttestationError(f"--value {text!r}: give FACT=VALUE with FACT one of {', '.join(allowed)} "
                               f"(the facts of the check {check!r})")
    kind = FACT_SCHEMA[fact].get("type")
    if kind == "boolean":
        words = {"yes": True, "true": True, "on": True, "no": False, "false": False, "off": False}
        if raw.lower() not in words:
            raise AttestationError(f"--value {text!r}: {fact} is yes or no")
        return fact, words[raw.lower()]
    if kind == "string":
        return fact, raw
    try:
        number = float(raw)
    except ValueError:
        raise AttestationError(f"--value {text!r}: {fact} is a number") from None
    return fact, int(number) if number.is_integer() and not fact.endswith("_gts") else number


def add_attestation(path: str | Path, attestation: Attestation) -> Path:
    """Append ``attestation`` to the file ``path`` (created when missing), validate the whole file, write it
    atomically. ``when`` empty means today (UTC). Returns the path. Raises AttestationError (the file or the new
    attestation is not valid: nothing is written) or OSError (the file cannot be written)."""
    p = Path(path)
    doc = _read_doc(p) if p.exists() else {"attestations": []}
    item = attestation.to_dict()
    item.pop("source", None)
    item["when"] = item["when"] or _dt.datetime.now(_dt.timezone.utc).date().isoformat()
    if isinstance(doc, dict) and isinstance(doc.get("attestations"), list):
        doc["attestations"].append(item)
    _validate(doc, str(p))
    text = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)

    def write(tmp: Path) -> None:
        tmp.write_text(text, encoding="utf-8")

    return atomic_write(p, write)
