"""Loading and validating rule files.

A rule file is YAML: ``rules: [ {id, title, severity, applies_to, category, condition, message,
recommendation, references, evidence?, overlay?, rollback?} ]``. Unknown keys are rejected (JSON Schema
``rule.schema.json``); errors name the file and line. ``condition`` is a ``rule-engine`` expression
over the facts of the object the rule applies to (see :mod:`nicadvisor.rules_engine.context`),
compiled at load time so a syntax error is reported with its file and line, never at audit time.
"""
from __future__ import annotations

import dataclasses
import json
import string
from dataclasses import dataclass
from pathlib import Path

import jsonschema
import rule_engine
import yaml

from nicadvisor.model import Severity
from nicadvisor.paths import rules_dir
from nicadvisor.rules_engine.context import known_facts

_SCHEMA = json.loads((Path(__file__).with_name("rule.schema.json")).read_text(encoding="utf-8"))
CONTEXT = rule_engine.Context(default_value=None)


class RuleError(ValueError):
    """A rule file that does not load: the message names the file and line."""


@dataclass(frozen=True)
class Rule:
    """A compiled rule. ``source`` is ``file:line`` of its definition."""

    id: str
    title: str
    severity: Severity
    applies_to: str
    category: str
    condition: str
    message: str
    recommendation: str
    references: tuple[str, ...]
    evidence: tuple[str, ...]
    source: str
    compiled: rule_engine.Rule
    overlay: bool = False
    rollback: str = ""


def default_rules_dir() -> Path:
    """The shipped ``rules/`` folder (see :mod:`nicadvisor.paths`)."""
    return rules_dir()


def _line_of(node: yaml.Node, path: list) -> int:
    """1-based line of the YAML node at ``path`` (keys and list indexes), as deep as it exists."""
    for step in path:
        if isinstance(node, yaml.MappingNode) and isinstance(step, str):
            nxt = next((v for k, v in node.value if getattr(k, "value", None) == step), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and step < len(node.value):
            nxt = node.value[step]
        else:
            nxt = None
        if nxt is None:
            break
        node = nxt
    return node.start_mark.line + 1


def _condition_names(compiled: rule_engine.Rule) -> set[str]:
    """The top-level symbols a compiled condition reads (``mtu``, ``module_options`` …)."""
    names: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, rule_engine.ast.SymbolExpression):
            if node.scope is None:
                names.add(node.name)
            return
        children = list(getattr(node, "__dict__", {}).values())
        for cls in type(node).__mro__:  # most expression classes keep their operands in __slots__
            children += [getattr(node, slot) for slot in getattr(cls, "__slots__", ()) if hasattr(node, slot)]
        for value in children:
            for v in value if isinstance(value, (list, tuple)) else (value,):
                if isinstance(v, (rule_engine.ast.ExpressionBase, rule_engine.ast.Statement)):
                    walk(v)

    walk(compiled.statement)
    return names


def load_rule_file(path: Path) -> list[Rule]:
    """Load, validate and compile one rule file. Raises RuleError (``path:line: message``)."""
    text = path.read_text(encoding="utf-8")
    try:
        node = yaml.compose(text)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark else 0
        raise RuleError(f"{path}:{line}: not valid YAML: {exc}") from exc
    if node is None:
        raise RuleError(f"{path}:1: empty rule file")
    validator = jsonschema.Draft202012Validator(_SCHEMA)
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        raise RuleError(f"{path}:{_line_of(node, list(e.absolute_path))}: {e.message}")
    rules = []
    for i, item in enumerate(data["rules"]):
        line = _line_of(node, ["rules", i])
        known = known_facts(item["applies_to"])
        try:
            compiled = rule_engine.Rule(item["condition"], context=CONTEXT)
        except rule_engine.errors.EngineError as exc:
            cline = _line_of(node, ["rules", i, "condition"])
            raise RuleError(f"{path}:{cline}: rule {item['id']}: bad condition {item['condition']!r}: {exc}") from exc
        for key, names in (("condition", _condition_names(compiled)),
                           ("message", string.Template(item["message"]).get_identifiers()),
                           ("recommendation", string.Template(item["recommendation"]).get_identifiers()),
                           ("rollback", string.Template(item.get("rollback", "")).get_identifiers()),
                           ("evidence", item.get("evidence", []))):
            unknown = sorted(set(names) - known)
            if unknown:
                kline = _line_of(node, ["rules", i, key])
                raise RuleError(f"{path}:{kline}: rule {item['id']}: {key} names unknown fact(s) "
                                f"{', '.join(unknown)} for {item['applies_to']} (see rules/README.md)")
        if item.get("overlay") and item["applies_to"] not in ("pnic", "switch"):
            raise RuleError(f"{path}:{_line_of(node, ['rules', i, 'overlay'])}: rule {item['id']}: overlay: true is "
                            f"for pnic and switch rules (a vmknic rule names is_tep in its condition)")
        rules.append(Rule(
            id=item["id"], title=item["title"], severity=Severity(item["severity"]),
            applies_to=item["applies_to"], category=item["category"], condition=item["condition"],
            message=item["message"], recommendation=item["recommendation"],
            references=tuple(item["references"]), evidence=tuple(item.get("evidence", ())),
            source=f"{path.name}:{line}", compiled=compiled, overlay=bool(item.get("overlay", False)),
            rollback=item.get("rollback", ""),
        ))
    return rules


def user_rules_dir() -> Path:
    """The user's own rules: ``<user config dir>/rules`` (``platformdirs.user_config_dir("nic-advisor")``,
    ``~/.config/nic-advisor/rules`` on Linux). Its ``*.yaml`` files load after the shipped ones."""
    import platformdirs

    return Path(platformdirs.user_config_dir("nic-advisor")) / "rules"


def _check_ids(rules: list[Rule]) -> None:
    seen: dict[str, str] = {}
    for r in rules:
        if r.id in seen:
            raise RuleError(f"{r.source}: rule id {r.id!r} already defined at {seen[r.id]}")
        seen[r.id] = r.source


def load_rules(folder: Path | None = None, *, user: bool | None = None) -> list[Rule]:
    """All rules of every ``*.yaml`` file in ``folder`` (default: the shipped ``rules/``), then, for the shipped
    folder (or ``user=True``), those of :func:`user_rules_dir` when it exists; a user rule's ``source`` names its
    full path. Raises RuleError on the first invalid file, or when two rules share an id (a user rule cannot
    silently replace a shipped one)."""
    with_user = folder is None if user is None else user
    folder = folder or default_rules_dir()
    rules: list[Rule] = []
    for path in sorted(folder.glob("*.yaml")):
        rules.extend(load_rule_file(path))
    if with_user and user_rules_dir().is_dir():
        for path in sorted(user_rules_dir().glob("*.yaml")):
            rules.extend(dataclasses.replace(r, source=f"{path.parent}/{r.source}") for r in load_rule_file(path))
    _check_ids(rules)
    return rules


def check_rule_files(paths: list[Path]) -> list[Rule]:
    """Validate rule files as the audit would load them with the shipped rules: each file's schema, conditions
    and fact names, and ids unique across them and the shipped rules. Returns the rules of ``paths``. Raises
    RuleError (``file:line: message``) or OSError for a file that cannot be read."""
    shipped = load_rules(user=False)
    mine: list[Rule] = []
    for path in paths:
        mine.extend(dataclasses.replace(r, source=f"{path.parent}/{r.source}") for r in load_rule_file(path))
    _check_ids(shipped + mine)
    return mine
