#!/usr/bin/env python3
"""vSphere inventory benchmark: our PropertyCollector audit vs govc vs a naive pyVmomi attribute walk.

Starts govmomi's vcsim with ``-cluster 16 -host 32`` (512 HostSystems; ``--smoke``: ``-cluster 2 -host 4``)
on 127.0.0.1 and a free port, then times, round-robin, in one run:

* ``collect_vsphere``: :func:`nicadvisor.collect.vsphere.collect_vsphere` (TLS pin check, version
  negotiation, login, VDS retrieval, one paged ``RetrievePropertiesEx`` of the host paths parsed by the
  raw-XML reader :mod:`nicadvisor.collect.vsphere_rawxml`, fact conversion); driver-module queries and
  LLDP/CDP hints off unless ``--modules`` (vcsim has no HostKernelModuleSystem, its hints are empty);
* ``collect_vsphere pyVmomi``: the same with ``raw_xml=False`` (pyVmomi's SOAP deserializer, the
  fallback path); both must find the same hosts/pNICs;
* ``govc object.collect``: ``govc object.collect -json -type h / <the same host paths>`` as a whole
  process (peer anchor; its session is persisted in a temporary GOVMOMI_HOME, as in
  shared/design/research/performance-baselines.md §1);
* ``naive walk``: per host ``h.name``, ``h.summary.config.product``, ``h.runtime``, then
  ``h.config.network.<pnic|vswitch|proxySwitch|opaqueSwitch|vnic>`` and ``h.hardware.pciDevice`` as
  attribute accesses (every ``h.config`` / ``h.hardware`` access is a full round trip).

Prints wall seconds (median, min–max over ``--rounds``), the ratio to ``collect_vsphere``, hosts and
pNICs found (all methods must agree) and HTTP round trips of the in-process methods. Nothing is
asserted about timings. Usage::

    python3 benchmarks/inventory.py            # 512 hosts, 3 rounds (vcsim startup ~20 s)
    python3 benchmarks/inventory.py --smoke    # 8 hosts, 1 round
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from nicadvisor.collect.tls_pinning import fetch_thumbprint, ssl_context_for
from nicadvisor.collect.vsphere import HOST_PATHS, VsphereTarget, collect_vsphere, negotiate_version

USER, PASSWORD = "bench", "bench-pw"


def _tool(name: str) -> str:
    found = os.environ.get(name.upper()) or shutil.which(name) or str(Path.home() / "go" / "bin" / name)
    if not Path(found).exists():
        sys.exit(f"{name} not found (set ${name.upper()} or install it in ~/go/bin)")
    return found


def start_vcsim(vcsim: str, clusters: int, hosts: int, workdir: Path) -> tuple[subprocess.Popen, int, float]:
    """Start vcsim; returns (process, port, startup seconds). Exits when it does not come up in 120 s."""
    out = workdir / "vcsim.out"
    t0 = time.monotonic()
    with open(out, "w") as fo, open(workdir / "vcsim.err", "w") as fe:
        proc = subprocess.Popen([vcsim, "-l", "127.0.0.1:0", "-username", USER, "-password", PASSWORD,
                                 "-standalone-host", "0", "-vm", "0", "-cluster", str(clusters), "-host", str(hosts)],
                                stdout=fo, stderr=fe, stdin=subprocess.DEVNULL)
    while time.monotonic() - t0 < 120:
        m = re.search(r"@127\.0\.0\.1:(\d+)/sdk", out.read_text())
        if m:
            return proc, int(m.group(1)), time.monotonic() - t0
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    proc.kill()
    sys.exit(f"vcsim did not start: {(workdir / 'vcsim.err').read_text()[-2000:]}")


@contextmanager
def count_round_trips() -> Iterator[list[int]]:
    """Count HTTP requests made by this process (pyVmomi uses http.client)."""
    counter = [0]
    original = http.client.HTTPConnection.request

    def request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        counter[0] += 1
        return original(self, *args, **kwargs)

    http.client.HTTPConnection.request = request  # type: ignore[method-assign]
    try:
        yield counter
    finally:
        http.client.HTTPConnection.request = original  # type: ignore[method-assign]


def run_collect(port: int, thumbprint: str, modules: bool, raw_xml: bool = True) -> tuple[int, int]:
    col = collect_vsphere([VsphereTarget(host="127.0.0.1", port=port, user=USER, password=PASSWORD,
                                         thumbprint=thumbprint, modules=modules, network_hints=modules,
                                         raw_xml=raw_xml, timeout_s=120)])
    errors = [p.message for p in col.problems if "driver modules could not be read" not in p.message]
    if errors:
        raise RuntimeError(f"collect_vsphere reported problems: {errors}")
    pnics = sum(len(r.pnics) for h in col.hosts for _, r in h.parsed[:1])
    return len(col.hosts), pnics


def run_govc(govc: str, port: int, home: Path) -> tuple[int, int]:
    env = dict(os.environ, GOVC_URL=f"https://{USER}:{PASSWORD}@127.0.0.1:{port}/sdk", GOVC_INSECURE="1",
               GOVMOMI_HOME=str(home))
    out = subprocess.run([govc, "object.collect", "-json", "-type", "h", "/", *HOST_PATHS], env=env,
                         capture_output=True, text=True, check=True, timeout=600).stdout
    dec, i, hosts, pnics = json.JSONDecoder(), 0, 0, 0
    while True:
        while i < len(out) and out[i].isspace():
            i += 1
        if i >= len(out):
            break
        obj, i = dec.raw_decode(out, i)
        hosts += 1
        for change in obj.get("changeSet") or []:
            if change["name"] == "config.network.pnic":
                pnics += len((change.get("val") or {}).get("_value") or [])
    return hosts, pnics


def run_naive(port: int, thumbprint: str) -> tuple[int, int]:
    from pyVmomi import SoapStubAdapter, vim

    ctx, _ = ssl_context_for("127.0.0.1", port, thumbprint=thumbprint, timeout=120)
    stub = SoapStubAdapter(host="127.0.0.1", port=port, version=negotiate_version("127.0.0.1", port, ctx, 120),
                           sslContext=ctx, httpConnectionTimeout=120)
    content = vim.ServiceInstance("ServiceInstance", stub).RetrieveContent()
    content.sessionManager.Login(USER, PASSWORD)
    try:
        view = content.viewManager.CreateContainerView(content.rootFolder, [vim.HostSystem], True)
        hosts = pnics = 0
        for h in view.view:
            facts = [h.name, h.summary.config.product.version, h.summary.config.product.build,
                     h.runtime.connectionState, h.runtime.inMaintenanceMode]
            nic_list = h.config.network.pnic
            facts += [h.config.network.vswitch, h.config.network.proxySwitch, h.config.network.opaqueSwitch,
                      h.config.network.vnic, h.hardware.pciDevice]
            hosts += 1
            pnics += len(nic_list)
            del facts
        view.DestroyView()
        return hosts, pnics
    finally:
        content.sessionManager.Logout()
        stub.DropConnections()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--smoke", action="store_true", help="small inventory (-cluster 2 -host 4), 1 round")
    ap.add_argument("--clusters", type=int, default=None)
    ap.add_argument("--hosts-per-cluster", type=int, default=None)
    ap.add_argument("--rounds", type=int, default=None)
    ap.add_argument("--skip-naive", action="store_true", help="leave out the (slow) naive attribute walk")
    ap.add_argument("--modules", action="store_true",
                    help="also time collect_vsphere with driver-module queries and LLDP/CDP hints")
    ap.add_argument("--skip-pyvmomi", action="store_true", help="leave out collect_vsphere with raw_xml=False")
    args = ap.parse_args(argv)
    clusters = args.clusters or (2 if args.smoke else 16)
    per = args.hosts_per_cluster or (4 if args.smoke else 32)
    rounds = args.rounds or (1 if args.smoke else 3)
    vcsim, govc = _tool("vcsim"), _tool("govc")

    with tempfile.TemporaryDirectory(prefix="nicadvisor-bench-") as tmp:
        work = Path(tmp)
        proc, port, startup = start_vcsim(vcsim, clusters, per, work)
        try:
            thumb = fetch_thumbprint("127.0.0.1", port, 30)
            print(f"vcsim -cluster {clusters} -host {per}: 127.0.0.1:{port}, started in {startup:.1f} s; "
                  f"{rounds} round(s); Python {sys.version.split()[0]}")
            methods: list[tuple[str, Callable[[], tuple[int, int]], bool]] = [
                ("collect_vsphere", lambda: run_collect(port, thumb, False), True),
                ("govc object.collect", lambda: run_govc(govc, port, work / "govmomi"), False),
            ]
            if not args.skip_pyvmomi:
                methods.append(("collect_vsphere pyVmomi", lambda: run_collect(port, thumb, False, False), True))
            if args.modules:
                methods.append(("collect_vsphere +modules", lambda: run_collect(port, thumb, True), True))
            if not args.skip_naive:
                methods.append(("naive attribute walk", lambda: run_naive(port, thumb), True))
            run_govc(govc, port, work / "govmomi")  # log govc in once (persisted session), as the baseline did
            times: dict[str, list[float]] = {m[0]: [] for m in methods}
            counts: dict[str, tuple[int, int]] = {}
            trips: dict[str, int] = {}
            for r in range(rounds):
                for name, fn, in_process in methods:
                    with count_round_trips() as rt:
                        t0 = time.perf_counter()
                        counts[name] = fn()
                        times[name].append(time.perf_counter() - t0)
                    if in_process:
                        trips[name] = rt[0]
                    print(f"  round {r + 1}: {name:26s} {times[name][-1]:8.3f} s", flush=True)
        finally:
            proc.terminate()
            proc.wait(30)

    base = statistics.median(times["collect_vsphere"])
    print()
    print(f"{'method':26s} {'wall s median (min-max)':>26s} {'x collect':>10s} {'hosts':>6s} {'pNICs':>6s} {'HTTP RT':>8s}")
    for name, _fn, _ in methods:
        ts = times[name]
        med = statistics.median(ts)
        span = f"{med:.3f} ({min(ts):.3f}-{max(ts):.3f})"
        hosts, pnics = counts[name]
        print(f"{name:26s} {span:>26s} {med / base:>10.2f} {hosts:>6d} {pnics:>6d} {trips.get(name, '-')!s:>8s}")
    agree = len({c for c in counts.values()}) == 1
    print(f"\nall methods found the same hosts/pNICs: {agree}")
    return 0 if agree else 1


if __name__ == "__main__":
    raise SystemExit(main())
