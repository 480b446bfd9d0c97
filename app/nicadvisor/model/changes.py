"""What a finding asks to change, counted once: the object it changes, who owns it, whether it needs a reboot, and
whether the NSX rollout itself sets it (configuration) or it blocks the rollout (issue 24 §2, issue 25 §1-§2).

Every finding is about one of six kinds of object (:data:`KINDS`, in the order the work is done):

* hardware (a pNIC or slot to buy or move; the hardware vendor),
* the ESXi release (an upgrade; the virtualisation team, in maintenance mode with a reboot),
* the host's driver or firmware (the virtualisation team, in maintenance mode with a reboot),
* the physical switch ports and the routed TEP subnet (the network team: the fabric carries the MTU before the hosts
  send it),
* the VDS / vSwitch (MTU, IPFIX: the virtualisation team, no reboot; a VDS setting reaches every member host),
* the NSX configuration (uplink profile, TEP pool and TEP MTU, host-switch mode: the virtualisation team in NSX
  Manager, no reboot).

The last two are **configuration the rollout itself sets** (a switch MTU of 1500 before NSX is prepared is a value
the rollout raises, not a defect); the first four **block** it. :func:`changes_of` turns a host's error findings into
:class:`Change` items, one per setting or fact: the ``overlay-no-fit-pnic`` error and the per-pNIC MTU findings it
restates are one MTU setting of the host's switch, a VDS MTU one setting of every member host.

Pure: no I/O.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable

from nicadvisor.model.entities import Host, Severity

OVERLAY_NO_FIT = "overlay-no-fit-pnic"


@dataclass(frozen=True)
class ChangeKind:
    """One kind of object a change touches.

    Attributes:
        key: ``hardware``, ``release``, ``driver``, ``physical``, ``switch`` or ``nsx``.
        title: how the plan and page 1 name the object (``"VDS / vSwitch"``).
        noun: one change of it in the verdict sentence (``"driver change"``).
        owner: who carries it out (virtualisation team, network team, hardware vendor).
        window: the reboot or maintenance window it needs, in words.
        reboot: True when the host reboots (a maintenance window per host).
        configuration: True when the NSX rollout itself sets it (VDS/vSwitch MTU, TEP MTU, uplink profile).
        order: the step in which it is done (1 first).
    """

    key: str
    title: str
    noun: str
    owner: str
    window: str
    reboot: bool
    configuration: bool
    order: int

    def to_dict(self) -> dict[str, Any]:
        """``{"key", "title", "noun", "owner", "window", "reboot", "configuration", "order"}`` (JSON)."""
        return {"key": self.key, "title": self.title, "noun": self.noun, "owner": self.owner, "window": self.window,
                "reboot": self.reboot, "configuration": self.configuration, "order": self.order}


VIRTUALISATION, NETWORK, VENDOR = "virtualisation team", "network team", "hardware vendor"
KINDS: tuple[ChangeKind, ...] = (
    ChangeKind("hardware", "Hardware (pNIC, PCIe slot)", "hardware change", VENDOR,
               "host powered off in a maintenance window", True, False, 1),
    ChangeKind("release", "ESXi release", "ESXi upgrade", VIRTUALISATION,
               "maintenance mode and a reboot per host", True, False, 2),
    ChangeKind("driver", "Host driver / firmware", "driver change", VIRTUALISATION,
               "maintenance mode and a reboot per host", True, False, 3),
    ChangeKind("physical", "Physical switch ports and TEP subnet", "physical-network change", NETWORK,
               "a network change window; no host reboot", False, False, 4),
    ChangeKind("switch", "VDS / vSwitch", "configuration change", VIRTUALISATION,
               "no reboot; a VDS change applies to every member host at once", False, True, 5),
    ChangeKind("nsx", "NSX configuration (uplink profile, TEP pool)", "configuration change", VIRTUALISATION,
               "no reboot; set in NSX Manager as part of the rollout", False, True, 6),
)
KIND = {k.key: k for k in KINDS}

#: Rule id → the kind of object it changes (the rules of ``rules/*.yaml`` and the built-in judgements); a rule not
#: named here falls back on its category (:data:`_BY_CATEGORY`).
_BY_RULE = {
    "pnic-mtu-below-1600": "switch", "linux-pnic-mtu-below-1600": "switch", "pnic-mtu-below-1700": "switch",
    "linux-pnic-mtu-below-1700": "switch", "pnic-mtu-not-jumbo": "switch", "switch-mtu-below-1600": "switch",
    "switch-mtu-below-1700": "switch", "switch-mtu-below-1700-no-tep": "switch", "vds-ipfix-enabled": "switch",
    OVERLAY_NO_FIT: "switch",
    "tep-mtu-below-1600": "nsx", "tep-mtu-below-1700": "nsx", "switch-mtu-above-pnic-mtu": "nsx",
    "ens-mode-for-general-workloads": "nsx", "nsx-ens-mode-not-realized": "nsx", "single-tep-with-spare-uplinks": "nsx",
    "mtu-path-test-failed": "physical", "mtu-path-test-failed-linux": "physical", "uplink-link-down": "physical",
    "pnic-link-down": "physical",
    "legacy-vmklinux-driver": "driver", "nsx-ens-mode-pnic-not-ens-capable": "driver",
    "nsx-ens-interrupt-pnic-not-interrupt-capable": "driver",
    "link-below-10g": "hardware", "no-geneve-offload": "hardware", "pcie-link-downgraded": "hardware",
    "pcie-budget-below-line-rate": "hardware",
    "esxi-release-unsupported-by-nsx": "release",
}
_BY_CATEGORY = {"mtu": "switch", "tep": "nsx", "ipfix": "switch", "link": "physical", "driver": "driver",
                "rss": "driver", "rx_filter": "driver", "coalescing": "driver", "ens": "driver",
                "geneve_offload": "hardware", "pcie": "hardware", "release": "release"}
_MTU_TITLE = re.compile(r"MTU below (\d{3,5})\b")


def kind_of(finding: Any) -> ChangeKind:
    """The :class:`ChangeKind` a finding asks to change: by its rule id, else its category, else (a compatibility or
    driver-catalogue finding) the host's driver/firmware."""
    rule = finding.rule_id
    key = _BY_RULE.get(rule) or _BY_CATEGORY.get(finding.category or "")
    if key is None:
        key = "release" if rule.startswith("esxi-release") else "driver"
    return KIND[key]


@dataclass(frozen=True)
class Change:
    """One setting or fact to change on one object, however many findings say it.

    Attributes:
        kind: the :class:`ChangeKind` key.
        target: what is changed (``"vSwitch0"``, ``"bnx2x"``, ``"vmk10"``; a VDS by its name).
        hosts: the hosts it touches (a VDS: every audited member host).
        what: the change in a few words (``"MTU 1500 → ≥ 1600"``, ``"bnx2x"``).
        rules: the rule ids of the findings it stands for.
    """

    kind: str
    target: str
    hosts: tuple[str, ...]
    what: str
    rules: tuple[str, ...]

    @property
    def configuration(self) -> bool:
        """True when the rollout itself sets it."""
        return KIND[self.kind].configuration

    def to_dict(self) -> dict[str, Any]:
        """``{"kind", "configuration", "target", "hosts", "what", "rules"}`` as in the JSON ``verdict.changes``."""
        return {"kind": self.kind, "configuration": self.configuration, "target": self.target,
                "hosts": list(self.hosts), "what": self.what, "rules": list(self.rules)}


#: How a change's description says that no MTU was read ("MTU (not read) → ≥ 1600"), never a bare "?".
_UNREAD = "(not read)"
#: A change description written by :func:`_mtu_change` (linear: no nested quantifiers).
_MTU_WHAT = re.compile(r"MTU ([0-9/]+|\(not read\)) → ≥ (\d+)$")


def _mtu_change(current: Iterable[int | None], titles: Iterable[str]) -> str:
    """``"MTU 1500 → ≥ 1600"``: the MTUs read (sorted; ``(not read)`` when none was read) and the least MTU the
    titles ask for."""
    need = max((int(m.group(1)) for t in titles if (m := _MTU_TITLE.search(t))), default=1600)
    now = sorted({m for m in current if m is not None})
    return f"MTU {'/'.join(str(m) for m in now) or _UNREAD} → ≥ {need}"


def _switch_key(host: Host, switch: Any) -> tuple[str, str]:
    """A switch's identity across hosts: a VDS is one object for every member host, a vSwitch is the host's own."""
    return (switch.name, "") if switch.kind == "distributed" else (switch.name, host.name)


def _host_changes(host: Host, errors: list[Any], unfit: dict[str, list[str]] | None) -> list[tuple[tuple, Change]]:
    """``[(identity, Change)]`` for one host's error findings (``unfit``: :func:`nicadvisor.model.readiness.
    unfit_overlay` of the host, the reasons behind its ``overlay-no-fit-pnic`` error)."""
    out: list[tuple[tuple, Change]] = []
    for f in errors:
        kind = kind_of(f)
        obj = f.obj
        if f.rule_id == OVERLAY_NO_FIT:
            reasons = unfit or {}
            mtu_only = [p for p, why in reasons.items() if why and all(_MTU_TITLE.search(t) for t in why)]
            if mtu_only or not reasons:  # raising the MTU makes a candidate fit: the switch's MTU, set by the rollout
                pnics = [host.pnic(p) for p in mtu_only]
                switches = list(dict.fromkeys(s.name for p in mtu_only if (s := host.switch_of(p)) is not None))
                sw = host.switch_of(mtu_only[0]) if mtu_only else None
                key = ("switch", *_switch_key(host, sw)) if sw is not None else ("switch", "mtu", host.name)
                what = _mtu_change((p.mtu if p is not None else None for p in pnics),
                                   (t for p in mtu_only for t in reasons[p]))
                out.append((key, Change("switch", ", ".join(switches or mtu_only), (host.name,), what,
                                        (f.rule_id,))))
                continue
            # no candidate is fit by a setting: the first reason that is not an MTU says what blocks it
            titles = [t for why in reasons.values() for t in why if not _MTU_TITLE.search(t)]
            named = next((e for e in errors if e.rule_id != OVERLAY_NO_FIT and e.title in titles), None)
            kind = kind_of(named) if named is not None else KIND["physical" if "link down" in titles else "hardware"]
            what = titles[0].split(" — ")[0].removesuffix(" (if it carries overlay)") if titles else f.title
            out.append(((kind.key, what, host.name), Change(kind.key, ", ".join(reasons), (host.name,), what,
                                                           (f.rule_id,))))
            continue
        if kind.key == "switch" and _MTU_TITLE.search(f.title):
            sw = next((s for s in host.switches if s.name == obj), None) or (host.switch_of(obj) if obj else None)
            pnic = host.pnic(obj) if obj else None
            key = ("switch", *_switch_key(host, sw)) if sw is not None else ("switch", obj, host.name)
            current = [sw.mtu if sw is not None and sw.mtu is not None else (pnic.mtu if pnic is not None else None)]
            out.append((key, Change("switch", sw.name if sw is not None else obj, (host.name,),
                                    _mtu_change(current, (f.title,)), (f.rule_id,))))
            continue
        if kind.key == "driver":
            pnic = host.pnic(obj) if obj else None
            driver = pnic.driver if pnic is not None and pnic.driver else (obj or f.title)
            out.append((("driver", driver, host.name), Change("driver", obj, (host.name,), driver, (f.rule_id,))))
            continue
        title = f.title.split(" — ")[0]
        pnic = host.pnic(obj) if obj else None
        if kind.key == "hardware" and pnic is not None and pnic.pci_address:  # the ports of one card: one card
            obj_key = pnic.pci_address.rsplit(".", 1)[0]
        else:
            obj_key = obj or title
        out.append(((kind.key, obj_key, host.name, f.rule_id),
                    Change(kind.key, obj, (host.name,), title, (f.rule_id,))))
    return out


def changes_of(hosts: Iterable[Host], findings_of: Any, unfit_of: Any) -> list[Change]:
    """The changes that the ``error`` findings of ``hosts`` ask for, each setting once: ``findings_of(host)`` gives a
    host's findings, ``unfit_of(host, findings)`` the reasons behind its ``overlay-no-fit-pnic`` error (or None). A
    pNIC MTU error, its switch's MTU error and the host's ``overlay-no-fit-pnic`` are the one MTU setting of that
    switch; a VDS is one setting for all its member hosts (its ``hosts`` lists them). In :data:`KINDS` order, then
    in the order met."""
    merged: dict[tuple, Change] = {}
    for host in hosts:
        mine = findings_of(host)
        errors = [f for f in mine if f.severity is Severity.ERROR]
        if not errors:
            continue
        unfit = unfit_of(host, mine) if any(f.rule_id == OVERLAY_NO_FIT for f in errors) else None
        for key, change in _host_changes(host, errors, unfit):
            old = merged.get(key)
            if old is None:
                merged[key] = change
                continue
            target = ", ".join(dict.fromkeys(t for c in (old, change) for t in c.target.split(", ") if t))
            merged[key] = Change(old.kind, target, tuple(dict.fromkeys(old.hosts + change.hosts)),
                                 _merge_what(old.what, change.what), tuple(dict.fromkeys(old.rules + change.rules)))
    return sorted(merged.values(), key=lambda c: KIND[c.kind].order)


def _merge_what(a: str, b: str) -> str:
    """Two descriptions of the same MTU setting as one (``MTU 1500 → ≥ 1600`` and ``MTU 1500 → ≥ 1700`` ask for
    1700)."""
    ma, mb = _MTU_WHAT.match(a), _MTU_WHAT.match(b)
    if not (ma and mb):
        return a
    now = sorted({x for x in (ma.group(1) + "/" + mb.group(1)).split("/") if x.isdigit()}, key=int)
    return f"MTU {'/'.join(now) or _UNREAD} → ≥ {max(int(ma.group(2)), int(mb.group(2)))}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _names(items: list[str], shown: int = 3) -> str:
    return ", ".join(items[:shown]) + (f" and {len(items) - shown} more" if len(items) > shown else "")


def changes_sentence(changes: list[Change], *, one_host: bool = False) -> str:
    """``"4 configuration changes before the rollout (MTU 1500 → ≥ 1600 on 4 hosts), 1 driver change (bnx2x on
    esxi-pasek-bnx2x)"``: the configuration the rollout sets first, then each kind of blocker in :data:`KINDS`
    order, each with its changes grouped by what they do. ``one_host``: a host's own verdict (no host names)."""
    config = [c for c in changes if c.configuration]
    parts = []
    if config:
        parts.append(f"{_plural(len(config), 'configuration change')} before the rollout ({_detail(config, one_host)})")
    for kind in KINDS:
        mine = [c for c in changes if c.kind == kind.key and not kind.configuration]
        if mine:
            parts.append(f"{_plural(len(mine), kind.noun)} ({_detail(mine, one_host)})")
    return ", ".join(parts)


def _detail(changes: list[Change], one_host: bool) -> str:
    by_what: dict[str, list[Change]] = {}
    for c in changes:
        by_what.setdefault(c.what, []).append(c)
    out = []
    for what, cs in by_what.items():
        hosts = list(dict.fromkeys(h for c in cs for h in c.hosts))
        if one_host:
            targets = list(dict.fromkeys(t for c in cs for t in c.target.split(", ") if t and t != what))
            out.append(what + (f" on {_names(targets)}" if targets else ""))
        elif len(hosts) == 1:
            out.append(f"{what} on {hosts[0]}")
        else:
            out.append(f"{what} on {len(hosts)} hosts")
    return "; ".join(out[:3]) + (f"; {len(out) - 3} more" if len(out) > 3 else "")
