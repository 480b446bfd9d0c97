"""One use case, two front ends: the same benchmark between audited hosts, run through the command line
(``nic-advisor bench --between … --mtu-check --tests …``) and through the wizard's backend (the Benchmark page's
``remote_prepare`` + ``remote_run``), gives the same result: the same MTU verdicts, the same tests on the same
endpoints judged against the same band from the same audit, the same notes, and both land in that audit.

On the lab of real parts of tests/bench/remote_lab.py (two network namespaces with their own sshd, joined by a
50 Mbit/s tbf-shaped veth of MTU 1500). Needs root. Measured figures differ between two runs; what the tool decides
from the audited facts and the probe does not."""
from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "bench"))

from benchtools import needs_root  # noqa: E402
from nicadvisor import cli  # noqa: E402
from nicadvisor.gui.backend import Backend  # noqa: E402
from nicadvisor.gui.state import SshSpec  # noqa: E402
from nicadvisor.report.json_export import benchmark_entry  # noqa: E402
from nicadvisor.store import AuditStore  # noqa: E402
from remote_lab import running_lab  # noqa: E402

pytestmark = [needs_root, pytest.mark.root]
TOOLS = ("netperf", "netserver", "iperf3", "python3")
#: What the tool decides, as opposed to what it measured.
DECIDED = ("test", "tool", "path", "client", "server", "endpoints", "path_conditions", "no_expectation")


@pytest.fixture(scope="module")
def lab():
    with running_lab(rate_mbit=50) as lab:
        yield lab


def _decided(entry: dict) -> dict:
    out = {k: entry.get(k) for k in DECIDED}
    exp = entry.get("expected") or {}
    out["expected_unit"] = exp.get("unit")
    out["expected_notes"] = exp.get("notes")
    if entry["test"] == "TCP_STREAM":  # the band of the tbf rate and the MTU, both read by the probe
        out["band"] = (exp.get("low"), exp.get("high"), exp.get("basis"))
    return out


def test_the_cli_and_the_wizard_run_one_service_call_with_the_same_result(lab, capsys, tmp_path):
    hosts = lab.hosts()
    specs = [f"{h.target.user}@{h.target.host}:{h.target.port}" for h in hosts]
    trust = [a for h in hosts for a in ("--trust-host-key",
                                        f"{h.target.host}:{h.target.port}={h.target.trusted_fingerprint}")]
    key = ["--ssh-key", hosts[0].target.key_filename]
    assert cli.main(["audit", *[a for s in specs for a in ("--ssh", s)], "--kind", "linux", *key, *trust,
                     "--quiet"]) in (0, 1, 2)
    audit_id = int(capsys.readouterr().err.split("saved as audit #", 1)[1].split()[0])

    # the command line
    cli_json = tmp_path / "cli.json"
    code = cli.main(["bench", "--between", *specs, *key, *trust, *[a for h in hosts for a in
                                                                  ("--interface", f"{h.target.host}=d0")],
                     "--duration", "1", "--mtu-check", "--tests", "TCP_STREAM", "TCP_RR", "--yes",
                     "--audit", str(audit_id), "--json", str(cli_json)])
    out, err = capsys.readouterr()
    assert code == 1, out + err  # the 1600-byte frames do not leave the 1500-byte data link
    by_cli = json.loads(cli_json.read_text())
    cli_notes = [line.removeprefix("nic-advisor bench: ") for line in err.splitlines()
                 if line.startswith("nic-advisor bench: ")]

    # the wizard's backend, with the audit the wizard holds after auditing these hosts
    backend = Backend.real()
    ssh_specs = [SshSpec(spec=s, kind="linux", key_file=h.target.key_filename,
                         trusted_fingerprint=h.target.trusted_fingerprint) for s, h in zip(specs, hosts)]
    store = AuditStore()
    try:
        audit = store.load(audit_id)
        cancel = threading.Event()
        prepared = backend.remote_prepare(ssh_specs, {s.source: "d0" for s in ssh_specs}, 1.0, lambda f, m: None,
                                          cancel, mtu_check=True)
        assert prepared.needs_confirmation and prepared.problems == []
        outcome = backend.remote_run(prepared, audit, lambda f, m: None, cancel, store=store)
        stored = store.load(audit_id)
    finally:
        store.close()

    keys = ("client", "server", "client_if", "server_if", "frame_bytes", "ok", "cause", "detail")
    mtu = [tuple(r[k] for k in keys) for r in by_cli["mtu_paths"]]
    assert mtu and mtu == [tuple(getattr(r, k) for k in keys) for r in outcome.mtu_paths]
    assert {(ok, cause) for *_, ok, cause, _d in mtu} == {(False, "local-mtu")}
    assert "TEP mesh (don't-fragment pings, read-only):" in out and "FAIL  " in out
    assert [_decided(e) for e in by_cli["results"]] == \
        [_decided(benchmark_entry(r)) for r in outcome.report.results]
    assert [e["test"] for e in by_cli["results"]] == ["TCP_STREAM", "TCP_RR"]
    assert cli_notes == outcome.notes and any(n.startswith(f"results added to audit #{audit_id} ") for n in cli_notes)
    assert by_cli["problems"] == outcome.problems == []
    # both runs landed in the one audit: the CLI's two results, then the wizard's two
    assert [b.test for b in stored.benchmarks] == ["TCP_STREAM", "TCP_RR"] * 2
    assert outcome.failed and outcome.audit is not audit
    # the mesh is kept by the hosts and judged on the interface at each end, never on the host as a whole
    assert all(h.path_tests for h in stored.hosts) and {h.mtu_path_ok for h in stored.hosts} == {None}
    assert {(f.rule_id, f.obj) for f in stored.findings if f.category == "mtu" and "path" in f.rule_id} == \
        {("tep-path-mtu-failed", "d0")}
    assert lab.folders() == set() and lab.processes(*TOOLS) == {}
