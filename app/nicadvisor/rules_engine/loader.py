"""Loading and validating rule files.

A rule file is YAML: ``rules: [ {id, title, severity, applies_to, category, condition, message,
recommendation, references, evidence?, overlay?, rollback?} ]``. Unknown keys are rejected (JSON Schema
``rule.schema.json``); errors name the file and line. ``condition`` is a ``rule-engine`` expression
over the facts of the object the rule applies to (see :mod:`nicadvisor.rules_engine.context`),
compiled at load time so a syntax error is reported with its file and line, never at audit time.

A file is also refused (``file:line``) for a key written twice in one mapping (YAML would keep the last one
silently), a reference that names a document other than one of :data:`REFERENCE_DOCUMENTS`, and a condition that
compares facts and values of types that can never match (``mtu == "9000"``, ``driver > 5``): conditions are
type-checked against the facts' types (:func:`fact_types`, from the model dataclasses' annotations).
"""
from __future__ import annotations

import dataclasses
import functools
import json
import string
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import rule_engine
import yaml

from nicadvisor.model import Host, KernelModule, PhysicalNic, Severity, Switch, VmkernelNic
from nicadvisor.paths import rules_dir
from nicadvisor.model.references import DOCUMENTS
from nicadvisor.change_commands import COMMAND_FACTS
from nicadvisor.rules_engine.context import EXTRA_FACTS, known_facts

_SCHEMA = json.loads((Path(__file__).with_name("rule.schema.json")).read_text(encoding="utf-8"))
CONTEXT = rule_engine.Context(default_value=None)

#: The reference documents a rule may cite as ``"<document> §<section>"``: those of ``shared/reference`` (the
#: shipped rules cite them all; tests/rules/test_rule_file_checks.py keeps this list equal to that folder). Any
#: other source is a URL or ``"vendor: …"``. Their titles, versions and addresses: :mod:`nicadvisor.model.references`.
REFERENCE_DOCUMENTS = frozenset(DOCUMENTS)

_OBJECTS = {"pnic": PhysicalNic, "vmknic": VmkernelNic, "switch": Switch, "host": Host}
#: Python types of the derived facts of :mod:`nicadvisor.rules_engine.context` (``EXTRA_FACTS``), by name; a
#: ``"Class.field"`` string takes that model field's type. tests/rules/test_rule_file_checks.py checks that every
#: derived fact has one and that the audit's contexts hold values of these types.
DERIVED_FACT_TYPES: dict[str, Any] = {
    "host_name": "Host.name", "host_kind": "Host.kind", "host_version": "Host.product_version", "host_release": str,
    "switch_name": "Switch.name", "switch_kind": "Switch.kind", "switch_mtu": "Switch.mtu",
    "switch_ens_mode": "Switch.ens_mode", "module_version": "KernelModule.version",
    "module_options": "KernelModule.options", "link_speed_gbps": float, "pcie_bandwidth_gbps": float,
    "pcie_bandwidth_capable_gbps": float, "ports_line_rate_gbps": float, "has_tep": bool,
    "rss_enable_command": str, "rss_rollback_command": str, "carries_tep": bool, "mtu_path_error": str,
    "tep_count": int, "overlay_uplinks": int,
    **{name: str for names in COMMAND_FACTS.values() for name in names},
    "vmklinux_driver": bool,
}


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
    change: str = ""
    verify: str = ""


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


def _nodes(node: object):
    """Every expression of a compiled condition, ``node`` first (depth first)."""
    yield node
    children = list(getattr(node, "__dict__", {}).values())
    for cls in type(node).__mro__:  # most expression classes keep their operands in __slots__
        children += [getattr(node, slot) for slot in getattr(cls, "__slots__", ()) if hasattr(node, slot)]
    for value in children:
        for v in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(v, (rule_engine.ast.ExpressionBase, rule_engine.ast.Statement)):
                yield from _nodes(v)


def _condition_names(compiled: rule_engine.Rule) -> set[str]:
    """The top-level symbols a compiled condition reads (``mtu``, ``module_options`` …)."""
    return {n.name for n in _nodes(compiled.statement)
            if isinstance(n, rule_engine.ast.SymbolExpression) and n.scope is None}


def _data_type(hint: Any) -> Any:
    """The rule-engine DataType of a Python type hint (``int | None`` → FLOAT: null is allowed for every fact and
    compared with ``== null``); UNDEFINED (not type-checked) when it has none."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(args) != 1:
            return rule_engine.DataType.UNDEFINED
        hint = args[0]
    try:
        return rule_engine.DataType.from_type(hint)
    except (TypeError, ValueError):
        return rule_engine.DataType.UNDEFINED


def _field_hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def fact_types(applies_to: str) -> dict[str, Any]:
    """The rule-engine DataType of every fact a condition on ``applies_to`` objects may use (:func:`known_facts`):
    the model fields' annotations, and :data:`DERIVED_FACT_TYPES` for the derived ones (UNDEFINED, so not checked,
    for a derived fact without a type there)."""
    return dict(_fact_types(applies_to))


@functools.lru_cache(maxsize=None)
def _fact_types(applies_to: str) -> tuple[tuple[str, Any], ...]:
    classes = {"Host": Host, "Switch": Switch, "KernelModule": KernelModule}
    hints = _field_hints(_OBJECTS[applies_to])
    out = {}
    for name in known_facts(applies_to):
        hint = hints.get(name) if name not in EXTRA_FACTS[applies_to] else DERIVED_FACT_TYPES.get(name)
        if isinstance(hint, str):
            cls, _, attr = hint.partition(".")
            hint = _field_hints(classes[cls]).get(attr)
        out[name] = _data_type(hint) if hint is not None else rule_engine.DataType.UNDEFINED
    return tuple(sorted(out.items()))


def _typed_context(applies_to: str) -> rule_engine.Context:
    """A rule-engine Context that knows the type of each fact (unknown names stay UNDEFINED: they are refused with
    their own message)."""
    known = fact_types(applies_to)
    return rule_engine.Context(default_value=None,
                               type_resolver=lambda name: known.get(name, rule_engine.DataType.UNDEFINED))


_TYPE_WORDS = {"FLOAT": "number", "STRING": "string", "BOOLEAN": "boolean", "ARRAY": "list", "MAPPING": "map",
               "NULL": "null"}


def _type_name(dt: Any) -> str:
    """``number``, ``string``, ``boolean``, ``list``, ``map`` … for a rule-engine DataType."""
    name = str(getattr(dt, "name", dt))
    return _TYPE_WORDS.get(name, name.lower())


def _type_mismatch(statement: object) -> str | None:
    """Why a condition compiled with typed facts can never match: an equality (``==``/``!=``) or membership (``in``)
    between values of types that are never equal (rule-engine accepts those and evaluates them to false/true);
    None when there is no such comparison."""
    DT = rule_engine.DataType
    ast = rule_engine.ast

    def defined(dt: Any) -> bool:
        return dt is not None and dt != DT.UNDEFINED and dt != DT.NULL

    def side(node: object) -> str:
        kind = _type_name(getattr(node, "result_type", "?"))
        if isinstance(node, ast.SymbolExpression):
            return f"{node.name} ({kind})"
        if isinstance(node, ast.LiteralExpressionBase) and not isinstance(node.value, (list, tuple, dict)):
            value = repr(node.value) if isinstance(node.value, str) else str(node.value)
            return f"{value} ({kind})"
        return kind

    for node in _nodes(statement):
        if (type(node) is ast.ComparisonExpression and defined(node.left.result_type)  # == and != only
                and defined(node.right.result_type)
                and not DT.is_compatible(node.left.result_type, node.right.result_type)):
            op = "==" if node.type == "eq" else "!="
            return f"{side(node.left)} {op} {side(node.right)}: values of different types are never equal"
        if isinstance(node, ast.ContainsExpression):
            held = getattr(node.container.result_type, "value_type", None)
            if defined(held) and defined(node.member.result_type) and not DT.is_compatible(held, node.member.result_type):
                return (f"{side(node.member)} in {side(node.container)}: the list holds {_type_name(held)} "
                        f"values, so it is never found")
    return None


def check_condition_types(condition: str, applies_to: str) -> str | None:
    """Why ``condition`` on ``applies_to`` objects compares facts with values of the wrong type (``mtu == "9000"``,
    ``driver > 5``), or None when its types fit the facts'. The condition must compile untyped already."""
    context = _typed_context(applies_to)
    try:
        typed = rule_engine.Rule(condition, context=context)
    except rule_engine.errors.EngineError as exc:
        facts = fact_types(applies_to)
        named = sorted(_condition_names(rule_engine.Rule(condition, context=CONTEXT)) & set(facts))
        return (f"it compares or computes with values of different types ({exc}; "
                + ", ".join(f"{n} is a {_type_name(facts[n])}" for n in named) + ")")
    return _type_mismatch(typed.statement)


class _DuplicateKey(yaml.constructor.ConstructorError):
    """A key written twice in one YAML mapping (``problem_mark`` is the second one)."""


class _UniqueKeyLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing a key written twice in one mapping (YAML keeps the last one silently: a
    rule written ``severity: info`` then ``severity: error`` would load as an error rule)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: dict[object, int] = {}
        for key_node, _value in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node)
            line = key_node.start_mark.line + 1
            if key in seen:
                raise _DuplicateKey(None, None, f"duplicate key {key!r} (first at line {seen[key]}): YAML would "
                                    f"silently keep only the last value", key_node.start_mark)
            seen[key] = line
        return super().construct_mapping(node, deep=deep)


def _reference_problem(ref: str) -> str | None:
    """Why ``ref`` does not name a known source, or None: ``"<document> §<section>"`` must name one of
    :data:`REFERENCE_DOCUMENTS` (the schema already requires that form, a URL or ``"vendor: …"``)."""
    if "://" in ref or ref.startswith("vendor: "):
        return None
    doc, sep, _section = ref.partition(" §")
    if sep and doc not in REFERENCE_DOCUMENTS:
        return (f"reference {ref!r} names {doc!r}, which is not a reference document (one of "
                f"{', '.join(sorted(REFERENCE_DOCUMENTS))}; or cite a URL or \"vendor: …\")")
    return None


#: A rule file larger than this is refused before it is parsed (the shipped files are a few KB each).
MAX_RULE_FILE_BYTES = 1 << 20
#: Deepest nesting of YAML collections a rule file may have (a rule is 3 levels deep; PyYAML's composer recurses
#: once per level, so 100,000 nested brackets ended in a RecursionError).
MAX_NESTING = 32
#: Most YAML nodes a rule file may expand to with its aliases counted at every use: a 1 KB "billion laughs" file of
#: nested aliases expands to 10^9 nodes, which the schema check walks (1.9 GB of memory).
MAX_EXPANDED_NODES = 100_000


def _rule_text(path: Path) -> str:
    """The rule file as text. Raises RuleError (``path:line: …``) for a file larger than
    :data:`MAX_RULE_FILE_BYTES` or not UTF-8 (naming the line of the first bad byte); OSError when unreadable."""
    with path.open("rb") as fh:
        raw = fh.read(MAX_RULE_FILE_BYTES + 1)
    if len(raw) > MAX_RULE_FILE_BYTES:
        raise RuleError(f"{path}:1: larger than {MAX_RULE_FILE_BYTES} bytes: not a rule file")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise RuleError(f"{path}:{line}: not UTF-8 text (byte {exc.start} is 0x{raw[exc.start]:02x})") from None


def _check_nesting(text: str, path: Path) -> None:
    """Refuse collections nested deeper than :data:`MAX_NESTING` (``path:line``), read with PyYAML's scanner, which
    does not recurse: the composer and the schema check do."""
    depth = 0
    for token in yaml.scan(text, Loader=yaml.SafeLoader):
        if isinstance(token, (yaml.BlockMappingStartToken, yaml.BlockSequenceStartToken, yaml.FlowMappingStartToken,
                              yaml.FlowSequenceStartToken)):
            depth += 1
            if depth > MAX_NESTING:
                raise RuleError(f"{path}:{token.start_mark.line + 1}: nested more than {MAX_NESTING} levels deep: "
                                "not a rule file")
        elif isinstance(token, (yaml.BlockEndToken, yaml.FlowMappingEndToken, yaml.FlowSequenceEndToken)):
            depth -= 1


def _check_expansion(node: yaml.Node, path: Path) -> None:
    """Refuse a document whose aliases expand to more than :data:`MAX_EXPANDED_NODES` nodes (``path:line`` of the
    node where the count is passed). Each distinct node is counted once (iteratively, children first), its
    expanded size reused at every alias of it: linear in the file."""
    size: dict[int, int] = {}
    stack: list[tuple[yaml.Node, bool]] = [(node, False)]
    while stack:
        n, done = stack.pop()
        if id(n) in size:
            continue
        children = [c for pair in n.value for c in pair] if isinstance(n, yaml.MappingNode) else \
            list(n.value) if isinstance(n, yaml.SequenceNode) else []
        if not done:
            stack.append((n, True))
            stack.extend((c, False) for c in children if id(c) not in size)
            continue
        size[id(n)] = 1 + sum(size.get(id(c), 1) for c in children)
        if size[id(n)] > MAX_EXPANDED_NODES:
            raise RuleError(f"{path}:{n.start_mark.line + 1}: its aliases expand to more than {MAX_EXPANDED_NODES} "
                            "YAML nodes: not a rule file")


def load_rule_file(path: Path) -> list[Rule]:
    """Load, validate and compile one rule file. Raises RuleError (``path:line: message``), also for a file that is
    not UTF-8, larger than :data:`MAX_RULE_FILE_BYTES`, nested deeper than :data:`MAX_NESTING` or whose aliases
    expand past :data:`MAX_EXPANDED_NODES` nodes; OSError when it cannot be read."""
    text = _rule_text(path)
    try:
        _check_nesting(text, path)
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        if node is not None:
            _check_expansion(node, path)
        data = yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
    except _DuplicateKey as exc:
        raise RuleError(f"{path}:{exc.problem_mark.line + 1}: {exc.problem}") from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark else 0
        what = ", ".join(t for t in (getattr(exc, "context", None), getattr(exc, "problem", None)) if t) or str(exc)
        raise RuleError(f"{path}:{line}: not valid YAML: {' '.join(what.split())}") from exc
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
            names = _condition_names(compiled)
            why = check_condition_types(item["condition"], item["applies_to"])
        except rule_engine.errors.EngineError as exc:
            cline = _line_of(node, ["rules", i, "condition"])
            raise RuleError(f"{path}:{cline}: rule {item['id']}: bad condition {item['condition']!r}: {exc}") from exc
        except (RecursionError, MemoryError):  # a chain of 1,000 "and" is parsed into a tree 1,000 levels deep
            cline = _line_of(node, ["rules", i, "condition"])
            raise RuleError(f"{path}:{cline}: rule {item['id']}: condition nested too deeply to be read") from None
        for key, names in (("condition", names),
                           ("message", string.Template(item["message"]).get_identifiers()),
                           ("recommendation", string.Template(item["recommendation"]).get_identifiers()),
                           ("rollback", string.Template(item.get("rollback", "")).get_identifiers()),
                           ("change", string.Template(item.get("change", "")).get_identifiers()),
                           ("verify", string.Template(item.get("verify", "")).get_identifiers()),
                           ("evidence", item.get("evidence", []))):
            unknown = sorted(set(names) - known)
            if unknown:
                kline = _line_of(node, ["rules", i, key])
                raise RuleError(f"{path}:{kline}: rule {item['id']}: {key} names unknown fact(s) "
                                f"{', '.join(unknown)} for {item['applies_to']} (see rules/README.md)")
        if why:
            cline = _line_of(node, ["rules", i, "condition"])
            raise RuleError(f"{path}:{cline}: rule {item['id']}: condition {item['condition']!r} can never match: {why}")
        for j, ref in enumerate(item["references"]):
            why = _reference_problem(ref)
            if why:
                raise RuleError(f"{path}:{_line_of(node, ['rules', i, 'references', j])}: rule {item['id']}: {why}")
        if item.get("overlay") and item["applies_to"] not in ("pnic", "switch"):
            raise RuleError(f"{path}:{_line_of(node, ['rules', i, 'overlay'])}: rule {item['id']}: overlay: true is "
                            f"for pnic and switch rules (a vmknic rule names is_tep in its condition)")
        rules.append(Rule(
            id=item["id"], title=item["title"], severity=Severity(item["severity"]),
            applies_to=item["applies_to"], category=item["category"], condition=item["condition"],
            message=item["message"], recommendation=item["recommendation"],
            references=tuple(item["references"]), evidence=tuple(item.get("evidence", ())),
            source=f"{path.name}:{line}", compiled=compiled, overlay=bool(item.get("overlay", False)),
            rollback=item.get("rollback", ""), change=item.get("change", ""), verify=item.get("verify", ""),
        ))
    return rules


def user_rules_dir() -> Path:
    """The user's own rules: ``<user config dir>/rules`` (``platformdirs.user_config_dir("nic-advisor")``,
    ``~/.config/nic-advisor/rules`` on Linux). Its ``*.yaml`` files load after the shipped ones."""
    import platformdirs

    return Path(platformdirs.user_config_dir("nic-advisor")) / "rules"


def _check_ids(rules: list[Rule], seen: dict[str, str] | None = None) -> None:
    """Raise RuleError for a rule id defined twice in ``rules`` or already in ``seen`` (id → source); adds the ids
    of ``rules`` to ``seen``."""
    seen = {} if seen is None else seen
    mine: dict[str, str] = {}
    for r in rules:
        first = seen.get(r.id) or mine.get(r.id)
        if first:
            raise RuleError(f"{r.source}: rule id {r.id!r} already defined at {first}")
        mine[r.id] = r.source
    seen.update(mine)


def _user_file(path: Path) -> list[Rule]:
    return [dataclasses.replace(r, source=f"{path.parent}/{r.source}") for r in load_rule_file(path)]


def load_rules(folder: Path | None = None, *, user: bool | None = None,
               skipped: list[tuple[Path, str]] | None = None) -> list[Rule]:
    """All rules of every ``*.yaml`` file in ``folder`` (default: the shipped ``rules/``), then, for the shipped
    folder (or ``user=True``), those of :func:`user_rules_dir` when it exists; a user rule's ``source`` names its
    full path. Raises RuleError on the first invalid file, or when two rules share an id (a user rule cannot
    silently replace a shipped one).

    With ``skipped`` (a list), a user rule file that does not load (invalid, unreadable, or defining an id already
    defined) is left out and ``(path, "path:line: why")`` appended to it instead, so that an audit runs with the
    other rules and says which file it could not use; the shipped rules still raise."""
    with_user = folder is None if user is None else user
    folder = folder or default_rules_dir()
    rules: list[Rule] = []
    for path in sorted(folder.glob("*.yaml")):
        rules.extend(load_rule_file(path))
    seen: dict[str, str] = {}
    _check_ids(rules, seen)
    if with_user and user_rules_dir().is_dir():
        for path in sorted(user_rules_dir().glob("*.yaml")):
            try:
                mine = _user_file(path)
                _check_ids(mine, seen)
            except (RuleError, OSError) as exc:
                if skipped is None:
                    raise
                why = str(exc) if isinstance(exc, RuleError) else f"{path}: cannot be read: {exc.strerror or exc}"
                skipped.append((path, why))
                continue
            rules.extend(mine)
    return rules


def check_rule_files(paths: list[Path]) -> list[Rule]:
    """Validate rule files as the audit would load them with the shipped rules: each file's schema, conditions
    and fact names, and ids unique across them and the shipped rules. Returns the rules of ``paths``. Raises
    RuleError (``file:line: message``) or OSError for a file that cannot be read."""
    shipped = load_rules(user=False)
    mine: list[Rule] = []
    for path in paths:
        mine.extend(_user_file(path))
    _check_ids(shipped + mine)
    return mine
