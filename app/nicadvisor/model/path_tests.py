"""Findings of the path tests between audited hosts (the TEP mesh, ``bench --mtu-check``), scoped to the path.

A failed don't-fragment ping proves something about one path: the sender's TEP vmknic (ESXi) or interface (Linux),
the receiver's, the switch each vmknic is on and that switch's uplinks. So each failing pair becomes one finding on
each end's vmknic or interface (``Finding.obj``), category ``mtu``: the capability matrix then marks the uplinks of
that vmknic's switch (:func:`nicadvisor.model.capabilities.cell_for` takes findings on a pNIC's switch and on the TEP
vmknics of that switch), never every pNIC of the host. A Linux end's interface is marked when it is one of the
host's audited pNICs.

* ``tep-path-mtu-failed`` (error): frames of a size did not cross — the sender's vmknic/switch MTU refused them
  ("Message too long"), or the path dropped them while small pings were answered, or no reply came while whether
  the peer answers at all is not known;
* ``tep-path-unreachable`` (warning): not even a 56-byte ping was answered — nothing is proven about the MTU, but
  the two TEPs cannot reach each other as addressed.

Sources: the 1600-byte minimum and the TEP MTU test, nsx-t-performance-on-intel.txt §1.5 "Checking MTU on an ESXi
Host" and §"Jumbo MTU for Higher Throughput". Pure.
"""
from __future__ import annotations

from collections import defaultdict

from nicadvisor.model.entities import (
    PATH_DROPS, PATH_LOCAL_MTU, PATH_NO_REPLY, PATH_UNREACHABLE, Evidence, Finding, Host, PathTest, Severity,
)

MTU_FAILED = "tep-path-mtu-failed"
UNREACHABLE = "tep-path-unreachable"
REFERENCES = ("nsx-t-performance-on-intel.txt §1.5 Checking MTU on an ESXi Host",
              "nsx-t-performance-on-intel.txt §Jumbo MTU for Higher Throughput")
_MTU_CAUSES = (PATH_LOCAL_MTU, PATH_DROPS, PATH_NO_REPLY)


def all_path_tests(hosts: list[Host]) -> list[PathTest]:
    """Every path test the hosts sent, in host order."""
    return [t for h in hosts for t in h.path_tests]


def _retest(t: PathTest) -> str:
    if t.netstack:
        return (f"vmkping ++netstack={t.netstack} -I {t.client_if or 'vmkN'} -d -s {t.payload_bytes} -c 3 "
                f"{t.destination}")
    return f"ping -M do -c 3 -s {t.payload_bytes} -I {t.source} {t.destination}"


def _recommendation(tests: list[PathTest]) -> str:
    local = [t for t in tests if t.cause == PATH_LOCAL_MTU]
    out = []
    if local:
        ends = ", ".join(dict.fromkeys(f"{t.client_if or t.source} on {t.client}" for t in local))
        out.append(f"Raise the MTU of {ends} (the TEP vmknic and its switch — uplink profile or VDS — on ESXi, "
                   "the interface and what it sits on on Linux) to the frame size the overlay needs (9000, at "
                   "least 1700; 1600 is the minimum)")
    if any(t.cause in (PATH_DROPS, PATH_NO_REPLY) for t in tests):
        out.append("Raise the MTU on every switch port and router interface between the two ends (the TEP VLAN) "
                   "to at least the frame size that failed")
    first = tests[0]
    out.append(f"then test again: {_retest(first)}")
    return "; ".join(out) + "."


def _evidence(tests: list[PathTest]) -> tuple[Evidence, ...]:
    out = []
    for t in tests:
        lines = [ln.strip() for ln in t.output.splitlines() if ln.strip()]
        own = [ln for ln in lines if "too long" in ln.lower() or "packets transmitted" in ln]
        out.append(Evidence(command=t.command, line="\n".join([t.line(), *own[:2]]), source=t.client))
    return tuple(out)


def path_test_findings(hosts: list[Host]) -> list[Finding]:
    """One finding per end (host and vmknic/interface) of the failing path tests of ``hosts``: ``tep-path-mtu-failed``
    (error) for a size that did not cross, else ``tep-path-unreachable`` (warning) when no ping at all was answered.
    An end whose host is not among ``hosts`` gets none. Pure."""
    names = {h.name for h in hosts}
    by_end: dict[tuple[str, str, str], list[PathTest]] = defaultdict(list)
    for t in all_path_tests(hosts):
        if t.ok is not False:
            continue
        rule = MTU_FAILED if t.cause in _MTU_CAUSES else UNREACHABLE if t.cause == PATH_UNREACHABLE else ""
        if not rule:
            continue
        for host, iface in ((t.client, t.client_if), (t.server, t.server_if)):
            if host in names:
                by_end[(rule, host, iface)].append(t)
    findings = []
    for (rule, host, iface), tests in by_end.items():
        where = f"{iface} on {host}" if iface else host
        sentences = "; ".join(dict.fromkeys(t.line() for t in tests))
        if rule == MTU_FAILED:
            findings.append(Finding(
                rule_id=rule, title="TEP path drops Geneve-size frames", severity=Severity.ERROR, host=host, obj=iface,
                message=f"A don't-fragment ping on the path of {where} failed: {sentences}. Geneve frames of that "
                        "size are dropped between these TEPs.",
                recommendation=_recommendation(tests), references=REFERENCES, evidence=_evidence(tests),
                category="mtu"))
        else:
            findings.append(Finding(
                rule_id=rule, title="TEPs do not answer each other", severity=Severity.WARNING, host=host, obj=iface,
                message=f"No ping between these TEPs was answered, not even of 56 bytes: {sentences}. Nothing is "
                        "proven about the MTU of this path; the tunnels between them cannot come up as addressed.",
                recommendation=("Check the TEP addresses, their VLAN and routing between them (traceroute "
                                f"++netstack={tests[0].netstack} {tests[0].destination} on ESXi), then test again: "
                                if tests[0].netstack else "Check the addresses, VLAN and routing between them, then "
                                "test again: ") + _retest(tests[0]) + ".",
                references=REFERENCES, evidence=_evidence(tests), category="mtu"))
    return findings


#: The mesh table's columns, in every view (CLI, wizard, PDF, HTML, CSV).
MESH_COLUMNS = ("From", "To", "Frame", "Result", "Round trip min/avg/max", "Cause")
RESULT_WORD = {True: "PASS", False: "FAIL", None: "????"}


def mesh_table(tests: list[PathTest]) -> list[dict[str, str]]:
    """The TEP mesh as table rows (keys :data:`MESH_COLUMNS`): both ends (host, vmknic or interface, address), the
    frame in bytes, ``PASS``/``FAIL``/``????`` (did not run), the round trips and the outcome in words. Pure."""
    return [{"From": t.end("client"), "To": t.end("server"), "Frame": f"{t.frame_bytes} B",
             "Result": RESULT_WORD[t.ok], "Round trip min/avg/max": t.rtt_text() or "—", "Cause": t.detail}
            for t in tests]
