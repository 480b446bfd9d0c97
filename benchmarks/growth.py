#!/usr/bin/env python3
"""How the cost of an audit grows with the size of its input, for the shapes of issue 20 §3, side by side.

Each shape is built at test time from a real recorded output (``shared/fixtures/captures``), then measured at
every size in a fresh child process (CPU seconds of the work only, the best of ``--repeat`` runs, and the child's
peak resident memory), so sizes do not share caches or memory. Shapes:

``rows``
    one host whose ``esxcfg-nics -l`` lists N pNICs (the row of
    ``esxi_esxcfg-nics-l_nmlx5_core_connectx5_25g_esxi703.txt``, renamed ``vmnic0``…); audit, verdict, JSON report.
``members``
    a vm-support bundle (``.tgz``) holding that ``esxcfg-nics -l`` and N small ``localcli`` outputs no parser
    reads (each an input and a problem); audit and verdict.
``spaces:privstats``, ``spaces:vsish``, ``spaces:fpo``
    ``vmnic0``, N spaces and a word, read by the ``esxcli networkinternal nic privstats get``,
    ``vsish … /properties`` and ``nsxdp-cli ens fpo stats get`` parsers.
``header``
    a ``# command:`` header naming ``esxcfg-nics -l`` N times (`` ; ``) over one 355 KB output (the rows of
    ``esxi_esxcfg-nics-l_e810_x710_bcm57416_i350_82599.txt`` repeated): parsing.
``hosts``
    a lab folder of N host folders, each holding ``esxi_esxcfg-nics-l_nvmxnet3_nested_mixed_mtu.txt``; audit with
    the audit history on (a fresh file), verdict, JSON report.
``html``
    the ``rows`` host of N pNICs, audited untimed: its HTML report alone (its "Finish this audit" block compiled one
    regex per command and pNIC: 2.5 s at 250 pNICs, 94 s at 750 before issue 29 §6).
``verdict``
    an audit of N copies of that host (each with its own findings, built untimed): the verdict and the JSON document
    alone, the part whose cost grew with hosts × findings.
``prompts``
    one capture file pasting N shell prompts (``[root@hostK ~]# ethtool -i eth0``) cycling through 500 hosts, each
    with its one-line output (an attack payload, not device output): reading it, the paste cut per host (issue 26).

Linear cost shows as a cost ratio close to the size ratio; quadratic as its square. Nothing is asserted here
(``tests/hostile/test_linear_growth.py`` runs this script and asserts the ratios). Usage::

    python3 benchmarks/growth.py                       # every shape at its default sizes
    python3 benchmarks/growth.py --shape hosts --sizes 1000,5000
    python3 benchmarks/growth.py --smoke               # every shape, two tiny sizes
    python3 benchmarks/growth.py --shape rows --sizes 250,1000 --json --limit-bytes 1073741824
"""
from __future__ import annotations

import argparse
import io
import json
import os
import resource
import shutil
import string
import subprocess
import sys
import tarfile
import tempfile
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

CAPTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "captures"
ROW_CAPTURE = "esxi_esxcfg-nics-l_nmlx5_core_connectx5_25g_esxi703.txt"
BODY_CAPTURE = "esxi_esxcfg-nics-l_e810_x710_bcm57416_i350_82599.txt"
HOST_CAPTURE = "esxi_esxcfg-nics-l_nvmxnet3_nested_mixed_mtu.txt"
SPACE_COMMANDS = {
    "privstats": "localcli --plugin-dir /usr/lib/vmware/esxcli/int networkinternal nic privstats get -n vmnic0",
    "vsish": "vsish -e get /net/pNics/vmnic0/properties",
    "fpo": "nsxdp-cli ens fpo stats get --uplink vmnic0",
}
DEFAULT_SIZES = {"rows": (500, 2000, 5000), "members": (2000, 8000, 16000), "spaces": (250_000, 1_000_000, 4_000_000),
                 "header": (1, 500, 2000), "hosts": (500, 2000, 5000), "verdict": (1000, 2000, 4000),
                 "html": (250, 750, 2000), "prompts": (50_000, 200_000, 800_000)}
SMOKE_SIZES = {"rows": (20, 80), "members": (20, 80), "spaces": (1000, 4000), "header": (1, 4), "hosts": (5, 20),
               "verdict": (20, 80), "html": (20, 80), "prompts": (100, 400)}
SHAPES = ("rows", "members", "spaces:privstats", "spaces:vsish", "spaces:fpo", "header", "hosts", "verdict", "html",
          "prompts")


def _captures_dir() -> Path:
    env = os.environ.get("NICADVISOR_SHARED")
    return Path(env) / "fixtures" / "captures" if env else CAPTURES


def _split(name: str) -> tuple[list[str], list[str]]:
    """(header lines, output lines) of a shared capture."""
    lines = (_captures_dir() / name).read_text(encoding="utf-8").splitlines()
    return [ln for ln in lines if ln.startswith("#")], [ln for ln in lines if not ln.startswith("#")]


def rows_capture(n: int) -> str:
    """An ``esxcfg-nics -l`` capture of ``n`` pNIC rows: the real row, renamed ``vmnicN`` and given PCI function
    ``0000:BB:DD.F`` numbered along."""
    head, body = _split(ROW_CAPTURE)
    row = body[1]
    out = []
    for i in range(n):
        name = f"vmnic{i}"
        out.append(row.replace("vmnic0 ", f"{name:<7} ", 1).replace(
            "0000:0f:00.0", f"0000:{(i // 8) % 256:02x}:{i // 2048:02x}.{i % 8}"))
    return "\n".join(head + body[:1] + out) + "\n"


def _word(i: int) -> str:
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = string.ascii_lowercase[r] + s
    return s


def members_bundle(folder: Path, n: int) -> Path:
    """A vm-support bundle with the real ``esxcfg-nics -l`` and ``n`` two-byte ``localcli`` outputs no parser reads."""
    path = folder / "esx-members-2026-01-01--00.00-1.tgz"
    _head, body = _split(ROW_CAPTURE)
    with tarfile.open(path, "w:gz") as tar:
        def add(name: str, data: bytes) -> None:
            info = tarfile.TarInfo("esx-members/" + name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        add("commands/esxcfg-nics_-l.txt", ("\n".join(body) + "\n").encode())
        for i in range(n):
            add(f"commands/localcli_network-nic-{_word(i)}.txt", b"x\n")
    return path


def hosts_lab(folder: Path, n: int) -> Path:
    """A lab folder of ``n`` host folders ``esx-00000``…, each holding the real nested-host capture."""
    lab = folder / "lab"
    for i in range(n):
        (lab / f"esx-{i:05d}").mkdir(parents=True)
        shutil.copy(_captures_dir() / HOST_CAPTURE, lab / f"esx-{i:05d}" / "nics.txt")
    return lab


def copies_audit(folder: Path, n: int):
    """An audit of ``n`` copies (``esx-00000``…) of the nested host, each with the findings the rules give it."""
    import copy
    import dataclasses

    from nicadvisor.model import Audit
    from nicadvisor.services.audit import AuditRequest, run_audit

    one = run_audit(AuditRequest(capture_paths=(str(hosts_lab(folder, 1)),)))
    audit = Audit(inputs=list(one.inputs), completion=one.completion)
    for i in range(n):
        host = copy.deepcopy(one.hosts[0])
        host.name = f"esx-{i:05d}"
        audit.hosts.append(host)
        audit.findings += [dataclasses.replace(f, host=host.name) for f in one.findings]
    return audit


def _audit(path: Path, folder: Path, history: bool) -> None:
    """``nic-advisor audit --capture path --json …`` (stdout and stderr swallowed), history in ``folder``."""
    from nicadvisor.cli import main

    os.environ["XDG_DATA_HOME"] = str(folder / "data")
    args = ["audit", "--quiet", "--capture", str(path), "--json", str(folder / "a.json")]
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        main(args + ([] if history else ["--no-history"]))


def prepare(shape: str, n: int, folder: Path):
    """The work of ``shape`` at size ``n``, as a function of a fresh scratch folder (built inputs live in
    ``folder``)."""
    from nicadvisor.parsers.registry import parse_output
    from nicadvisor.report.json_export import audit_to_dict

    if shape == "rows":
        host = folder / "esx-rows"
        host.mkdir()
        (host / "nics.txt").write_text(rows_capture(n))
        return lambda scratch: _audit(host, scratch, history=False)
    if shape == "members":
        bundle = members_bundle(folder, n)
        return lambda scratch: _audit(bundle, scratch, history=False)
    if shape.startswith("spaces:"):
        command = SPACE_COMMANDS[shape.split(":", 1)[1]]
        text = "vmnic0" + " " * n + "x\n"
        return lambda _scratch: parse_output(command, text)
    if shape == "header":
        _head, body = _split(BODY_CAPTURE)
        text = "\n".join(body) + "\n"
        text *= 355_000 // len(text)
        command = " ; ".join(["esxcfg-nics -l"] * n)
        return lambda _scratch: parse_output(command, text)
    if shape == "hosts":
        lab = hosts_lab(folder, n)
        return lambda scratch: _audit(lab, scratch, history=True)
    if shape == "html":
        from nicadvisor.report.html_export import write_html
        from nicadvisor.services.audit import AuditRequest, run_audit

        host = folder / "esx-rows"
        host.mkdir()
        (host / "nics.txt").write_text(rows_capture(n))
        audit = run_audit(AuditRequest(capture_paths=(str(host),)))
        return lambda scratch: write_html(audit, scratch / "r.html")
    if shape == "prompts":  # one pasted session of n prompts cycling through 500 hosts (issue 26's split)
        from nicadvisor.collect.sources import gather

        paste = folder / "paste.txt"
        paste.write_text("# command: ethtool -i eth0\n" + "".join(
            f"[root@host{i % 500} ~]# ethtool -i eth0\ndriver: ixgbe\n" for i in range(n)))
        return lambda _scratch: gather([paste])
    if shape == "verdict":
        audit = copies_audit(folder, n)
        return lambda _scratch: (audit.verdict, audit_to_dict(audit))
    raise ValueError(f"unknown shape {shape!r}")


def measure_here(shape: str, n: int, repeat: int) -> dict:
    """CPU seconds of the best of ``repeat`` runs of ``shape`` at ``n``, and this process's peak memory (MiB)."""
    with tempfile.TemporaryDirectory(prefix="nicadvisor-growth-") as tmp:
        work = prepare(shape, n, Path(tmp))
        best = None
        for k in range(repeat):
            scratch = Path(tmp) / f"run{k}"
            scratch.mkdir()
            start = time.process_time()
            work(scratch)
            spent = time.process_time() - start
            best = spent if best is None else min(best, spent)
    return {"shape": shape, "size": n, "cpu_s": best, "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def measure(shape: str, n: int, repeat: int, limit_bytes: int | None, timeout_s: float,
            limit_cpu_s: int | None = None) -> dict:
    """:func:`measure_here` in a child process (address space limited to ``limit_bytes``, CPU time to
    ``limit_cpu_s`` seconds), so that sizes share neither caches nor memory; raises subprocess.TimeoutExpired past
    ``timeout_s`` (wall clock) and RuntimeError when the child fails (also when it ran out of CPU time)."""
    args = [sys.executable, __file__, "--one", shape, str(n), "--repeat", str(repeat)]
    if limit_bytes:
        args += ["--limit-bytes", str(limit_bytes)]
    if limit_cpu_s:
        args += ["--limit-cpu", str(limit_cpu_s)]
    out = subprocess.run(args, capture_output=True, text=True, timeout=timeout_s, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{shape} at {n}: exit {out.returncode}: {out.stderr[-2000:]}")
    return json.loads(out.stdout)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shape", action="append", choices=SHAPES, help="shapes to measure (default: all)")
    p.add_argument("--sizes", help="comma-separated sizes (default: per shape)")
    p.add_argument("--repeat", type=int, default=3, help="runs per size, the best counts (default 3)")
    p.add_argument("--limit-bytes", type=int, help="address-space limit of each child (RLIMIT_AS)")
    p.add_argument("--limit-cpu", type=int, help="CPU-time limit of each child in seconds (RLIMIT_CPU): a bound "
                   "that does not depend on machine load, unlike --timeout")
    p.add_argument("--timeout", type=float, default=600.0, help="wall-clock seconds per child (default 600)")
    p.add_argument("--json", action="store_true", help="print the measurements as one JSON list")
    p.add_argument("--smoke", action="store_true", help="two tiny sizes per shape, one run each")
    p.add_argument("--one", nargs=2, metavar=("SHAPE", "N"), help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.limit_bytes:
        resource.setrlimit(resource.RLIMIT_AS, (a.limit_bytes, a.limit_bytes))
    if a.limit_cpu and a.one:
        resource.setrlimit(resource.RLIMIT_CPU, (a.limit_cpu, a.limit_cpu))
    if a.one:
        print(json.dumps(measure_here(a.one[0], int(a.one[1]), a.repeat)))
        return 0
    results = []
    for shape in a.shape or SHAPES:
        base = shape.split(":")[0]
        sizes = [int(s) for s in a.sizes.split(",")] if a.sizes else list((SMOKE_SIZES if a.smoke else DEFAULT_SIZES)[base])
        rows = [measure(shape, n, 1 if a.smoke else a.repeat, a.limit_bytes, a.timeout, a.limit_cpu) for n in sizes]
        results += rows
        if not a.json:
            print(f"{shape}: size  CPU s  (size ×, cost ×)  peak MiB")
            for prev, row in zip([None] + rows, rows):
                ratio = "" if prev is None else (f"  ({row['size'] / prev['size']:.3g}×, "
                                                 f"{row['cpu_s'] / max(prev['cpu_s'], 1e-9):.3g}×)")
                print(f"  {row['size']:>9}  {row['cpu_s']:8.3f}{ratio}  {row['peak_mib']:.0f}")
    if a.json:
        print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
