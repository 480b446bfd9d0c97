"""Page 1 of the readiness deliverable: what a change board decides from (issue 25 §1). Pure; shared by the PDF and
the HTML.

* :func:`request_lines`: the change request's scope — the target NSX version, the vCenter / cluster / VDS in scope —
  and what "Approve" authorises (the remediation plan, in the order of its groups, then the rollout);
* :func:`verdict_lines`: the verdict's changes, one line per blocker, the configuration the rollout sets apart
  (:mod:`nicadvisor.model.changes`);
* :func:`effort`: the reboots and maintenance windows, the vCenter-level changes, the physical-network changes (owner:
  the network team) and the hardware to buy, counted over the plan's groups
  (:func:`nicadvisor.report.remediation.plan_groups`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nicadvisor.model.audit import Audit
from nicadvisor.model.changes import KIND
from nicadvisor.model.text import plural
from nicadvisor.report.remediation import PlanGroup, vds_members
from nicadvisor.report.scope import vcenters


def in_scope(audit: Audit) -> str:
    """``"vCenter vc01:443; VDS dvs-a (12 hosts), dvs-b (3 hosts)"``: the vCenter(s) read and the distributed
    switches of the audited hosts with how many member hosts each; ``""`` when neither is known."""
    parts = []
    vc = vcenters(audit)
    if vc:
        parts.append(f"vCenter {vc}")
    members = vds_members(audit)
    if members:
        parts.append("VDS " + ", ".join(f"{name} ({len(hosts)} host{'' if len(hosts) == 1 else 's'})"
                                        for name, hosts in sorted(members.items())))
    return "; ".join(parts)


def approve_text(audit: Audit, groups: list[PlanGroup], items: int) -> str:
    """What "Approve" authorises, in one sentence: the remediation plan (its items and groups, in order), then the
    NSX rollout (to the target version when given) on the hosts in scope."""
    target = getattr(audit, "target_nsx", None)
    rollout = f"the NSX {target} rollout" if target else "the NSX rollout (target version not given: --target-nsx)"
    if not items:
        return f"Approve authorises {rollout} on the {plural(len(audit.hosts), 'host')} in scope; the plan has nothing to change."
    order = " → ".join(g.kind.title for g in groups)
    return (f"Approve authorises first the remediation plan ({items} item(s), in this order: {order}), then {rollout} "
            f"on the {plural(len(audit.hosts), 'host')} in scope.")


def verdict_lines(verdict: Any, shown: int = 8) -> list[tuple[str, str]]:
    """``[(heading, line)]``: one line per blocker (``"driver change: bnx2x on esxi-pasek-bnx2x"``), then the
    configuration the rollout sets, alike changes on one line ("MTU 1500 → ≥ 1600 on 4 hosts"); at most ``shown``
    lines, then one saying how many more."""
    out: list[tuple[str, str]] = []
    for heading, changes in (("Blocker", verdict.blockers), ("Configuration the rollout sets", verdict.configuration)):
        by: dict[tuple[str, str], list[Any]] = {}
        for c in changes:
            by.setdefault((KIND[c.kind].noun if heading == "Blocker" else KIND[c.kind].title, c.what), []).append(c)
        for (noun, what), cs in by.items():
            hosts = list(dict.fromkeys(h for c in cs for h in c.hosts))
            where = hosts[0] if len(hosts) == 1 else f"{len(hosts)} hosts ({', '.join(hosts[:3])}" + (
                f" and {len(hosts) - 3} more)" if len(hosts) > 3 else ")")
            targets = list(dict.fromkeys(t for c in cs for t in c.target.split(", ") if t))
            on = f" ({', '.join(targets[:3])}{' …' if len(targets) > 3 else ''})" if len(hosts) == 1 and targets else ""
            out.append((heading, f"{noun}: {what} on {where}{on}"))
    if len(out) > shown:
        more = len(out) - shown
        out = out[:shown] + [("", f"… and {more} more (the remediation plan lists every change)")]
    return out


@dataclass(frozen=True)
class Effort:
    """What the plan costs: ``reboot_hosts`` hosts that reboot (a maintenance window each: driver/firmware, ESXi
    release, hardware), ``vcenter_changes`` changes made once in vCenter (a VDS setting), ``host_switch_changes``
    standard-vSwitch changes (per host), ``nsx_changes`` NSX Manager changes, ``network_changes`` physical-network
    changes (the network team) and the ``network_hosts`` they touch, ``hardware`` hardware items to buy or move (pNIC
    or slot targets) on ``hardware_hosts``."""

    reboot_hosts: int
    vcenter_changes: int
    host_switch_changes: int
    nsx_changes: int
    network_changes: int
    network_hosts: int
    hardware: int
    hardware_hosts: int

    def rows(self) -> list[tuple[str, str, str]]:
        """``[(what, count, owner)]`` as page 1 prints them."""
        return [
            ("Reboots / maintenance windows (hosts)", str(self.reboot_hosts), "virtualisation team"),
            ("vCenter-level changes (VDS settings)", str(self.vcenter_changes), "virtualisation team"),
            ("Host vSwitch changes", str(self.host_switch_changes), "virtualisation team"),
            ("NSX Manager changes (uplink profile, TEP pool)", str(self.nsx_changes), "virtualisation team"),
            ("Physical-network changes", _on_hosts(self.network_changes, self.network_hosts), "network team"),
            ("Hardware to buy or move (pNIC / slot)", _on_hosts(self.hardware, self.hardware_hosts),
             "hardware vendor"),
        ]

    def to_dict(self) -> dict[str, int]:
        """The counts by name (JSON)."""
        return dict(self.__dict__)


def effort(audit: Audit, groups: list[PlanGroup]) -> Effort:
    """The :class:`Effort` of the plan's ``groups`` over ``audit``'s hosts."""
    by_name = {h.name: h for h in audit.hosts}
    reboot: dict[str, None] = {}
    vds: dict[str, None] = {}
    vswitch: dict[tuple[str, str], None] = {}
    counts = {"nsx": 0, "physical": 0, "hardware": 0}
    net_hosts: dict[str, None] = {}
    hw_hosts: dict[str, None] = {}
    for g in groups:
        if g.kind.reboot:
            reboot.update(dict.fromkeys(g.hosts))
        for _n, item in g.items:
            for f in item.findings:
                if g.kind.key == "switch":
                    host = by_name.get(f.host)
                    sw = None
                    if host is not None and f.obj:
                        sw = next((s for s in host.switches if s.name == f.obj), None) or host.switch_of(f.obj)
                    if sw is not None and sw.kind == "distributed":
                        vds[sw.name] = None
                    else:
                        vswitch[(f.host, sw.name if sw is not None else "")] = None  # one MTU per host
                elif g.kind.key in counts:
                    counts[g.kind.key] += 1
                    if g.kind.key == "physical":
                        net_hosts[f.host] = None
                    if g.kind.key == "hardware":
                        hw_hosts[f.host] = None
    return Effort(len(reboot), len(vds), len(vswitch), counts["nsx"], counts["physical"], len(net_hosts),
                  counts["hardware"], len(hw_hosts))


def _on_hosts(changes: int, hosts: int) -> str:
    """``"2 on 2 hosts"``, ``"1 on 1 host"``, or ``"none"`` for a count of 0 (never ``"0 on 0 host(s)"``)."""
    return f"{changes} on {plural(hosts, 'host')}" if changes else "none"
