"""A fleet audited as a user runs it: time, peak memory, PDF pages, ``--quiet`` lines and whether the PDF names every
host, for 10, 100, 500 and 5,000 hosts (issue 25 §3). Not a test: it prints a table.

The fleet is the bundled demo lab copied N/10 times into capture folders, each copy's files headed ``# host:
<folder>-<i>`` (i = 1…N/10, so that natural order matters: -1, -2, …, -10), then audited by the real command line in a
process of its own::

    nic-advisor audit --capture DIR --no-history --quiet --pdf fleet.pdf --json fleet.json

Columns: hosts; seconds of the whole command; its peak resident memory (MB, ``ru_maxrss`` of the child); the PDF's
pages; the lines ``--quiet`` printed (stdout and stderr; the target is at most 60 for 500 hosts); and how many host
names the PDF's text (pdftotext) holds, of all (the target: every one, in the host index).

    python benchmarks/fleet_cli.py                 # 10, 100, 500 and 5,000 hosts (5,000: several minutes)
    python benchmarks/fleet_cli.py --sizes 10 500
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from nicadvisor.paths import demo_lab_dir

SIZES = (10, 100, 500, 5000)
QUIET_TARGET = 60


def fleet(root: Path, n: int) -> list[str]:
    """Write a fleet of ``n`` hosts (the demo lab's ten, copied) under ``root``; returns the host names."""
    lab = sorted(p for p in demo_lab_dir().iterdir() if p.is_dir())
    names = []
    for i in range(1, n // len(lab) + 1):
        for folder in lab:
            name = f"{folder.name}-{i}"
            dest = root / name
            dest.mkdir(parents=True)
            for f in sorted(folder.iterdir()):
                if f.is_file():
                    (dest / f.name).write_text(f"# host: {name}\n" + f.read_text(encoding="utf-8"), encoding="utf-8")
            names.append(name)
    return names


def measure(n: int) -> dict[str, float]:
    """Audit a fleet of ``n`` hosts with the CLI; returns the row of the table."""
    from pypdf import PdfReader

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "fleet"
        names = fleet(root, n)
        env = dict(os.environ, XDG_DATA_HOME=str(Path(tmp) / "data"), XDG_STATE_HOME=str(Path(tmp) / "state"))
        pdf = Path(tmp) / "fleet.pdf"
        cmd = [sys.executable, "-m", "nicadvisor.cli", "audit", "--capture", str(root), "--no-history", "--quiet",
               "--pdf", str(pdf), "--json", str(Path(tmp) / "fleet.json")]
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        start = time.perf_counter()
        run = subprocess.run(cmd, capture_output=True, text=True, env=env)
        seconds = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        lines = len((run.stdout + run.stderr).splitlines())
        pages = len(PdfReader(str(pdf)).pages) if pdf.exists() else 0
        text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True).stdout \
            if shutil.which("pdftotext") and pdf.exists() else ""
        named = sum(1 for name in names if name in text)
    return {"hosts": len(names), "s": seconds, "peak_mb": max(peak, before) / 1024, "pages": pages,
            "quiet_lines": lines, "named": named, "rc": run.returncode}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES), help="host counts (default: %(default)s)")
    parser.add_argument("--smoke", action="store_true", help="one small fleet (10 hosts), as benchmarks/smoke.sh runs it")
    args = parser.parse_args()
    if args.smoke:
        args.sizes = [10]
    print(f"{'hosts':>6} {'seconds':>8} {'peak MB':>8} {'pages':>6} {'--quiet lines':>14} {'hosts named in PDF':>19} {'exit':>5}")
    for n in args.sizes:
        # one child per size: its peak memory is its own
        out = subprocess.run([sys.executable, "-c", f"import json,sys; sys.path.insert(0, {str(Path(__file__).parent)!r});"
                              f"import fleet_cli; print(json.dumps(fleet_cli.measure({n})))"],
                             capture_output=True, text=True, check=True)
        import json

        row = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{row['hosts']:>6} {row['s']:>8.1f} {row['peak_mb']:>8.0f} {row['pages']:>6} {row['quiet_lines']:>14} "
              f"{row['named']:>9} of {row['hosts']:<6} {row['rc']:>5}")
    print(f"targets: at most {QUIET_TARGET} --quiet lines at 500 hosts; every host named in the PDF")


if __name__ == "__main__":
    main()
