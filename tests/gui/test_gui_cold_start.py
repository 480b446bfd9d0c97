"""The wizard's GUI thread does only the work a view needs (issue 27, Responsiveness), checked without timing anything:

* a cold start of the real entry point paints the first page before any heavy module is imported (the charting
  library, the PDF writer, the SSH/vSphere/HTTP clients, the audit stack) and before the start-up tasks run: those
  load on a worker after the paint, so a module-level import that brings one back fails here, whatever the
  machine's speed;
* the task runner holds the tasks started before the first paint and starts them, in order, when released;
* after an audit, no view computes the audit's verdict or capability matrix on the GUI thread (each took 25 ms a
  host: the 60–300 ms stalls of ``benchmarks/gui_stalls.py``); the worker that made the audit does.

The timings themselves are in ``benchmarks/cold_start.py`` and ``benchmarks/gui_stalls.py``.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

from guitools import run_audit

from nicadvisor.gui.wizard import PageId

REPO = Path(__file__).resolve().parents[2]
#: Not needed to paint the Connect page; each costs 0.1–1 s of a cold start.
HEAVY = ("pyqtgraph", "numpy", "reportlab", "pypdf", "pyVmomi", "paramiko", "requests", "redfish",
         "nicadvisor.report.pdf", "nicadvisor.services.audit", "nicadvisor.rules_engine", "nicadvisor.collect.ssh",
         "nicadvisor.collect.vsphere", "nicadvisor.services.between", "nicadvisor.gui.widgets.bench_chart",
         # what the start-up tasks load (the keyring check, the history opened, the guide's status): held until the
         # first paint, as they took the interpreter lock and a CPU from it
         "keyring", "nicadvisor.services.history", "nicadvisor.vcg.guide_store")

#: Runs ``nic-advisor-gui``'s main() in a fresh interpreter; at the wizard's "first page painted" mark it prints the
#: heavy modules loaded by then (and the marks seen) as JSON and leaves.
_LAUNCH = r"""
import json, os, sys
HEAVY = json.loads(sys.argv[1])
from nicadvisor.gui import startup
seen = []
real_mark = startup.mark
def mark(stage):
    real_mark(stage)
    seen.append(stage)
    if stage == "wizard":
        print(json.dumps({"marks": seen, "loaded": sorted(m for m in HEAVY if m in sys.modules)}), flush=True)
        os._exit(0)
startup.mark = mark
from nicadvisor.gui.app import main
main([])
"""


def test_the_first_page_is_painted_before_any_heavy_module_is_imported(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", NICADVISOR_STARTUP_MARKS="1",
               XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"),
               PYTHONPATH=os.pathsep.join(p for p in (str(REPO / "app"), os.environ.get("PYTHONPATH", "")) if p))
    out = subprocess.run([sys.executable, "-c", _LAUNCH, json.dumps(HEAVY)], capture_output=True, text=True,
                         timeout=300, env=env, cwd=tmp_path)  # a deadline, not a duration
    assert out.returncode == 0, out.stderr[-2000:]
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["marks"] == ["splash", "wizard"]  # the starting window first, then the wizard's page
    assert seen["loaded"] == []
    # the marks are the ones benchmarks/cold_start.py reads: "nicadvisor-startup STAGE EPOCH CPU"
    lines = [line.split() for line in out.stderr.splitlines() if line.startswith("nicadvisor-startup ")]
    assert [w[1] for w in lines] == ["splash", "wizard"] and all(len(w) == 4 for w in lines)
    assert float(lines[0][2]) <= float(lines[1][2])


def test_no_view_computes_the_verdict_or_the_matrix_on_the_gui_thread(make_wizard, qtbot, monkeypatch):
    import nicadvisor.gui.audit_cache as audit_cache
    import nicadvisor.model.audit as model_audit

    gui = threading.current_thread()
    calls: list[tuple[str, threading.Thread]] = []

    def spy(name, real):
        def call(*args, **kwargs):
            calls.append((name, threading.current_thread()))
            return real(*args, **kwargs)
        return call

    # spies that call through: the real verdict and matrix are computed, and each call's thread is noted
    monkeypatch.setattr(model_audit, "verdict_of", spy("verdict", model_audit.verdict_of))
    monkeypatch.setattr(audit_cache, "capability_matrix", spy("matrix", audit_cache.capability_matrix))
    wizard = make_wizard(store=None)
    audit = run_audit(wizard, qtbot)
    for page in (PageId.INSPECT, PageId.BENCHMARK, PageId.FINDINGS, PageId.EXPORT):
        wizard.next()
        qtbot.waitUntil(lambda p=page: wizard.currentId() == p)
    during = list(calls)  # what the audit and the four pages computed, before this test's own checks compute more
    inspect, findings = wizard.pages[PageId.INSPECT], wizard.pages[PageId.FINDINGS]
    # the views show the audit's own verdict and every host's matrix rows
    assert findings.banner.verdict == audit.verdict and wizard.pages[PageId.EXPORT].banner.verdict == audit.verdict
    assert len(inspect.model.rows) == sum(len(audit_cache.capability_matrix(h, audit.findings)) for h in audit.hosts)
    assert {name for name, thread in during if thread is not gui} >= {"verdict", "matrix"}  # made on the worker
    assert [name for name, thread in during if thread is gui] == []


def test_a_changed_audit_gets_a_fresh_verdict():
    from nicadvisor.model.audit import Audit
    from nicadvisor.model.entities import Finding, Severity

    from nicadvisor.gui import audit_cache

    audit = Audit()
    first = audit_cache.verdict(audit)
    assert audit_cache.verdict(audit) is first  # kept while unchanged
    audit.findings.append(Finding(rule_id="x", title="t", severity=Severity.ERROR, host="h", message="m",
                                  recommendation="r"))
    assert audit_cache.verdict(audit) == audit.verdict and audit_cache.verdict(audit) is not first
    other = Audit()
    assert audit_cache.verdict(other) == other.verdict


def test_held_tasks_start_in_order_once_released(qtbot):
    from nicadvisor.gui.tasks import TaskRunner

    runner = TaskRunner()
    runner.hold()
    ran: list[str] = []
    handles = [runner.prepare(name, lambda _p, _c, n=name: ran.append(n) or n) for name in ("first", "second")]
    for handle in handles:
        runner.start(handle)
    assert runner.running() == handles  # waiting, counted as work not done
    qtbot.wait(100)  # an event loop turn or more: nothing starts while held
    assert ran == []
    with qtbot.waitSignals([h.sig_finished for h in handles], timeout=10_000):
        runner.release()
    assert sorted(ran) == ["first", "second"] and runner.shutdown(10_000)
