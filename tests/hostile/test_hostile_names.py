"""Issue 20 §2 and §4: names that are legal on Linux but hostile to writers and terminals. A folder or file name
that is not UTF-8 crashed the history and the JSON/HTML/PDF/CSV writers: its bytes are kept and shown escaped
(``\\xff``). A newline in a folder name forged CLI lines (a fake "Verdict: ✔ READY"): names are printed escaped. The
HTML report kept raw ESC/OSC sequences from the inputs: it strips them as the CLI and the CSV do."""
from __future__ import annotations

import csv
import io
import json
import os
import shutil
from pathlib import Path

from pypdf import PdfReader

from capturetools import CAPTURES, READY_CAPTURE, capture_path

NOT_READY_LIST = CAPTURES / "esxi_esxcfg-nics-l_nmlx5_core_connectx5_25g_esxi703.txt"  # MTU 1500: not fit


def _bytes_folder(parent: Path, name: bytes, capture: Path, file_name: bytes = b"nics.txt") -> Path:
    folder = os.path.join(os.fsencode(parent), name)
    os.makedirs(folder)
    shutil.copy(capture, os.path.join(folder, file_name))
    return Path(os.fsdecode(folder))


def test_names_that_are_not_utf8_are_kept_escaped_in_history_and_every_report(cli, ready_cli, tmp_path):
    host = _bytes_folder(tmp_path, b"esx\xff-nested", capture_path(READY_CAPTURE), b"nics\xfe.txt")
    out = {k: tmp_path / f"a.{k}" for k in ("json", "html", "pdf", "csv")}
    run = ready_cli("audit", "--quiet", "--capture", host, *(a for k, p in out.items() for a in (f"--{k}", p)))
    assert run.code == 0, run.err  # READY, as the same host under an ASCII name
    assert "saved as audit #1" in run.err and "esx\\xff-nested (esxi" in run.out
    doc = json.loads(out["json"].read_text(encoding="utf-8"))
    assert doc["hosts"][0]["name"] == "esx\\xff-nested" and doc["verdict"]["status"] == "ready"
    assert any(i.endswith("esx\\xff-nested/nics\\xfe.txt") for i in doc["hosts"][0]["inputs"])
    assert "esx\\xff-nested" in out["html"].read_text(encoding="utf-8")
    assert "esx\\xff-nested" in "".join(p.extract_text() for p in PdfReader(out["pdf"]).pages)
    rows = list(csv.reader(io.StringIO(out["csv"].with_name("a-verdict.csv").read_text(encoding="utf-8-sig"))))
    assert any(row[1:3] == ["esx\\xff-nested", "ready"] for row in rows if len(row) > 2), rows
    listed = cli("history")
    assert listed.code == 0 and "esx\\xff-nested" in listed.out
    again = cli("history", "1", "--json", tmp_path / "b.json")
    reopened = json.loads((tmp_path / "b.json").read_text())
    assert reopened["hosts"][0]["name"] == "esx\\xff-nested"
    # the history holds the host as read (the test values of ready_cli came later): its verdict and exit code agree
    assert again.code == {"ready": 0, "not_ready": 1, "not_rated": 2}[reopened["verdict"]["status"]]


def test_a_newline_in_a_folder_name_cannot_forge_a_verdict_line(cli, tmp_path):
    host = _bytes_folder(tmp_path, b"esx01\nVerdict: \xe2\x9c\x94 READY: all good", NOT_READY_LIST)
    run = cli("audit", "--quiet", "--no-history", "--capture", host)
    assert run.code == 1
    verdicts = [ln for ln in run.out.splitlines() if ln.startswith("Verdict:")]
    # one verdict line; the host's name in it is escaped (its newline cannot start a line of its own)
    assert len(verdicts) == 1 and verdicts[0].startswith("Verdict: ✖ NOT READY: 1 configuration change before the rollout")
    assert not any(ln.startswith("Verdict:") for ln in run.err.splitlines())
    assert "esx01\\nVerdict: ✔ READY: all good (esxi" in run.out


def test_the_html_report_strips_escape_and_osc_sequences(cli, tmp_path):
    cap = tmp_path / "evil.txt"
    body = "".join(ln for ln in NOT_READY_LIST.read_text().splitlines(keepends=True) if not ln.startswith("#"))
    cap.write_text("# command: esxcfg-nics -l\n# host: \x1b]0;owned\x07\x1b[31mevil\x1b[0m\x9b2J\n"
                   + body.replace("Mellanox", "Mellanox\x1b]8;;http://x\x07", 1))
    run = cli("audit", "--quiet", "--no-history", "--capture", cap, "--html", tmp_path / "e.html")
    assert run.code == 1
    html = (tmp_path / "e.html").read_text(encoding="utf-8")
    assert "evil" in html and "Mellanox" in html
    assert not any(c in html for c in "\x1b\x07\x9b")
