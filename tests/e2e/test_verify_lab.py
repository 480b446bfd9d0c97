"""``nic-advisor verify --against ID`` on a namespace lab (issue 25 §4): two Linux hosts, each a network namespace with
its own real OpenSSH sshd (tests/bench/remote_lab.py), joined by a veth ``d0`` at MTU 1500.

The approved audit: both hosts audited over SSH (``audit --ssh … --kind linux``), then the TEP mesh between their
``d0`` (``bench --between … --mtu-check --audit ID``): a 1600-byte don't-fragment ping cannot leave a 1500-byte
interface, so each end's ``d0`` gets the MTU finding ``tep-path-mtu-failed`` and the plan asks to raise it. Before
the change ``verify`` says "not done" (exit 1), after ``ip link set d0 mtu 9000`` in both namespaces "done" (exit 0),
both times from the hosts themselves (the same targets read again, the mesh run again), with the record written and
read back."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from remote_lab import DATA_IF, SSH_PORT, running_lab  # noqa: E402

from nicadvisor.cli import main  # noqa: E402
from nicadvisor.store import AuditStore  # noqa: E402

pytestmark = pytest.mark.root


def _ssh_args(lab) -> list[str]:
    args = ["--kind", "linux", "--ssh-key", str(lab.client_key)]
    for i in range(2):
        args += ["--trust-host-key", f"{lab.mgmt[i]}:{SSH_PORT}={lab.sshds[i].fingerprint}"]
    return args


def _verify(lab, tmp_path: Path, name: str, capsys) -> tuple[int, dict, str]:
    code = main(["verify", "--against", "1", "--ssh-key", str(lab.client_key), "--quiet",
                 "--json", str(tmp_path / f"{name}.json"), "--pdf", str(tmp_path / f"{name}.pdf")])
    out = capsys.readouterr().out
    return code, json.loads((tmp_path / f"{name}.json").read_text(encoding="utf-8")), out


def test_verify_shows_the_planned_mtu_change_not_done_then_done(xdg, tmp_path, capsys):
    with running_lab(rate_mbit=None) as lab:
        hosts = [f"{lab.user.name}@{lab.mgmt[i]}:{SSH_PORT}" for i in range(2)]
        names = [f"{lab.mgmt[i]}:{SSH_PORT}" for i in range(2)]
        code = main(["audit", *[a for h in hosts for a in ("--ssh", h)], *_ssh_args(lab), "--quiet"])
        assert code in (0, 1, 2), capsys.readouterr()
        code = main(["bench", "--between", *hosts, *_ssh_args(lab)[2:], "--ssh-key", str(lab.client_key),
                     "--kind", "linux", *[a for h in hosts for a in ("--interface", f"{h}={DATA_IF}")],
                     "--mtu-check", "--audit", "1"])
        assert code == 1, capsys.readouterr()  # 1600 bytes cannot leave a 1500-byte d0
        capsys.readouterr()
        with AuditStore() as store:
            approved = store.load(1)
        planned = sorted((f.host, f.obj) for f in approved.findings if f.rule_id == "tep-path-mtu-failed")
        assert planned == sorted((n, DATA_IF) for n in names)  # the MTU finding is on each host's interface
        assert {h.pnic(DATA_IF).mtu for h in approved.hosts} == {1500}

        code, record, out = _verify(lab, tmp_path, "before", capsys)
        assert code == 1, out
        mine = [c for c in record["checks"] if c["rule_id"] == "tep-path-mtu-failed"]
        assert sorted((c["host"], c["obj"]) for c in mine) == planned
        assert {c["status"] for c in mine} == {"not done"}
        assert all("1600-byte frame" in c["evidence"]["line"] for c in mine)  # the new mesh's own line
        assert record["against"]["audit_id"] == 1 and len(record["against"]["sha256"]) == 64
        assert record["new_audit"]["audit_id"] == 2
        assert "[not done] item" in out and f"{names[0]}/{DATA_IF}" in out

        for ns in lab.namespaces[:2]:  # the planned change, made on the hosts
            subprocess.run(["ip", "-n", ns, "link", "set", DATA_IF, "mtu", "9000"], check=True, timeout=20)

        code, record, out = _verify(lab, tmp_path, "after", capsys)
        assert code == 0, out
        mine = [c for c in record["checks"] if c["rule_id"] == "tep-path-mtu-failed"]
        assert {c["status"] for c in mine} == {"done"} and len(mine) == 2
        assert all(f"{DATA_IF} MTU now 9000" in c["detail"] for c in mine)
        assert record["exit_code"] == 0 and record["new_audit"]["audit_id"] == 3
        # the approved audit is untouched by both verifications: the same hash each time
        with AuditStore() as store:
            from nicadvisor.report.plan_check import audit_digest

            assert audit_digest(store.load(1)) == record["against"]["sha256"]
        assert any(line.startswith("PASS") and "9000-byte frame" in line for line in record["tep_mesh"])

        from pypdf import PdfReader

        reader = PdfReader(str(tmp_path / "after.pdf"))
        assert len(reader.pages) == 1
        text = reader.pages[0].extract_text()
        assert "post-change record" in text and record["against"]["sha256"] in text.replace("\n", "")
        flat = " ".join(text.split())
        assert "done (2)" in flat and "TEP path drops Geneve-size frames" in flat, flat
        assert "FAIL → PASS" in flat and "9000-byte frame with don't-fragment: passes" in flat
        # rendered as a reader sees it (pdftoppm): one page
        subprocess.run(["pdftoppm", "-r", "60", "-png", str(tmp_path / "after.pdf"), str(tmp_path / "after")],
                       check=True, timeout=60)
        assert [p.name for p in tmp_path.glob("after*.png")] == ["after-1.png"]
