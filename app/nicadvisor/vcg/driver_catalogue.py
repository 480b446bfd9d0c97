"""The cited driver-capability catalogue (``resources/vcg/driver_catalogue.yaml``).

For a pNIC whose driver (and version) is known but whose capability was not read on the host, the catalogue says
what the driver provides according to a public document: Geneve TSO offload, Geneve Rx filters, RSS / default-queue
RSS (with the module parameter, its range, the command to set it and the one to roll it back), Enhanced Datapath
(ENS) support and modes, and the maximum Rx queues. Every fact carries its ``source`` (document title + section or
URL). A value from the catalogue is *lower trust* than a value read on the host, which always wins; a caller shows
it as :data:`ORIGIN_LABEL`.

Use::

    cat = load_catalogue()                                   # the shipped file, validated
    facts = cat.lookup("i40en_ens", "1.8.6", "esxi", esxi_version="8.0.3")
    facts["rss"].decided, facts["rss"].value, facts["rss"].reason

File format: YAML ``{format: nicadvisor-driver-catalogue, version: 1, drivers: [{os, driver, vendor, facts: [...]}]}``
validated by ``driver_catalogue.schema.json`` (JSON Schema 2020-12) beside it; fact keys are described there and on
:class:`CatalogueFact`. Errors raise :class:`DriverCatalogueError` whose message starts with ``"<file>: "``.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from nicadvisor.paths import vcg_resource
from nicadvisor.vcg.db import VcgDataError
from nicadvisor.vcg.normalize import driver_module, normalise_driver, parse_host_version, version_at_least

CATALOGUE_FILE_NAME = "driver_catalogue.yaml"
SCHEMA_FILE_NAME = "driver_catalogue.schema.json"
FORMAT = "nicadvisor-driver-catalogue"
ORIGIN_LABEL = "from the driver catalogue"

CAPABILITIES = ("geneve_offload", "geneve_rx_filter", "rss", "drss", "ens", "ens_interrupt", "ens_poll",
                "max_rx_queues")
# Catalogue capability → PhysicalNic field it can fill (None: the model has no such field).
PNIC_FIELDS: dict[str, str | None] = {
    "geneve_offload": "geneve_offload",
    "geneve_rx_filter": "geneve_rx_filter",
    "rss": "rss",
    "drss": None,
    "ens": "ens_capable",
    "ens_interrupt": "ens_interrupt_capable",
    "ens_poll": None,
    "max_rx_queues": "rx_queues_max",
}
OS_NAMES = ("esxi", "linux")
PLACEHOLDERS = frozenset({"driver", "nic", "value", "previous"})
_PLACEHOLDER_RE = re.compile(r"\{([^{}]*)\}")
_RELEASE_RE = re.compile(r"^(\d+)\.(\d+)(?: U(\d+))?$")


class DriverCatalogueError(VcgDataError):
    """The catalogue file is unreadable or invalid; the message starts with ``"<file>: "``."""


@dataclass(frozen=True)
class CatalogueFact:
    """One capability of one driver, as the catalogue states it and as it applies to one host.

    ``value``: bool, or int for ``max_rx_queues``; None when the fact is not decided for this host.
    ``since``: first driver version with the capability (only when the source says so), else None.
    ``modules``: module names the source states the fact for (``("i40en_ens",)``); empty = every module of the
    driver family. ``esxi_release``: oldest ESXi release the source states it for (``"7.0 U3"``) or None.
    ``module_param``/``range``: the parameter syntax and its allowed values as documented (RSS-type facts).
    ``set_command``/``rollback_command``: templates with ``{driver}`` (host module), ``{nic}``, ``{value}`` and
    ``{previous}`` (the value read before the change); fill them with :meth:`command`.
    ``source``: document title + section or URL (never empty). ``decided``: True when the fact applies to this
    host; ``reason``: one sentence saying why (or why not).
    """

    driver: str
    capability: str
    value: bool | int | None
    since: str | None
    modules: tuple[str, ...]
    esxi_release: str | None
    module_param: str | None
    range: str | None
    set_command: str | None
    rollback_command: str | None
    note: str | None
    source: str
    decided: bool
    reason: str

    @property
    def pnic_field(self) -> str | None:
        """The :class:`nicadvisor.model.PhysicalNic` field this capability fills, or None (see :data:`PNIC_FIELDS`)."""
        return PNIC_FIELDS[self.capability]

    def command(self, which: str, **values: object) -> str | None:
        """``set_command`` (``which="set"``) or ``rollback_command`` (``"rollback"``) with placeholders filled.

        ``values`` gives ``driver``, ``nic``, ``value``, ``previous``; a placeholder without a value stays as
        written. None when the fact has no such command. Raises ValueError for another ``which``.
        """
        if which not in ("set", "rollback"):
            raise ValueError(f"which must be 'set' or 'rollback', not {which!r}")
        template = self.set_command if which == "set" else self.rollback_command
        if template is None:
            return None
        return _PLACEHOLDER_RE.sub(
            lambda m: str(values[m.group(1)]) if values.get(m.group(1)) is not None else m.group(0), template)


@dataclass(frozen=True)
class _Entry:
    os: str
    driver: str
    vendor: str
    facts: tuple[dict[str, Any], ...]


def _resource(name: str) -> Path:
    """A file of the shipped ``resources/vcg`` folder, found like :func:`nicadvisor.vcg.seed.shipped_csv_path`:
    frozen bundle, project root / installed wheel data, package data. Raises FileNotFoundError naming every place."""
    return vcg_resource(name, "the driver catalogue file")


def shipped_catalogue_path() -> Path:
    """The ``driver_catalogue.yaml`` the application ships. Raises FileNotFoundError when it is missing."""
    return _resource(CATALOGUE_FILE_NAME)


def _line_of(node: yaml.Node | None, path: list[Any]) -> int:
    """1-based line of the YAML node at ``path`` (keys and list indexes), as deep as it exists."""
    if node is None:
        return 1
    for step in path:
        nxt = None
        if isinstance(node, yaml.MappingNode) and isinstance(step, str):
            nxt = next((v for k, v in node.value if getattr(k, "value", None) == step), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and step < len(node.value):
            nxt = node.value[step]
        if nxt is None:
            break
        node = nxt
    return node.start_mark.line + 1


def _where(path: list[Any]) -> str:
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else str(step))
    return out or "(top level)"


def _release_key(text: str) -> tuple[int, int, int]:
    m = _RELEASE_RE.match(text.strip())
    if not m:  # the schema's pattern makes this unreachable for validated files
        raise ValueError(f"unreadable ESXi release {text!r}")
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def _check_semantics(data: dict[str, Any], node: yaml.Node | None, origin: str) -> None:
    """Rules JSON Schema cannot state: one entry per (os, driver), one fact per capability, known placeholders."""
    seen: set[tuple[str, str]] = set()
    for i, entry in enumerate(data["drivers"]):
        key = (entry["os"], entry["driver"])
        if normalise_driver(entry["driver"]) != entry["driver"]:
            raise DriverCatalogueError(
                f"{origin}: line {_line_of(node, ['drivers', i, 'driver'])}: drivers[{i}].driver "
                f"{entry['driver']!r} must be the family name without an _ens suffix "
                f"({normalise_driver(entry['driver'])!r}); name ENS modules in a fact's 'modules'")
        if key in seen:
            raise DriverCatalogueError(f"{origin}: line {_line_of(node, ['drivers', i])}: drivers[{i}]: "
                                       f"{entry['os']} driver {entry['driver']!r} is listed twice")
        seen.add(key)
        caps: set[str] = set()
        for j, fact in enumerate(entry["facts"]):
            if fact["capability"] in caps:
                raise DriverCatalogueError(
                    f"{origin}: line {_line_of(node, ['drivers', i, 'facts', j])}: drivers[{i}].facts[{j}]: "
                    f"capability {fact['capability']} is stated twice for {entry['driver']}; merge the sources")
            caps.add(fact["capability"])
            if "esxi_release" in fact and entry["os"] != "esxi":
                raise DriverCatalogueError(
                    f"{origin}: line {_line_of(node, ['drivers', i, 'facts', j, 'esxi_release'])}: "
                    f"drivers[{i}].facts[{j}].esxi_release is only for esxi drivers")
            for key_name in ("set_command", "rollback_command"):
                for name in _PLACEHOLDER_RE.findall(fact.get(key_name, "")):
                    if name not in PLACEHOLDERS:
                        raise DriverCatalogueError(
                            f"{origin}: line {_line_of(node, ['drivers', i, 'facts', j, key_name])}: "
                            f"drivers[{i}].facts[{j}].{key_name}: unknown placeholder {{{name}}} "
                            f"(known: {', '.join(sorted(PLACEHOLDERS))})")


def _schema() -> dict[str, Any]:
    return json.loads(_resource(SCHEMA_FILE_NAME).read_text(encoding="utf-8"))


def parse_catalogue(text: str, origin: str = CATALOGUE_FILE_NAME) -> DriverCatalogue:
    """Validate catalogue YAML ``text`` and build a :class:`DriverCatalogue`.

    Raises DriverCatalogueError ``"<origin>: line N: <where>: <message>"`` for invalid YAML, a schema violation
    (the most relevant one, ``jsonschema.exceptions.best_match``), a duplicate driver or capability, an ``_ens``
    driver name or an unknown command placeholder.
    """
    try:
        node = yaml.compose(text)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark else 1
        raise DriverCatalogueError(f"{origin}: line {line}: not valid YAML: {exc}") from exc
    validator = jsonschema.Draft202012Validator(_schema())
    err = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if err is not None:
        path = list(err.absolute_path)
        raise DriverCatalogueError(f"{origin}: line {_line_of(node, path)}: {_where(path)}: {err.message}")
    _check_semantics(data, node, origin)
    entries = tuple(_Entry(os=e["os"], driver=e["driver"], vendor=e["vendor"], facts=tuple(e["facts"]))
                    for e in data["drivers"])
    return DriverCatalogue(entries, origin)


def load_catalogue(path: str | Path | None = None) -> DriverCatalogue:
    """Read and validate a catalogue file (default: :func:`shipped_catalogue_path`).

    Raises DriverCatalogueError (``"<file>: ..."``) for unreadable or invalid content, FileNotFoundError when the
    shipped file or schema is missing.
    """
    target = Path(path) if path is not None else shipped_catalogue_path()
    try:
        text = target.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DriverCatalogueError(f"{target}: cannot be read: {exc}") from exc
    return parse_catalogue(text, origin=str(target))


class DriverCatalogue:
    """The loaded catalogue: entries per (os, driver family). Build it with :func:`load_catalogue`."""

    def __init__(self, entries: tuple[_Entry, ...], origin: str) -> None:
        self.origin = origin
        self._entries = {(e.os, e.driver): e for e in entries}

    def drivers(self, os: str | None = None) -> list[tuple[str, str]]:
        """The (os, driver family) pairs listed, sorted; only those of ``os`` when given."""
        return sorted(k for k in self._entries if os is None or k[0] == os)

    def lookup(self, driver: str | None, version: str | None, os: str,
               esxi_version: str | None = None) -> dict[str, CatalogueFact]:
        """The catalogue facts for a host's driver, keyed by capability; {} for an unknown or missing driver.

        ``driver`` is the host's module name (``i40en_ens``, ``I40EN``, ``i40en-ens`` all find ``i40en``);
        ``version`` the driver version as the host prints it (``1.11.2.6-1OEM.700.1.0.15843807``) or None;
        ``os`` ``"esxi"`` or ``"linux"``; ``esxi_version`` the host's ESXi version text (``"8.0.3"``,
        ``"7.0 Update 3"``) for facts stated from an ESXi release on.

        A fact is *decided* (value set) unless: the source names other modules than the host's
        (``modules``); it has ``since`` and the host's version is unknown or below it (value None, reason
        ``"needs <driver> <since> or later; the host runs <v>"``); or it has ``esxi_release`` and the host's ESXi
        version is unknown or older. A fact without ``since`` holds for every version of the driver the source
        speaks of. Raises ValueError for an ``os`` other than esxi/linux.
        """
        if os not in OS_NAMES:
            raise ValueError(f"os must be one of {', '.join(OS_NAMES)}, not {os!r}")
        family = normalise_driver(driver)
        entry = self._entries.get((os, family)) if family else None
        if entry is None:
            return {}
        module = driver_module(driver) or family
        version = version.strip() if version and version.strip() else None
        return {f["capability"]: self._apply(entry, f, module, version, esxi_version) for f in entry.facts}

    @staticmethod
    def _apply(entry: _Entry, fact: dict[str, Any], module: str, version: str | None,
               esxi_version: str | None) -> CatalogueFact:
        since = fact.get("since")
        modules = tuple(fact.get("modules", ()))
        release = fact.get("esxi_release")
        why_not = None
        if modules and module not in modules:
            why_not = (f"the source states this for the {'/'.join(modules)} module; the host runs {module}")
        elif since is not None:
            ok = version_at_least(version, since)
            if ok is None:
                why_not = (f"needs {entry.driver} {since} or later; the host's {entry.driver} version is "
                           f"{'unknown' if version is None else f'unreadable ({version})'}")
            elif not ok:
                why_not = f"needs {entry.driver} {since} or later; the host runs {version}"
        if why_not is None and release is not None:
            host = parse_host_version(esxi_version)
            if host is None:
                why_not = f"stated for ESXi {release} and later; the host's ESXi version is unknown"
            elif (host[0], host[1], host[2] or 0) < _release_key(release):
                why_not = f"stated for ESXi {release} and later; the host runs ESXi {esxi_version}"
        decided = why_not is None
        reason = f"{ORIGIN_LABEL} ({entry.driver}): {fact['source']}" if decided else why_not
        return CatalogueFact(
            driver=entry.driver, capability=fact["capability"], value=fact["value"] if decided else None,
            since=since, modules=modules, esxi_release=release, module_param=fact.get("module_param"),
            range=fact.get("range"), set_command=fact.get("set_command"),
            rollback_command=fact.get("rollback_command"), note=fact.get("note"), source=fact["source"],
            decided=decided, reason=reason)
