"""A host's decisive checks not made and its "Finish this audit" block, as the PDF and the HTML print them on the host
page (issue 16 §1-§2), short enough that ten host pages do not become a wall of the same lines (issue 19 §1).

The commands are the host verdict's (:attr:`nicadvisor.model.verdict.HostVerdict.finish`, the same list the CLI, the
wizard, the JSON and the CSV give one per line); here the commands that differ only by the pNIC they read become one
POSIX ``for`` loop over those pNICs (``for nic in vmnic0 vmnic1; do vsish -e get /net/pNics/$nic/properties; done``:
busybox ``sh`` in the ESXi Shell runs it as it runs each command); a ``#`` comment is kept as it is. Pure.
"""
from __future__ import annotations

import re
from typing import Any

from nicadvisor.model.readiness import DECISIVE_CHECKS

#: A pNIC name a loop may carry unquoted (no shell metacharacter, no space).
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_.:@-]+")


def missing_lines(hv: Any) -> list[str]:
    """The decisive checks not made on a host (``hv``: its :class:`~nicadvisor.model.verdict.HostVerdict`), one per
    check in :data:`~nicadvisor.model.readiness.DECISIVE_CHECKS` order, each with the pNICs it was not made on:
    ``["ESXi release (with its update)", "Geneve offload: vmnic0, vmnic1"]``; [] when every one was made."""
    pnics: dict[str, list[str]] = {}
    for m in hv.missing:
        names = pnics.setdefault(m.title, [])
        if m.pnic and m.pnic not in names:
            names.append(m.pnic)
    return [f"{title}: {', '.join(names)}" if names else title for title, names in pnics.items()]


def missing_overview(verdicts: Any) -> str:
    """The decisive checks not made over a whole audit (``verdicts``: its host verdicts), for the cover, before
    anything else about the hosts: ``"Geneve offload on 9 hosts; ESXi release (with its update) on 7 hosts"``, in
    :data:`~nicadvisor.model.readiness.DECISIVE_CHECKS` order; ``""`` when every host's checks were made. Each host's
    own list and commands are on its page."""
    counts = {c.title: 0 for c in DECISIVE_CHECKS}
    for hv in verdicts:
        for title in dict.fromkeys(m.title for m in hv.missing):
            counts[title] = counts.get(title, 0) + 1
    return "; ".join(f"{title} on {n} host{'s' if n != 1 else ''}" for title, n in counts.items() if n)


_WORD = re.compile(r"[\w.:@-]+")


def _named(command: str, names: set[str]) -> dict[str, re.Match[str]]:
    """Where ``command`` names each of ``names`` (plain pNIC names, :data:`_PLAIN_NAME`) as a word of its own
    (not touching letters, digits or ``.:@-``), outside single quotes: name → its first such match. One pass over
    the command whatever the number of pNICs (a regex per command and pNIC made the HTML export of 750 pNICs take
    94 s: issue 29 §6)."""
    found: dict[str, re.Match[str]] = {}
    quotes, last = 0, 0
    for m in _WORD.finditer(command):
        quotes += command.count("'", last, m.start())
        last = m.start()
        if quotes % 2 == 0 and m.group() in names and m.group() not in found:
            found[m.group()] = m
    return found


def finish_block(hv: Any, pnic_names: list[str]) -> list[str]:
    """The lines of a host's "Finish this audit" block, in the order of ``hv.finish``: the host-wide commands on one
    line (``vmware -vl; esxcli hardware pci list``) where the first of them stands; per set of pNICs the commands
    that read each of them, one loop when the set holds two or more (else the commands as they are), where the first
    of them stands; a comment as it is.
    ``pnic_names``: the host's pNICs. [] when nothing is missing."""
    units: list[tuple[str, Any]] = []  # ("host", None), ("nic", template), ("comment", text), in order
    per_nic: dict[str, list[str]] = {}  # command with "$nic" for the pNIC → the pNICs it reads, in order
    plain = {n for n in pnic_names if _PLAIN_NAME.fullmatch(n)}
    for command in hv.finish:
        if command.startswith("#"):
            units.append(("comment", command))
            continue
        named = _named(command, plain)
        found = [(n, named[n]) for n in dict.fromkeys(pnic_names) if n in named]
        if len(found) != 1:
            units.append(("host", command))
            continue
        name, m = found[0]
        template = command[:m.start()] + "$nic" + command[m.end():]
        per_nic.setdefault(template, []).append(name)
        units.append(("nic", template))
    host_wide = [text for kind, text in units if kind == "host"]
    by_set: dict[tuple[str, ...], list[str]] = {}
    for template, names in per_nic.items():
        by_set.setdefault(tuple(names), []).append(template)
    set_of = {t: names for names, templates in by_set.items() for t in templates}
    lines: list[str] = []
    done: set[Any] = set()
    for kind, text in units:
        key = kind if kind == "host" else set_of[text] if kind == "nic" else text
        if key in done:
            continue
        done.add(key)
        if kind == "host":
            lines.append("; ".join(host_wide))
        elif kind == "comment":
            lines.append(text)
        elif len(key) > 1:
            lines.append(f"for nic in {' '.join(key)}; do {'; '.join(by_set[key])}; done")
        else:
            lines.extend(t.replace("$nic", key[0]) for t in by_set[key])
    return lines
