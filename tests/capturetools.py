"""Test helpers: paths to the real captures in ../shared/fixtures and helpers to parse them."""
from __future__ import annotations

import os
from pathlib import Path


REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("NICADVISOR_SHARED", REPO.parent / "shared"))
CAPTURES = SHARED / "fixtures" / "captures"
FIXTURES = SHARED / "fixtures"


def capture_path(name: str) -> Path:
    """A real capture of shared/fixtures/captures, else of tests/parsers/captures."""
    p = CAPTURES / name
    if not p.exists() and (TEST_CAPTURES / name).exists():
        return TEST_CAPTURES / name
    if not p.exists():
        raise FileNotFoundError(f"real capture {p} is missing: is ../shared beside the repository?")
    return p


#: A real capture that alone makes a READY host: a whole, unfiltered pNIC listing (link state and MTU of every uplink)
#: of a nested ESXi host, some of whose pNICs have a Geneve-sized MTU (the others only get conditional warnings).
#: A whole pNIC listing (nested ESXi, six nvmxnet3 uplinks, mixed MTU): rated on its own, but NOT RATED — its
#: decisive checks beyond link and MTU were not made (issue 16 §1: one command never makes READY). With
#: :func:`completed` it is READY.
READY_CAPTURE = "esxi_esxcfg-nics-l_nvmxnet3_nested_mixed_mtu.txt"


def ready_host(folder: Path, name: str = "esx-nested") -> Path:
    """A host folder ``folder/name`` holding :data:`READY_CAPTURE` (a whole listing; READY once :func:`completed`);
    returns it."""
    import shutil

    host = folder / name
    host.mkdir(parents=True, exist_ok=True)
    shutil.copy(capture_path(READY_CAPTURE), host / READY_CAPTURE)
    return host


def parse_capture(name: str):
    """Parse a real capture through the registry: returns list[ParseResult]."""
    from nicadvisor.collect.sources import read_capture
    from nicadvisor.parsers.registry import parse_output

    cap = read_capture(capture_path(name))
    return parse_output(cap.command, cap.text)


def merged(results):
    """Merge the ParseResults of one capture into dicts of plain values: (pnics, vmknics, switches, modules, host)."""
    out = ({}, {}, {}, {}, {})
    for r in results:
        for i, table in enumerate((r.pnics, r.vmknics, r.switches, r.modules)):
            for key, facts in table.items():
                d = out[i].setdefault(key, {})
                for k, f in facts.items():
                    d.setdefault(k, f.value)
        for k, f in r.host.items():
            out[4].setdefault(k, f.value)
    return out



def parsed_facts(command: str, text: str) -> dict:
    """Every fact the registry reads from ``text`` as ``command``, flat: ``{(kind, key, name): value}`` for pNICs,
    vmknics, switches and modules, ``{("host", name): value}`` for host facts (property tests compare these)."""
    from nicadvisor.parsers.registry import parse_output

    out = {}
    for r in parse_output(command, text):
        for kind, table in (("pnic", r.pnics), ("vmknic", r.vmknics), ("switch", r.switches), ("module", r.modules)):
            for key, facts in table.items():
                for name, fact in facts.items():
                    out[(kind, key, name)] = fact.value
        for name, fact in r.host.items():
            out[("host", name)] = fact.value
    return out


#: The facts that decide every decisive check of an ESXi pNIC (nicadvisor.model.readiness), as model values: an Intel
#: X710 (8086:1572, pci.ids v2023.04.10) on i40en_ens 1.1.3, the driver resources/vcg/nic_facts.csv line 2 names
#: for it on ESXi 6.7 (NSX-T 3.0 Installation Guide, "Enhanced Data Path"), at 10 Gbit/s on a PCIe Gen3 x8 link.
FULLY_READ_PNIC = dict(link_up=True, link_speed_mbps=10000, driver="i40en_ens", driver_version="1.1.3", vid="8086",
                       did="1572", is_physical=True, geneve_offload=True, geneve_rx_filter=True, rss=True,
                       pcie_speed_gts=8.0, pcie_width=8, pcie_speed_capable_gts=8.0, pcie_width_capable=8)
#: ESXi 6.7 GA: build 8169922 (resources/vcg/esxi_builds.csv), as ``vmware -vl`` prints it.
FULLY_READ_RELEASE = dict(kind="esxi", product_version="6.7.0", build="8169922", product_update="GA")


def fully_read(host, *pnics: str):
    """Set on ``host`` (and its ``pnics``) the model values that decide every decisive check
    (:data:`FULLY_READ_PNIC`, :data:`FULLY_READ_RELEASE`), each with evidence naming it a test value (replacing a
    value already there). Returns ``host``. For logic tests of the verdict."""
    from nicadvisor.model import Evidence

    def put(obj, k, v, line):
        setattr(obj, k, v)
        obj.evidence[k] = Evidence("test value", line, "tests/capturetools.py")

    for k, v in FULLY_READ_RELEASE.items():
        put(host, k, v, f"{k} = {v}")
    for name in pnics:
        for k, v in FULLY_READ_PNIC.items():
            put(host.pnic(name), k, v, f"{name} {k} = {v}")
    return host


def completed(audit):
    """``audit`` with every overlay candidate of every host :func:`fully_read` and the findings judged again: its
    hosts READY unless something else (an unread input, an error) keeps them from it. Returns ``audit``."""
    from nicadvisor.services.audit import evaluate_findings

    for host in audit.hosts:
        fully_read(host, *[p.name for p in host.overlay_candidates()])
    audit.findings = evaluate_findings(audit.hosts)
    return audit


TEST_CAPTURES = REPO / "tests" / "parsers" / "captures"
VM_SUPPORT = FIXTURES / "vm-support"
NSX_API = FIXTURES / "nsx-api"


def nsx_fixture_text(name: str) -> str:
    """The text of the NSX Manager response ``name`` of shared/fixtures/nsx-api. Raises FileNotFoundError naming
    it when shared/ is not beside the repository."""
    p = NSX_API / name
    if not p.exists():
        raise FileNotFoundError(f"NSX API fixture {p} is missing: is ../shared beside the repository?")
    return p.read_text(encoding="utf-8")


def nsx_api_path(fixture: Path) -> str | None:
    """The API path a saved NSX Manager response answered, from its file name in ``shared/fixtures/nsx-api``
    (``GET_api_v1_transport-nodes_id_state_…`` → ``/api/v1/transport-nodes/tn-1/state``); None for a request body
    (``REQUEST_PUT_…``), a Policy API answer (``GET_policy_…``) or a ``*.source.txt`` note: not what the NSX collector
    reads."""
    name = fixture.name
    if not name.startswith("GET_api_v1_") or name.endswith(".source.txt"):
        return None
    rest = name[len("GET_api_v1_"):]
    for prefix, path in (("transport-nodes_id_state_", "/api/v1/transport-nodes/tn-1/state"),
                         ("transport-nodes_id_status_", "/api/v1/transport-nodes/tn-1/status"),
                         ("transport-nodes_id_", "/api/v1/transport-nodes"),
                         ("transport-nodes_list_", "/api/v1/transport-nodes"),
                         ("host-switch-profiles_", "/api/v1/host-switch-profiles"),
                         ("global-configs_", "/api/v1/global-configs"),
                         ("transport-zones_", "/api/v1/transport-zones"),
                         ("node_version_", "/api/v1/node/version")):
        if rest.startswith(prefix):
            return path
    return None


def real_outputs():
    """Every real recorded output the project holds, as ``(name, command, text, notes)``: the captures of
    shared/fixtures/captures and tests/parsers/captures, the vm-support excerpts (their ``# command:`` names the
    bundle file), and the NSX Manager responses of shared/fixtures/nsx-api as the ``NSX API GET <path>`` captures a
    saved live NSX audit holds."""
    from nicadvisor.collect.sources import read_capture

    for path in sorted(CAPTURES.glob("*.txt")) + sorted(TEST_CAPTURES.glob("*.txt")) + sorted(VM_SUPPORT.glob("*.txt")):
        cap = read_capture(path)
        yield path.name, cap.command, cap.text, cap.notes
    for path in sorted(NSX_API.iterdir()):
        api_path = nsx_api_path(path)
        if api_path is not None:
            yield path.name, f"NSX API GET {api_path}", path.read_text(encoding="utf-8"), ()


def only(results, family):
    """The single ParseResult of ``family`` among ``results``."""
    found = [r for r in results if r.family == family]
    assert len(found) == 1, [r.family for r in results]
    return found[0]


def records(results, kind):
    """The records of kind ``kind`` of every ParseResult in ``results``."""
    return [rec for r in results for rec in r.records if rec.get("kind") == kind]


def local_capture(name: str):
    """A real public capture of tests/parsers/captures, read with its header (:func:`read_capture`)."""
    from nicadvisor.collect.sources import read_capture

    return read_capture(TEST_CAPTURES / name)


def read_local_capture(name: str, command: str | None = None):
    """The merged facts ``(pnics, vmknics, switches, modules, host)`` of a capture of tests/parsers/captures (each
    with its ``# source:`` and the caveats of the copy in its ``# note:`` lines), read as its header's command or as
    ``command``: where the header describes the command in words (a log excerpt, "(not shown)"), the test names the
    command it describes; the output itself is never changed."""
    from nicadvisor.parsers.registry import parse_output

    c = local_capture(name)
    return merged(parse_output(command or c.command, c.text, c.notes))


def undecided_but_answered(host, captures) -> list[tuple[str, str, str]]:
    """(pNIC, matrix column, command) of every unknown capability cell of ``host`` that a command of ``captures``
    decides: the command that reads the column ("Finish this audit"'s command for it) answered, and its output,
    read again, holds one of the column's facts of that pNIC. Empty when every cell those commands can decide was
    decided (issue 16 §2: a host audited from a collector's output)."""
    from nicadvisor.model.capabilities import CAPABILITIES, UNKNOWN, capability_matrix
    from nicadvisor.model.readiness import commands_for
    from nicadvisor.parsers.capture_file import not_run_of
    from nicadvisor.parsers.registry import parse_output

    # a column confirmed only by a compatibility listing (the driver) is never decided by a command's output alone
    facts_of = {c.key: c.facts for c in CAPABILITIES if not c.confirmed_by}
    answered = {c.command: c for c in captures if not_run_of(c) is None}
    out = []
    for row in capability_matrix(host, []):
        pnic = host.pnic(row.pnic)
        for column, cell in row.cells.items():
            if cell.status != UNKNOWN or column not in facts_of:
                continue
            for command in commands_for(column, host, pnic):
                cap = answered.get(command)
                if cap is None:
                    continue
                read = {name for r in parse_output(cap.command, cap.text, cap.notes)
                        for key, facts in r.pnics.items() if key == pnic.name for name in facts}
                if read & set(facts_of[column]):
                    out.append((pnic.name, column, command))
    return out
