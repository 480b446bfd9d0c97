"""Golden snapshots of what the audit reads and decides, on every real input the project holds.

A refactor of where reading code lives (parsers, collectors, the command catalogue) must not change one fact: each
case below is audited and its normalised semantic dump compared, byte for byte, with the JSON committed under
``snapshots/``. Cases:

* ``demo-lab``: the bundled demo lab (``resources/demo-lab``), ten hosts;
* ``captures/<name>``: every capture of ``shared/fixtures/captures``, one host each;
* ``test-captures/<name>``: every capture of ``tests/parsers/captures``, one host each;
* ``vm-support/<name>``: every file of ``shared/fixtures/vm-support``, read as a capture (its ``# command:`` names
  the bundle file it was taken from);
* ``vm-support-bundle``: an extracted vm-support bundle folder whose ``commands/`` files are the outputs of those
  fixtures that name a bundle file NIC Advisor reads (their header lines removed), read by the bundle reader;
* ``nsx/<name>``: every NSX Manager API response of ``shared/fixtures/nsx-api`` saved as an ``NSX API GET <path>``
  capture (the replay of a live NSX audit's ``--save-captures``), and ``nsx-inventory/<name>``: every
  transport-node response joined by :func:`nicadvisor.parsers.api.nsx.build_inventory` as the live NSX collector
  joins them (the inventory that the live path assembles into hosts);
* ``vsphere/govc-dumps``: the real govmomi dumps of a nested ESXi 8.0.2 (``esxi_api_govc_dump_*``) as the vSphere
  API property set the live vSphere collector converts.

The dump of one case holds, per host: its kind and host facts; every pNIC, switch, vmknic and module fact with the
evidence it came from (command, line, source with the folder it was read from replaced by ``<demo-lab>``,
``<shared>``, ``<tests>`` or ``<tmp>``); the findings as ``[rule_id, host, object, severity]``; the inputs not
understood; the verdict (status, reason, causes, per-host status and reason).

An intentional change of what is read or decided: run with ``NICADVISOR_GOLDEN_UPDATE=1`` to rewrite the snapshots,
then review their ``git diff`` (every changed line is a changed fact, finding or verdict).
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from capturetools import CAPTURES, NSX_API, REPO, SHARED, TEST_CAPTURES, VM_SUPPORT, nsx_api_path
from nicadvisor.model import Audit, Host

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("NICADVISOR_GOLDEN_UPDATE") == "1"


@pytest.fixture(autouse=True)
def _own_user_folders(tmp_path_factory, monkeypatch):
    """No imported compatibility guide, user rule or cache of another test changes what is decided here."""
    home = tmp_path_factory.mktemp("golden-home")
    for var in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.setenv(var, str(home / var.lower()))


# --- the normalised dump ----------------------------------------------------------------------------------------

def _roots(tmp: Path | None) -> list[tuple[str, str]]:
    from nicadvisor.paths import demo_lab_dir

    pairs = [(str(demo_lab_dir()), "<demo-lab>"), (str(demo_lab_dir().resolve()), "<demo-lab>"),
             (str(REPO / "tests"), "<tests>"), (str(SHARED), "<shared>"), (str(SHARED.resolve()), "<shared>")]
    if tmp is not None:
        pairs += [(str(tmp), "<tmp>"), (str(tmp.resolve()), "<tmp>")]
    return sorted(set(pairs), key=lambda p: -len(p[0]))  # the longest root first


def _relative(text: str, roots: list[tuple[str, str]]) -> str:
    for root, name in roots:
        text = text.replace(root, name)
    return text


def _value(value, roots):
    if isinstance(value, str):
        return _relative(value, roots)
    if isinstance(value, dict):
        return {str(k): _value(v, roots) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple)):
        return [_value(v, roots) for v in value]
    return value


def _facts(obj, roots, skip=()) -> dict:
    out = {}
    for name, value in obj.facts().items():
        if name in ("name", *skip) or value is None:
            continue
        ev = obj.evidence.get(name)
        out[name] = {"value": _value(value, roots),
                     "evidence": None if ev is None else [_relative(ev.command, roots), _relative(ev.line, roots),
                                                          _relative(ev.source, roots)]}
    return out


def _host(host: Host, roots) -> dict:
    out = {
        "name": _relative(host.name, roots),
        "kind": host.kind,
        "host": _facts(host, roots, skip=("kind", "pnics", "vmknics", "switches", "modules", "not_run", "path_tests",
                                                  "conflicts")),
        "pnics": {p.name: _facts(p, roots) for p in host.pnics},
        "switches": {s.name: _facts(s, roots) for s in host.switches},
        "vmknics": {v.name: _facts(v, roots) for v in host.vmknics},
        "modules": {m.name: _facts(m, roots) for m in host.modules},
    }
    if host.not_run:  # the commands a collector could not run (none for a recorded output)
        out["not_run"] = [[_relative(n.command, roots), n.reason, n.partial] for n in host.not_run]
    if host.path_tests:  # only a benchmark between hosts sends them: no input read here holds any
        out["path_tests"] = [t.to_dict() for t in host.path_tests]
    if host.conflicts:  # two captures stating one fact differently (issue 24 §3)
        out["conflicts"] = [{**c.to_dict(), "text": _relative(c.text(), roots),
                             "values": [{**v.to_dict(), "source": _relative(v.source, roots)} for v in c.values]}
                            for c in host.conflicts]
    return out


def dump(audit: Audit, tmp: Path | None = None) -> str:
    """The normalised semantic dump of ``audit`` (sorted JSON, two-space indent, trailing newline)."""
    roots = _roots(tmp)
    verdict = audit.verdict
    doc = {
        "hosts": [_host(h, roots) for h in audit.hosts],
        "findings": sorted([f.rule_id, _relative(f.host, roots), _relative(f.obj, roots), f.severity.value]
                           for f in audit.findings),
        "inputs_not_understood": [[_relative(p.source, roots), _relative(p.message, roots),
                                   _relative(p.command, roots)] for p in audit.inputs_not_understood],
        "verdict": {"status": verdict.status, "reason": _relative(verdict.reason, roots),
                    "causes": [_relative(c, roots) for c in verdict.causes],
                    "hosts": [[_relative(h.host, roots), h.status, _relative(h.reason, roots)] for h in verdict.hosts]},
    }
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def check(case: str, text: str) -> None:
    """Compare ``text`` with the snapshot of ``case`` (or write it with NICADVISOR_GOLDEN_UPDATE=1)."""
    path = SNAPSHOTS / f"{case}.json"
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.is_file(), f"no snapshot {path}: run with NICADVISOR_GOLDEN_UPDATE=1 once and commit it"
    expected = path.read_text(encoding="utf-8")
    if text != expected:
        import difflib

        diff = "".join(list(difflib.unified_diff(expected.splitlines(True), text.splitlines(True), str(path),
                                                 "now", n=2))[:80])
        pytest.fail(f"{case}: what is read or decided changed (NICADVISOR_GOLDEN_UPDATE=1 if intended):\n{diff}")


def audit_paths(*paths: Path) -> Audit:
    from nicadvisor.services.audit import AuditRequest, run_audit

    return run_audit(AuditRequest(capture_paths=tuple(str(p) for p in paths)))


def _stem(path: Path) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", path.name)


# --- the cases ---------------------------------------------------------------------------------------------------

def test_demo_lab():
    from nicadvisor.services.audit import AuditRequest, run_audit

    check("demo-lab", dump(run_audit(AuditRequest(demo=True))))


@pytest.mark.parametrize("path", sorted(CAPTURES.glob("*.txt")), ids=lambda p: p.name)
def test_shared_capture(path):
    check(f"captures/{_stem(path)}", dump(audit_paths(path)))


@pytest.mark.parametrize("path", sorted(TEST_CAPTURES.glob("*.txt")), ids=lambda p: p.name)
def test_test_capture(path):
    check(f"test-captures/{_stem(path)}", dump(audit_paths(path)))


@pytest.mark.parametrize("path", sorted(VM_SUPPORT.glob("*.txt")), ids=lambda p: p.name)
def test_vm_support_fixture(path):
    check(f"vm-support/{_stem(path)}", dump(audit_paths(path)))


def test_vm_support_bundle(tmp_path):
    from nicadvisor.collect.bundle import command_for

    bundle = tmp_path / "esx-golden01-2013-08-12--14.06"
    used = []
    for fixture in sorted(VM_SUPPORT.glob("*.txt")):
        header = next((ln for ln in fixture.read_text().splitlines() if ln.startswith("# command:")), "")
        m = re.search(r"bundle file (commands/\S+)", header)
        if not m or command_for(m.group(1)) is None:
            continue
        body = "".join(ln for ln in fixture.read_text().splitlines(keepends=True) if not ln.startswith("# "))
        target = bundle / m.group(1)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body)
        used.append(m.group(1))
    assert len(used) >= 3, used  # vmware -vl, esxcfg-vswitch -l, nicinfo.sh at least
    check("vm-support-bundle", dump(audit_paths(bundle), tmp_path))


#: The saved NSX responses (``*.source.txt`` says where each comes from); a request body (``REQUEST_PUT_…``) and a
#: Policy API answer (``GET_policy_…``) are not what the NSX collector reads, so they are not audited.
NSX_RESPONSES = sorted(p for p in NSX_API.iterdir() if not p.name.endswith(".source.txt"))


@pytest.mark.parametrize("path", [p for p in NSX_RESPONSES if nsx_api_path(p)], ids=lambda p: p.name)
def test_nsx_response_replayed(path, tmp_path):
    api_path = nsx_api_path(path)
    capture = tmp_path / "nsx-host" / (path.name + ".txt")
    capture.parent.mkdir()
    capture.write_text(f"# command: NSX API GET {api_path}\n" + path.read_text())
    check(f"nsx/{_stem(path)}", dump(audit_paths(capture.parent), tmp_path))


@pytest.mark.parametrize("path", [p for p in NSX_RESPONSES if nsx_api_path(p) == "/api/v1/transport-nodes"],
                         ids=lambda p: p.name)
def test_nsx_inventory(path):
    from nicadvisor.parsers.assemble import HostInputs, assemble_host
    from nicadvisor.parsers.capture_file import Capture
    from nicadvisor.parsers.api.nsx import build_inventory, host_results
    from nicadvisor.services.audit import evaluate_findings

    def responses(part: str) -> list[str]:
        return [p.read_text() for p in NSX_RESPONSES if nsx_api_path(p) and part in p.name]

    inv = build_inventory("nsx.golden", transport_nodes=path.read_text(),
                          uplink_profiles=responses("host-switch-profiles"),
                          transport_zones=responses("transport-zones"),
                          switching_config=(responses("global-configs") or [None])[0],
                          version=(responses("node_version") or [None])[0])
    audit = Audit(inputs=["nsx://nsx.golden"])
    for note in inv.notes:
        from nicadvisor.model import InputProblem

        audit.inputs_not_understood.append(InputProblem("nsx://nsx.golden", f"partly understood: {note}"))
    for hf in host_results(inv):
        group = HostInputs(name=hf.name, kind=hf.kind or "esxi")
        for rf in hf.responses:
            group.parsed.append((Capture(source=f"nsx://nsx.golden{rf.path}", command=rf.command, text=rf.text,
                                         host=hf.name), rf.result))
        host, problems, _ = assemble_host(group)
        audit.hosts.append(host)
        audit.inputs_not_understood.extend(problems)
    audit.findings = evaluate_findings(audit.hosts)
    check(f"nsx-inventory/{_stem(path)}", dump(audit))


def test_vsphere_govc_dumps():
    from godump import read_structs

    from nicadvisor.parsers.api import vsphere_objects as vf
    from nicadvisor.parsers.assemble import HostInputs, assemble_host
    from nicadvisor.parsers.capture_file import Capture
    from nicadvisor.collect.sources import read_capture
    from nicadvisor.services.audit import evaluate_findings

    (pnics,) = read_structs(read_capture(CAPTURES / "esxi_api_govc_dump_physicalnic_nvmxnet3_esxi802.txt").text)
    pci = read_structs(read_capture(CAPTURES / "esxi_api_govc_dump_pcidevice_vmxnet3.txt").text)
    props = {"name": "esx-govc", "summary.config.product.version": "8.0.2",
             "config.network.pnic": pnics, "hardware.pciDevice": pci}
    text = vf.inventory_recording("HostSystem:host-21", props)
    cap = Capture(source="vcenter://vc.golden/HostSystem:host-21", command="vSphere API: PropertyCollector",
                  text=text, host="esx-govc")
    host, problems, _ = assemble_host(HostInputs(name="esx-govc", kind="esxi",
                                                 parsed=[(cap, vf.facts_from_recording(text))]))
    audit = Audit(inputs=["vcenter://vc.golden"], hosts=[host], inputs_not_understood=problems)
    audit.findings = evaluate_findings(audit.hosts)
    check("vsphere/govc-dumps", dump(audit))
