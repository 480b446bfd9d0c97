#!/usr/bin/env python3
"""How long the wizard's GUI thread stops answering: the longest gap between two ticks of a 10 ms QTimer while the
wizard audits (demo lab, capture folder, vcsim, real sshd), changes pages and exports; and how long a cold start
takes to paint its first window.

A GUI thread that blocks for more than ~50 ms is felt as a frozen window (the goal of issue 19 §2: < 50 ms on the
demo, vcsim and SSH audits and on Export; a first window within 1 s of start). A 10 ms ``Qt.PreciseTimer`` ticks
in the GUI thread; every gap between two ticks beyond its interval is time the event loop could not run (work
on the GUI thread, or a worker holding the interpreter lock). Per scenario it prints the longest gap, the 99th
percentile, how many gaps exceeded 50 ms, and the most CPU time the GUI thread itself used within one gap
(``time.thread_time``: its own work, which a loaded machine does not inflate as it does the wall clock). Start-up is
measured in fresh processes: the time from process start (before Python imports anything of ours) to the first paint
event of a top-level window, median and max of ``--starts`` runs. Numbers are printed, never asserted
(``benchmarks/README.md``).

Scenarios (each skipped with its reason when its tool is missing): ``demo`` (the demo lab audit), ``capture`` (the 87
real captures of ``shared/fixtures/captures``, else the repository's ``tests/parsers/captures``), ``pages`` (Next from
Discover to Export: building the matrix, the findings tree), ``export`` (PDF, JSON, CSV and HTML of the demo audit),
``vcsim`` (govmomi vcsim, 1 cluster of 4 hosts, certificate pinned), ``ssh`` (a real sshd on loopback whose
ForceCommand answers with real ESXi captures; root), ``start`` (first paint of a cold start).

    python benchmarks/gui_stalls.py                 # every scenario
    python benchmarks/gui_stalls.py --smoke         # demo, pages, export, start (1 run)
    python benchmarks/gui_stalls.py demo export     # some of them
    python benchmarks/gui_stalls.py --before main demo capture ssh pages start   # before/after table against main
    python benchmarks/gui_stalls.py demo --json rows.json                         # the rows as JSON too
"""
from __future__ import annotations

import argparse
import faulthandler
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "ssh"))
sys.path.insert(0, str(REPO / "tests" / "live"))
sys.path.insert(0, str(REPO / "tests"))

GOAL_MS = 50.0
START_GOAL_S = 1.0
TICK_MS = 10
SCENARIOS = ("demo", "capture", "pages", "export", "vcsim", "ssh", "start")


class StallProbe:
    """A 10 ms precise QTimer in the GUI thread recording the gaps between its ticks (ms)."""

    def __init__(self, why=None) -> None:
        from PySide6.QtCore import Qt, QTimer

        self.why = why  # a file: each gap over GOAL_MS dumps every thread's stack there (faulthandler, no GIL needed)

        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self._tick)
        self.gaps: list[float] = []
        self.cpu: list[float] = []  # the GUI thread's own CPU time (ms) in each gap: its work, whatever the load
        self._last = 0.0
        self._last_cpu = 0.0

    def _tick(self) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        self.gaps.append((now - self._last) * 1000)
        self.cpu.append((cpu - self._last_cpu) * 1000)
        self._last, self._last_cpu = now, cpu
        if self.why is not None:
            faulthandler.dump_traceback_later(GOAL_MS / 1000, file=self.why)

    def start(self) -> None:
        self.gaps, self.cpu = [], []
        self._last, self._last_cpu = time.perf_counter(), time.thread_time()
        self.timer.start()

    def stop(self) -> list[float]:
        """Stop; the gaps seen (the last one up to now included)."""
        self._tick()
        self.timer.stop()
        if self.why is not None:
            faulthandler.cancel_dump_traceback_later()
        return self.gaps


class Harness:
    """A wizard driven by the script, with the stall probe around each scenario."""

    def __init__(self, app, workdir: Path, why=None) -> None:
        self.app = app
        self.workdir = workdir
        self.probe = StallProbe(why)
        self.rows: list[dict] = []  # one per measured scenario (--json)

    def spin(self, cond, timeout_s: float = 120.0) -> None:
        from PySide6.QtCore import QEventLoop

        deadline = time.monotonic() + timeout_s
        while not cond():
            self.app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
            time.sleep(0.001)
            if time.monotonic() > deadline:
                raise TimeoutError("scenario did not finish in time")

    def settle(self, ms: int = 300) -> None:
        end = time.monotonic() + ms / 1000
        self.spin(lambda: time.monotonic() >= end)

    def wizard(self, **kwargs):
        from nicadvisor.gui.wizard import NicAdvisorWizard, PageId
        from nicadvisor.store import AuditStore

        kwargs.setdefault("store", AuditStore(self.workdir / f"history-{time.monotonic_ns()}.sqlite3"))
        w = NicAdvisorWizard(**kwargs)
        w.resize(1200, 800)
        w.show()
        connect = w.pages[PageId.CONNECT]
        self.spin(lambda: connect.keyring_problem != "checking the OS keyring…")
        self.settle(500)  # a user reads the page first: the start-up work on the workers has ended
        self.spin(lambda: not w.runner.running())
        return w

    def measure(self, name: str, action, done, timeout_s: float = 180.0) -> list[float]:
        """Start the probe, run ``action()``, spin until ``done()``, settle, report."""
        self.probe.start()
        started = time.perf_counter()
        action()
        self.spin(done, timeout_s)
        took = time.perf_counter() - started
        self.settle(300)
        gaps = self.probe.stop()
        self.report(name, gaps, took, self.probe.cpu)
        return gaps

    def report(self, name: str, gaps: list[float], took: float, cpu: list[float] | None = None) -> None:
        worst = max(gaps) if gaps else 0.0
        p99 = statistics.quantiles(gaps, n=100)[98] if len(gaps) >= 100 else worst
        over = sum(1 for g in gaps if g > GOAL_MS)
        worst_cpu = max(cpu) if cpu else 0.0
        line = (f"{name:<34} {took:>7.2f} s {worst:>9.1f} {p99:>8.1f} {over:>6} {worst_cpu:>8.1f}   "
                f"{worst / GOAL_MS:>5.2f}")
        print(line, flush=True)
        self.rows.append({"scenario": name, "took_s": round(took, 3), "max_ms": round(worst, 1),
                          "p99_ms": round(p99, 1), "over_50ms": over, "max_cpu_ms": round(worst_cpu, 1)})

    def close(self, wizard) -> None:
        wizard.state.exported = [Path("x")]  # nothing to ask about
        wizard.shutdown(30000)
        store = wizard.state.store
        wizard.close()
        wizard.deleteLater()
        if store is not None:
            store.close()
        self.settle(100)


def audit(h: Harness, name: str, **kwargs):
    """Next from Connect and wait for the audit to end; returns the wizard."""
    from nicadvisor.gui.wizard import PageId

    w = h.wizard(**kwargs)
    discover = w.pages[PageId.DISCOVER]
    h.measure(name, w.next, lambda: discover.outcome in ("done", "failed", "cancelled"))
    if discover.outcome != "done":
        print(f"    (the audit ended {discover.outcome}: {discover.progress.status.text()})")
    return w


def scenario_demo(h: Harness) -> None:
    h.close(audit(h, "demo lab audit"))


def scenario_capture(h: Harness) -> None:
    from capturetools import CAPTURES
    from nicadvisor.gui.state import Source

    from capturetools import TEST_CAPTURES

    folder = CAPTURES if CAPTURES.is_dir() else TEST_CAPTURES  # the shared real captures, else the repository's own
    if not folder.is_dir():
        print(f"capture audit: skipped, neither {CAPTURES} nor {TEST_CAPTURES} is there")
        return
    h.close(audit(h, f"capture audit ({len(list(folder.iterdir()))} files)", source=Source.CAPTURES,
                  capture_paths=(str(folder),)))


def scenario_pages(h: Harness) -> None:
    from nicadvisor.gui.wizard import PageId

    w = audit(h, "(demo lab audit, for the pages)")
    for page in (PageId.INSPECT, PageId.BENCHMARK, PageId.FINDINGS, PageId.EXPORT):
        h.measure(f"Next to {page.name.title()}", w.next, lambda p=page: w.currentId() == p)
    h.close(w)


def scenario_export(h: Harness) -> None:
    from nicadvisor.gui.wizard import PageId

    w = audit(h, "(demo lab audit, for the export)")
    while w.currentId() != PageId.EXPORT:
        w.next()
    export = w.pages[PageId.EXPORT]
    for fmt, check in export.checks.items():
        check.setChecked(True)
        export.edits[fmt].setText(str(h.workdir / "export" / f"report.{fmt}"))
    h.measure("Export (PDF, JSON, CSV, HTML)", export.start_export, lambda: export.outcome in ("done", "failed"))
    if export.outcome != "done":
        print(f"    (the export ended {export.outcome}: {export.hint.text()})")
    h.close(w)


def scenario_vcsim(h: Harness) -> None:
    import vcsimtools

    from nicadvisor.collect.tls_pinning import fetch_thumbprint
    from nicadvisor.gui.state import Source, VcenterSpec

    try:
        sim = vcsimtools.start_vcsim(h.workdir / "vcsim", "-cluster", "1", "-host", "4", "-standalone-host", "0",
                                     "-vm", "0")
    except (vcsimtools.ToolMissing, RuntimeError) as exc:
        print(f"vcsim audit: skipped, {exc}")
        return
    try:
        spec = VcenterSpec(url=f"https://127.0.0.1:{sim.port}", user=vcsimtools.USER, password=vcsimtools.PASSWORD,
                           thumbprint=fetch_thumbprint("127.0.0.1", sim.port, 10))

        def with_target(**kwargs):
            w = h.wizard(**kwargs)
            w.state.vcenters.append(spec)
            return w

        from nicadvisor.gui.wizard import PageId

        w = with_target(source=Source.LIVE)
        discover = w.pages[PageId.DISCOVER]
        h.measure("vcsim audit (4 hosts)", w.next, lambda: discover.outcome in ("done", "failed", "cancelled"))
        h.close(w)
    finally:
        sim.stop()


def scenario_ssh(h: Harness) -> None:
    import sshd_harness as H
    from capturetools import CAPTURES

    from nicadvisor.collect.known_hosts import KnownHosts
    from nicadvisor.gui.state import Source, SshSpec
    from nicadvisor.gui.wizard import PageId

    why = H.available()
    if why:
        print(f"SSH audit: skipped, {why}")
        return
    with H.esxi_personality_sshd(CAPTURES, "nicadv-stall-ssh-") as (user, key, sshd):
        w = h.wizard(source=Source.LIVE, known_hosts=KnownHosts(h.workdir / "known_hosts"))
        w.state.ssh_hosts.append(SshSpec(spec=f"{user}@127.0.0.1:{sshd.port}", kind="esxi", key_file=str(key),
                                         trusted_fingerprint=sshd.fingerprint))
        discover = w.pages[PageId.DISCOVER]
        h.measure("SSH audit (real sshd, ESXi captures)", w.next,
                  lambda: discover.outcome in ("done", "failed", "cancelled"))
        h.close(w)


#: Run in a fresh interpreter: the seconds from process start to the first paint of a top-level window, and to the
#: first paint of the wizard itself.
_FIRST_PAINT = r"""
import os, sys, time
started = float(sys.argv[1])
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication
app = QApplication(["nic-advisor-gui"])
class First(QObject):
    first = None
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and getattr(obj, "isWindow", lambda: False)() and obj.isVisible():
            now = time.time() - started
            if self.first is None:
                self.first = (now, type(obj).__name__)
            if type(obj).__name__ == "NicAdvisorWizard":
                print(f"{self.first[0]:.3f} {self.first[1]} {now:.3f} {time.process_time():.3f}", flush=True)
                os._exit(0)
        return False
first = First()
app.installEventFilter(first)
from nicadvisor.gui.app import main
main([])
"""


def scenario_start(h: Harness, runs: int) -> None:
    firsts, wizards, cpus, windows = [], [], [], set()
    env = dict(os.environ, XDG_CONFIG_HOME=str(h.workdir / "config"), XDG_DATA_HOME=str(h.workdir / "data"))
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", _FIRST_PAINT, repr(time.time())], capture_output=True, text=True,
                             timeout=120, env=env)
        try:
            first, window, wizard, cpu = out.stdout.split()[:4]
        except ValueError:
            print(f"start: no paint seen: {out.stderr[-500:]}")
            return
        firsts.append(float(first))
        wizards.append(float(wizard))
        cpus.append(float(cpu))
        windows.add(window)
    h.rows.append({"scenario": "cold start: the wizard painted", "median_s": round(statistics.median(wizards), 2),
                   "max_s": round(max(wizards), 2), "cpu_s": round(statistics.median(cpus), 2),
                   "first_window_s": round(statistics.median(firsts), 2)})
    print(f"{'first window of a cold start':<34} median {statistics.median(firsts):.2f} s, max {max(firsts):.2f} s over "
          f"{runs} run(s) (goal < {START_GOAL_S:g} s; painted first: {', '.join(sorted(windows))})")
    print(f"{'the wizard painted':<34} median {statistics.median(wizards):.2f} s, max {max(wizards):.2f} s "
          f"(the process's CPU time until then: median {statistics.median(cpus):.2f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenarios", nargs="*", metavar="SCENARIO", help=f"of {', '.join(SCENARIOS)} (default: all)")
    parser.add_argument("--smoke", action="store_true", help="demo, pages, export and start only, one start")
    parser.add_argument("--starts", type=int, default=5, help="cold starts measured (default 5)")
    parser.add_argument("--why", type=argparse.FileType("w"), metavar="FILE",
                        help="write the stack of every thread at each gap over 50 ms to FILE (what held the GUI thread)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the rows measured to FILE (JSON)")
    parser.add_argument("--before", metavar="REF",
                        help="before/after table: run each scenario with the app of git REF (e.g. main), then with "
                             "this checkout's, one after the other in fresh processes")
    args = parser.parse_args()
    unknown = set(args.scenarios) - set(SCENARIOS)
    if unknown:
        parser.error(f"unknown scenario(s): {', '.join(sorted(unknown))}")
    chosen = args.scenarios or (("demo", "pages", "export", "start") if args.smoke else SCENARIOS)
    if args.before:
        before_after(args.before, chosen, args)
        return
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    with tempfile.TemporaryDirectory(prefix="nicadv-stalls-") as tmp:
        work = Path(tmp)
        # the app's settings, keyring-free passwords, pins and history go to this scratch folder
        os.environ["XDG_CONFIG_HOME"] = str(work / "config")
        os.environ["XDG_DATA_HOME"] = str(work / "data")
        from PySide6.QtWidgets import QApplication

        app = QApplication.instance() or QApplication(["gui_stalls"])
        h = Harness(app, work, args.why)
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        print(f"load average {load} on {os.cpu_count()} CPUs (a gap on a busy machine can be the whole process "
              "waiting for a CPU: with --why such a gap has no stack dump, as the dumping thread waited too)")
        print(f"{'scenario':<34} {'took':>9} {'max ms':>9} {'p99 ms':>8} {'>50ms':>6} {'CPU ms':>8}   max/goal "
              f"({GOAL_MS:g} ms)")
        for name in chosen:
            if name == "start":
                scenario_start(h, 1 if args.smoke else args.starts)
            else:
                globals()[f"scenario_{name}"](h)
        if args.json:
            args.json.write_text(json.dumps(h.rows, indent=1))


def before_after(ref: str, chosen, args) -> None:
    """Each scenario in a fresh process with the app of git ``ref`` (``git archive`` of ``app/`` into a scratch
    folder), then with this checkout's, back to back (so both see about the same machine load); prints a table."""
    with tempfile.TemporaryDirectory(prefix="nicadv-before-") as tmp:
        old = Path(tmp)
        # the app with the data folders it finds above itself (rules/, resources/)
        archive = subprocess.run(["git", "-C", str(REPO), "archive", ref, "app", "rules", "resources", "pyproject.toml"],
                                 capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive.stdout, check=True)
        table: list[tuple[dict, dict]] = []
        for name in chosen:
            sides = []
            for app_dir in (old / "app", REPO / "app"):
                out = Path(tmp) / "rows.json"
                env = dict(os.environ, PYTHONPATH=os.pathsep.join(
                    p for p in (str(app_dir), os.environ.get("PYTHONPATH", "")) if p))
                cmd = [sys.executable, __file__, name, "--json", str(out)]
                if name == "start":
                    cmd += ["--starts", str(1 if args.smoke else args.starts)]
                done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800)
                rows = json.loads(out.read_text()) if done.returncode == 0 and out.exists() else []
                if not rows:
                    print(f"{name}: no figures ({done.stderr.strip()[-300:]})", flush=True)
                out.unlink(missing_ok=True)
                sides.append({r["scenario"]: r for r in rows})
            for scenario, after in sides[1].items():
                before = sides[0].get(scenario, {})
                table.append((before, after))
                print(f"  {scenario}: {_cell(before)} -> {_cell(after)}", flush=True)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"\nbefore = {ref}, after = this checkout; load average now {load} on {os.cpu_count()} CPUs. Gap: the longest "
          f"time the GUI thread's 10 ms timer waited (goal < {GOAL_MS:g} ms); CPU: the most CPU time the GUI thread itself "
          "used within one gap (its own work, load-independent). Cold start: median seconds to the painted wizard, "
          "and CPU seconds.\n")
    print(f"| scenario | before | after |\n|---|---|---|")
    for before, after in table:
        print(f"| {after['scenario']} | {_cell(before)} | {_cell(after)} |")


def _cell(row: dict) -> str:
    if not row:
        return "—"
    if "median_s" in row:
        return f"{row['median_s']:.2f} s (CPU {row['cpu_s']:.2f} s)"
    return f"{row['max_ms']:.0f} ms (CPU {row['max_cpu_ms']:.0f} ms)"


if __name__ == "__main__":
    main()
