#!/usr/bin/env python3
"""How long a cold start of ``nic-advisor-gui`` takes to paint: the starting window (splash) and the wizard's first page.

Starts the real entry point (the ``nic-advisor-gui`` script when it is on PATH, else ``python -m nicadvisor.gui.app``)
offscreen in a fresh process ``--runs`` times, with ``NICADVISOR_STARTUP_MARKS=1`` so that the app writes a mark to
stderr when the starting window is painted and when the wizard's first page is painted
(:mod:`nicadvisor.gui.startup`), and a scratch settings/history folder. The seconds from launching the process to each
mark are printed per run, then median and max, with the CPU seconds the process had used when the wizard was painted
(load-independent: on a shared machine the wall clock includes the time spent waiting for a CPU). The goal (issue 27,
Responsiveness): the wizard painted within 1 s. Numbers are printed, never asserted (``benchmarks/README.md``); the
deterministic guard is ``tests/gui/test_gui_cold_start.py`` (no heavy module loaded when the first page is painted).

    python benchmarks/cold_start.py              # 5 cold starts
    python benchmarks/cold_start.py --runs 10
    python benchmarks/cold_start.py --smoke      # 1 cold start
    python benchmarks/cold_start.py --app DIR    # the app of another checkout (DIR/app on PYTHONPATH)
"""
from __future__ import annotations

import argparse
import os
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GOAL_S = 1.0
#: The mark lines' first word (``nicadvisor.gui.startup.MARK_PREFIX``; written here so the script runs on a checkout
#: whose app has no marks, saying so).
PREFIX = "nicadvisor-startup"
TIMEOUT_S = 60.0


def command(app_dir: Path | None) -> list[str]:
    """The entry point to start: the installed script for this checkout, else the module."""
    script = shutil.which("nic-advisor-gui")
    if script and app_dir is None:
        return [script]
    return [sys.executable, "-m", "nicadvisor.gui.app"]


def one_start(app_dir: Path, work: Path) -> dict[str, float]:
    """Start the app once; returns ``{stage: seconds from launch}`` for ``splash`` and ``wizard`` (a stage never
    marked is missing). Stops the process (SIGTERM, then SIGKILL) once the wizard is painted."""
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"),
               NICADVISOR_STARTUP_MARKS="1", XDG_CONFIG_HOME=str(work / "config"), XDG_DATA_HOME=str(work / "data"),
               PYTHONPATH=os.pathsep.join(p for p in (str(app_dir), os.environ.get("PYTHONPATH", "")) if p))
    marks: dict[str, float] = {}
    launched = time.time()
    proc = subprocess.Popen(command(None if app_dir == REPO / "app" else app_dir), env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:  # a thread, so that an app that never writes a mark cannot hang the benchmark
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    tail: list[str] = []
    try:
        deadline = time.monotonic() + TIMEOUT_S
        while "wizard" not in marks:
            try:
                line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                break
            words = line.split()
            if len(words) >= 3 and words[0] == PREFIX:
                marks[words[1]] = float(words[2]) - launched
                if len(words) >= 4:
                    marks[words[1] + " CPU"] = float(words[3])
            else:
                tail = (tail + [line.rstrip()])[-5:]
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if "wizard" not in marks:
        print(f"  no wizard mark (does this app write {PREFIX} marks?): {' | '.join(tail)}", file=sys.stderr)
    return marks


def measure(runs: int, app_dir: Path = REPO / "app", label: str = "") -> dict[str, list[float]]:
    """``runs`` cold starts; prints one line per run and the summary; returns ``{stage: [seconds…]}``."""
    seen: dict[str, list[float]] = {"splash": [], "wizard": [], "wizard CPU": []}
    with tempfile.TemporaryDirectory(prefix="nicadv-cold-") as tmp:
        for i in range(runs):
            marks = one_start(app_dir, Path(tmp) / str(i))
            for stage in seen:
                if stage in marks:
                    seen[stage].append(marks[stage])
            print(f"  {label}run {i + 1}: " + ", ".join(f"{s} {marks[s]:.2f} s" for s in seen if s in marks),
                  flush=True)
    for stage, values in seen.items():
        if values:
            name = {"splash": "starting window painted", "wizard": "wizard painted",
                    "wizard CPU": "CPU used until then"}[stage]
            print(f"{label}{name:<24} "
                  f"median {statistics.median(values):.2f} s, max {max(values):.2f} s over {len(values)} run(s)"
                  + (f" (goal < {GOAL_S:g} s)" if stage == "wizard"
                     else " (the process's own CPU time: about what an idle machine would take)"
                     if stage == "wizard CPU" else ""),
                  flush=True)
    return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="cold starts (default 5)")
    parser.add_argument("--smoke", action="store_true", help="one cold start")
    parser.add_argument("--app", type=Path, metavar="DIR",
                        help="a checkout whose app/ to start instead of this one (e.g. a `git worktree` of main)")
    args = parser.parse_args()
    app_dir = (args.app.resolve() / "app") if args.app else REPO / "app"
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"load average {load} on {os.cpu_count()} CPUs; app {app_dir}", flush=True)
    seen = measure(1 if args.smoke else args.runs, app_dir)
    if not seen["wizard"]:
        sys.exit("the wizard was never seen painted")


if __name__ == "__main__":
    main()
