"""Attestation files: read one for an audit (``--attestations FILE``), add one attestation to it (``nic-advisor
attest``, the wizard's dialog).

The file is YAML (JSON is YAML too): ``{"attestations": [ {check, host, pnic, value, who, when, how}, … ]}``,
checked against :data:`nicadvisor.model.attestations.FILE_SCHEMA` with ``jsonschema``; an error names the file, the
attestation (its position) and the field. At most :data:`MAX_FILE_BYTES` are read (a hand-kept list is small), only
from a regular file (a FIFO would keep the read waiting for a writer), YAML aliases are refused (bounded time: no
alias "bomb"), so is nesting past Python's recursion limit; the schema is checked one attestation at a time and stops
at the first that breaks it (an error object per broken item cost 42 kB: 3.3 GB for 80,000 ``{}``). A ``when``
later than tomorrow (UTC) is refused: nobody checked a value on a day that has not come.
Adding writes the whole file again atomically (:func:`nicadvisor.atomic_file.atomic_write`): a failed write leaves
the old one.
"""
from __future__ import annotations

import datetime as _dt
import os
import stat
from pathlib import Path
from typing import Any

import yaml

from nicadvisor.atomic_file import atomic_write
from nicadvisor.model.attestations import (
    CHECK_FACTS,
    FACT_SCHEMA,
    FILE_SCHEMA,
    FUTURE_SLACK_DAYS,
    TEXT_FIELDS,
    Attestation,
    when_date,
)

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


def _first_error(validator: Any, doc: Any) -> tuple[Any, int] | None:
    """The first schema error of ``doc`` (by position) and how many it has, or None."""
    errors = sorted(validator.iter_errors(doc), key=lambda e: [str(p) for p in e.absolute_path])
    return (errors[0], len(errors)) if errors else None


def _message(e: Any, count: int) -> str:
    path = list(e.absolute_path)
    if e.validator == "not" and path and path[-1] in TEXT_FIELDS and isinstance(e.instance, str):
        from nicadvisor.model.text import one_line

        shown = one_line(e.instance if len(e.instance) <= 80 else e.instance[:80] + "…")
        message = f"{shown!r} holds control or bidirectional formatting characters (not allowed)"
    else:
        message = e.message if len(e.message) <= 300 else e.message[:300] + "…"  # it quotes the value: keep it short
    return message + (f" (and {count - 1} more problems)" if count > 1 else "")


def _validate(doc: Any, where: str) -> None:
    import jsonschema

    items_schema = FILE_SCHEMA["properties"]["attestations"]
    items = doc.get("attestations") if isinstance(doc, dict) else None
    if isinstance(items, list) and len(items) > items_schema["maxItems"]:
        raise AttestationError(f"{where}: {len(items)} attestations: at most {items_schema['maxItems']} in one file")
    outer = {**FILE_SCHEMA, "properties": {"attestations": {"type": "array"}}}  # the items one at a time, below
    found = _first_error(jsonschema.Draft202012Validator(outer), doc)
    if found:
        raise AttestationError(f"{where}: the file: {_message(*found)}")
    item_validator = jsonschema.Draft202012Validator({**items_schema["items"], "$schema": FILE_SCHEMA["$schema"]})
    latest = _dt.datetime.now(_dt.timezone.utc).date() + _dt.timedelta(days=FUTURE_SLACK_DAYS)
    for i, item in enumerate(doc["attestations"], 1):
        found = _first_error(item_validator, item)
        if found:
            path = [str(p) for p in found[0].absolute_path]
            field = f", field {'.'.join(path)}" if path else ""
            raise AttestationError(f"{where}: attestation {i}{field}: {_message(*found)}")
        day = when_date(item["when"])
        if day is None:
            raise AttestationError(f"{where}: attestation {i}, field when: {item['when']!r} is not a date that exists")
        if day > latest:
            raise AttestationError(f"{where}: attestation {i}, field when: {item['when']!r} is in the future "
                                   f"(today is {latest - _dt.timedelta(days=FUTURE_SLACK_DAYS)}, UTC)")


def _read_doc(path: Path) -> dict:
    try:  # O_NONBLOCK: opening a FIFO does not wait for a writer (it is refused below)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise AttestationError(f"{path}: no such file") from None
    except OSError as exc:
        raise AttestationError(f"{path}: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise AttestationError(f"{path}: not a regular file (a FIFO, device or folder): give the attestation "
                                   "file itself")
        try:
            data = fh.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            raise AttestationError(f"{path}: {exc.strerror or exc}") from None
    if len(data) > MAX_FILE_BYTES:
        raise AttestationError(f"{path}: larger than {MAX_FILE_BYTES} bytes: not an attestation file")
    try:
        doc = yaml.load(data.decode("utf-8"), Loader=_NoAliasLoader)  # noqa: S506 - a SafeLoader without aliases
    except (UnicodeDecodeError, yaml.YAMLError) as exc:
        raise AttestationError(f"{path}: not YAML or JSON: {str(exc).splitlines()[0]}") from None
    except RecursionError:  # PyYAML composes recursively: one level of [ or { per frame
        raise AttestationError(f"{path}: not an attestation file: nested deeper than Python's recursion limit") \
            from None
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
