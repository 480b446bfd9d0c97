"""Issue 18, the judgement's part of the house: each knot is gone and stays gone.

* each host's ESXi release and compatibility context is derived once per judgement (not again by the database
  findings, the guide findings, the catalogue and every rule context);
* storage does not depend on an export format: one codec for the audit document (nicadvisor.document);
* one SQLite migration runner, one atomic writer;
* no import circle model/entities -> verdict -> capabilities -> entities;
* test files are named for what they test, not for a review round.
The import-linter contracts in pyproject.toml say the import rules too; these tests run them in pytest."""
from __future__ import annotations

import re
from pathlib import Path

import grimp
import pytest

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
