#!/usr/bin/env python3
"""What the rule grammar's table cache saves a process (``nicadvisor.rules_engine.grammar_cache``), side by side.

Each run starts a fresh ``python -c "import nicadvisor.rules_engine; load the shipped rules"`` and reads the CPU
seconds it used (user + system, from the child's rusage: load-independent). Three ways: the tables built (the cache
file cannot be written), built and written (the first process), and read from the cache (every later process).
Numbers are printed, never asserted (``benchmarks/README.md``); ``tests/rules/test_grammar_cache.py`` proves the
cached tables parse like built ones.

    python benchmarks/rule_grammar.py            # 5 runs of each
    python benchmarks/rule_grammar.py --smoke    # 1 run of each
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHILD = ("import nicadvisor.rules_engine as r\n"
         "r.load_rules(r.default_rules_dir())\n")


def cpu_of_child(cache: Path) -> float:
    """CPU seconds (user + system) of one child importing the rules engine and loading the shipped rules."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = {**os.environ, "NICADVISOR_GRAMMAR_CACHE": str(cache),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO / "app"), os.environ.get("PYTHONPATH")]))}
    subprocess.run([sys.executable, "-c", CHILD], check=True, env=env, timeout=120)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--smoke", action="store_true", help="one run of each")
    a = p.parse_args()
    runs = 1 if a.smoke else a.runs
    with tempfile.TemporaryDirectory(prefix="nicadvisor-grammar-") as tmp:
        blocked = Path(tmp) / "a-file"
        blocked.write_text("not a folder\n")
        built = [cpu_of_child(blocked / "tables.json") for _ in range(runs)]
        first = []
        for k in range(runs):
            first.append(cpu_of_child(Path(tmp) / f"fresh-{k}.json"))
        cached = [cpu_of_child(Path(tmp) / "fresh-0.json") for _ in range(runs)]
    b, f, c = (statistics.median(x) for x in (built, first, cached))
    print(f"import the rules engine and load the shipped rules, CPU s (median of {runs}):")
    print(f"  tables built, not cached   {b:6.3f}")
    print(f"  built and written          {f:6.3f}  ({f / b:.2f}x)")
    print(f"  read from the cache        {c:6.3f}  ({c / b:.2f}x)")


if __name__ == "__main__":
    main()
