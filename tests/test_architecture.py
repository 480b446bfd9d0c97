"""Issue 18, the judgement's part of the house: each knot is gone and stays gone.

* each host's ESXi release and compatibility context is derived once per judgement (not again by the database
  findings, the guide findings, the catalogue and every rule context);
* storage does not depend on an export format: one codec for the audit document (nicadvisor.document);
* one SQLite migration runner, one atomic writer;
* no import circle model/entities -> verdict -> capabilities -> entities;
* test files are named for what they test, not for a review round;
* issue 28 §2: no import circle between any modules; one audit's judgement consults each knowledge source once per
  pNIC and runs the rules once; the facts it adds are stored with the hosts.
The import-linter contracts in pyproject.toml say the import rules too; these tests run them in pytest."""
from __future__ import annotations

import re
from pathlib import Path

import grimp
import pytest

from capturetools import CAPTURES

import nicadvisor.vcg.builds as builds
from nicadvisor.services.audit import AuditRequest, evaluate_findings, run_audit

APP = Path(__file__).resolve().parents[1] / "app" / "nicadvisor"
TESTS = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph("nicadvisor", exclude_type_checking_imports=True)


def test_the_release_of_each_host_is_derived_once_per_judgement(monkeypatch):
    audit = run_audit(AuditRequest(demo=True))
    for h in audit.hosts:  # give every ESXi host a release, so that every path that wants it asks for it
        if h.kind == "esxi":
            h.product_version, h.build, h.product_update = "7.0.3", "22348816", "Update 3"
    calls = []
    real = builds.guide_release
    monkeypatch.setattr(builds, "guide_release", lambda *a, **k: calls.append(a) or real(*a, **k))
    findings = evaluate_findings(audit.hosts)
    esxi = [h for h in audit.hosts if h.kind == "esxi"]
    assert len(calls) == len(esxi) == 8
    assert sum(1 for f in findings if f.rule_id == "esxi-release") == 8


def test_storage_does_not_import_an_export_format(graph):
    for store in ("nicadvisor.store.history", "nicadvisor.store.migrations", "nicadvisor.document"):
        assert not graph.chain_exists(importer=store, imported="nicadvisor.report.json_export", as_packages=False)
    assert graph.direct_import_exists(importer="nicadvisor.report.json_export", imported="nicadvisor.document")
    assert graph.direct_import_exists(importer="nicadvisor.store.history", imported="nicadvisor.document")


def test_the_model_imports_one_way(graph):
    assert not graph.chain_exists(importer="nicadvisor.model.entities", imported="nicadvisor.model.verdict")
    assert not graph.chain_exists(importer="nicadvisor.model.capabilities", imported="nicadvisor.model.verdict")
    assert graph.chain_exists(importer="nicadvisor.model.audit", imported="nicadvisor.model.verdict")


def test_one_migration_runner_and_one_atomic_writer(graph):
    for db in ("nicadvisor.store.migrations", "nicadvisor.vcg.db"):
        assert graph.direct_import_exists(importer=db, imported="nicadvisor.sqlite_migrations")
    for path in (APP / "store" / "migrations.py", APP / "vcg" / "db.py"):
        text = path.read_text(encoding="utf-8")
        assert "PRAGMA user_version = " not in text and "backup_file" not in text, path  # the runner's work
    # a file is put in place atomically by nicadvisor.atomic_file alone (the undo journal keeps its rows in SQLite)
    replacers = sorted(str(p.relative_to(APP)) for p in APP.rglob("*.py") if "os.replace(" in p.read_text("utf-8"))
    assert replacers == ["atomic_file.py"]


def test_test_files_are_named_for_what_they_test():
    named_after_a_review = [p.name for p in TESTS.rglob("test_*.py")
                            if re.search(r"review", p.stem) and p.parent.name in ("vcg", "verdict", "store")]
    assert named_after_a_review == []


# --- issue 28 §2: a house with no circles, and a judgement made in one pass --------------------------------------

def import_cycles(graph) -> list[list[str]]:
    """Each import circle of ``graph`` (module level; TYPE_CHECKING imports excluded by the fixture), as one of its
    shortest cycles ``[a, b, …, a]``: one per strongly connected component (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    cycles = []
    for component in components:
        members = set(component)
        first = component[0]
        shortest = min((graph.find_shortest_chain(importer=w, imported=first) or ()
                        for w in graph.find_modules_directly_imported_by(first) if w in members), key=len)
        cycles.append([first, *shortest])
    return cycles


def test_the_cycle_finder_names_a_circle():
    graph = grimp.ImportGraph()
    for module in ("pkg", "pkg.a", "pkg.b", "pkg.c"):
        graph.add_module(module)
    graph.add_import(importer="pkg.a", imported="pkg.b")
    graph.add_import(importer="pkg.b", imported="pkg.c")
    graph.add_import(importer="pkg.c", imported="pkg.a")
    graph.add_import(importer="pkg", imported="pkg.a")
    assert import_cycles(graph) == [["pkg.a", "pkg.b", "pkg.c", "pkg.a"]]


def test_no_module_imports_itself_through_others(graph):
    """No import circle between modules (a package's ``__init__`` counts as a module): each would make the layers
    meaningless and an import order matter. The import-linter contracts (pyproject.toml) say which way layers go."""
    cycles = import_cycles(graph)
    assert cycles == [], "import circles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_the_readers_import_one_way(graph):
    """The registry runs the readers; the readers only register in the table below them (before, linux/ readers
    imported the registry, which imported linux/pseudo; esxi/networkhint read with api/network_hints while api/
    imported esxi/ readers)."""
    for readers in ("nicadvisor.parsers.linux", "nicadvisor.parsers.esxi", "nicadvisor.parsers.api"):
        assert not graph.chain_exists(importer=readers, imported="nicadvisor.parsers.registry", as_packages=True)
        assert graph.chain_exists(importer=readers, imported="nicadvisor.parsers.registration", as_packages=True)
    assert not graph.chain_exists(importer="nicadvisor.parsers.esxi", imported="nicadvisor.parsers.api",
                                  as_packages=True)
    assert graph.direct_import_exists(importer="nicadvisor.parsers.registry", imported="nicadvisor.parsers.linux",
                                      as_packages=True)


def test_no_circle_even_through_imports_for_type_checking():
    """Imports made only for type checking (``if TYPE_CHECKING:``) make no circle either (before: bench.expected named
    bench.stack_cost's StackCost, which reaches expected through netperf and results; bench.remote_esxi named
    bench.remote's classes while remote imports it). Each now names a small Protocol of what it uses."""
    cycles = import_cycles(grimp.build_graph("nicadvisor", exclude_type_checking_imports=False))
    assert cycles == [], "import circles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_knowledge_and_rules_import_one_way(graph):
    """vcg (the compatibility knowledge) is below the rules engine; the judgement that joins them is above both."""
    assert not graph.chain_exists(importer="nicadvisor.vcg", imported="nicadvisor.rules_engine", as_packages=True)
    assert not graph.chain_exists(importer="nicadvisor.rules_engine", imported="nicadvisor.judgement")
    assert graph.direct_import_exists(importer="nicadvisor.judgement", imported="nicadvisor.rules_engine")


def _count(monkeypatch, counts: dict, key, where: list[tuple[object, str]]) -> None:
    """Wrap the real function named in each (module or class, name) of ``where`` so that each call adds 1 to
    ``counts[key(*args)]``; the function still runs."""
    for owner, name in where:
        real = getattr(owner, name)

        def counted(*args, _real=real, **kwargs):
            k = key(*args)
            counts[k] = counts.get(k, 0) + 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(owner, name, counted)


def test_one_audit_consults_each_knowledge_source_once_per_pnic(monkeypatch, tmp_path):
    """One audit of the demo lab (ten hosts of real captures) and an E810 Linux host (a real dmesg capture) with an
    imported compatibility guide and an attestation: the driver catalogue, the compatibility database, the imported guide and the card-model table are
    each consulted once per physical pNIC, the attestations once, and the rules engine runs once (before, the driver
    catalogue was looked up again by every rule evaluation of the catalogue's check, each a whole host)."""
    import nicadvisor.judgement as judgement
    import nicadvisor.services.audit as audit_service
    import nicadvisor.vcg.card_models as card_models
    import nicadvisor.vcg.context as context
    import nicadvisor.vcg.knowledge as knowledge
    from nicadvisor.model.attestations import Attestation
    from nicadvisor.vcg.guide_store import GuideDataset, apply_import, guide_dir, plan_import
    from nicadvisor.vcg.lookup import VcgDatabase

    for var in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.setenv(var, str(tmp_path / var.lower()))
    apply_import(plan_import([TESTS / "vcg" / "guide_files" / "exchange_x710_ens_nsxt30.csv"], guide_dir()),
                 guide_dir())
    catalogue: dict = {}
    database: dict = {}
    guide: dict = {}
    cards: dict = {}
    attested: dict = {}
    rules: dict = {}
    _count(monkeypatch, catalogue, lambda host, pnic, *a: (host.name, pnic.name), [(knowledge, "catalogue_facts")])
    _count(monkeypatch, database, lambda _db, vid, did, *a: (vid, did), [(VcgDatabase, "match")])
    _count(monkeypatch, guide, lambda _g, vid, did: (vid, did), [(GuideDataset, "for_device")])
    _count(monkeypatch, cards, lambda vid, did: (vid, did), [(card_models, "card_of"), (context, "card_of")])
    _count(monkeypatch, attested, lambda hosts, _a: "audit",
           [(__import__("nicadvisor.model.attestations", fromlist=["x"]), "apply_attestations")])
    _count(monkeypatch, rules, lambda *a: "audit", [(judgement, "evaluate_admitting")])
    attestation = Attestation(check="geneve_offload", host="esxi-mfd-x550-e810", pnic="vmnic2",
                              value={"geneve_offload": True}, who="alice", when="2026-11-30", how="vendor support case")
    e810 = CAPTURES / "linux_dmesg_ice_e810_pcie_bandwidth_16gts_x16_ddp.txt"  # a host the catalogue adds facts to
    audit = audit_service.run_audit(audit_service.AuditRequest(demo=True, capture_paths=(str(e810),),
                                                               attestations=(attestation,)))

    physical = [(h, p) for h in audit.hosts for p in h.pnics if p.is_physical is not False]
    assert len(physical) > 20
    assert catalogue == {(h.name, p.name): 1 for h, p in physical}
    with_ids = [(h, p) for h, p in physical if p.vid and p.did]
    assert sum(database.values()) == len(with_ids)
    assert sum(guide.values()) == sum(1 for h, _p in with_ids if h.kind == "esxi") > 0
    assert sum(cards.values()) == sum(1 for _h, p in physical if not p.is_virtual_uplink)
    assert attested == {"audit": 1} and rules == {"audit": 1}
    # the facts the knowledge sources added are there, each with its source
    origins = {ev.command for _h, p in physical for ev in p.evidence.values()}
    assert "from the driver catalogue" in origins and any(o.startswith("attested by alice") for o in origins)


def test_the_facts_the_judgement_adds_are_in_the_history(tmp_path):
    """The knowledge sources add their facts during the judgement, after each host was first stored: the history is
    updated with them, so a reopened audit shows the same cells, each with its source, and the same findings."""
    from nicadvisor.services.audit import reopen_audit
    from nicadvisor.store import AuditStore

    e810 = CAPTURES / "linux_dmesg_ice_e810_pcie_bandwidth_16gts_x16_ddp.txt"
    with AuditStore(tmp_path / "history.sqlite") as store:
        audit = run_audit(AuditRequest(capture_paths=(str(e810),)), store=store)
        again = reopen_audit(store, audit.history_id)
    added = {(h.name, p.name, k) for h in audit.hosts for p in h.pnics for k, ev in p.evidence.items()
             if ev.command == "from the driver catalogue"}
    assert added
    assert {(h.name, p.name, k) for h in again.hosts for p in h.pnics for k, ev in p.evidence.items()
            if ev.command == "from the driver catalogue"} == added
    assert [(f.rule_id, f.obj) for f in again.findings] == [(f.rule_id, f.obj) for f in audit.findings]
