"""Issue 29 §9: a right-to-left override in a host name reached the CLI, HTML, PDF, CSV and JSON as it is (on screen
"esx01" + "verdict: ✔ READY" turned around), and ``еsx03`` (Cyrillic е) looked like ``esx03``. Every view now
writes bidirectional controls as the escape ``\\u202e`` (the JSON value reads back the same), and a host name of
mixed scripts is marked, with its code points, in every view's problems."""
from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

from pypdf import PdfReader

from capturetools import CAPTURES

HOST_LIST = CAPTURES / "esxi_esxcfg-nics-l_nmlx5_core_connectx5_25g_esxi703.txt"
RLO = "\u202e"


def _host(parent: Path, name: str) -> Path:
    folder = parent / name
    folder.mkdir()
    shutil.copy(HOST_LIST, folder / "nics.txt")
    return folder


def test_a_bidi_override_is_escaped_in_every_view(cli, tmp_path):
    host = _host(tmp_path, f"esx01{RLO}:YDAER ✔ :tcidrev")
    out = {k: tmp_path / f"a.{k}" for k in ("json", "html", "pdf", "csv")}
    run = cli("audit", "--quiet", "--no-history", "--capture", host, *(a for k, p in out.items() for a in (f"--{k}", p)))
    assert run.code == 1, run.err
    shown = "esx01\\u202e:YDAER"
    assert RLO not in run.out + run.err and shown in run.out
    raw_json = out["json"].read_text(encoding="utf-8")
    assert RLO not in raw_json and json.loads(raw_json)["hosts"][0]["name"] == host.name  # the value is kept
    html = out["html"].read_text(encoding="utf-8")
    assert RLO not in html and shown in html
    pdf = "".join(p.extract_text() for p in PdfReader(out["pdf"]).pages)
    assert RLO not in pdf and shown in pdf
    rows = list(csv.reader(io.StringIO(out["csv"].with_name("a-verdict.csv").read_text(encoding="utf-8-sig"))))
    assert any(shown in cell for row in rows for cell in row) and not any(RLO in c for row in rows for c in row)


def test_a_host_name_of_mixed_scripts_is_marked(cli, tmp_path):
    _host(tmp_path, "esx03")
    _host(tmp_path, "\u0435sx03")  # Cyrillic small letter ie, then Latin
    run = cli("audit", "--quiet", "--no-history", "--capture", tmp_path / "esx03", tmp_path / "\u0435sx03",
              "--json", tmp_path / "a.json")
    sentence = "the host name '\\u0435sx03' mixes the scripts Cyrillic, Latin: it may imitate another host's name"
    assert sentence in run.err and run.code == 1  # marked, not a reason to leave the host unrated
    doc = json.loads((tmp_path / "a.json").read_text(encoding="utf-8"))
    assert any(p["message"] == sentence for p in doc["inputs_not_understood"])
    marked = [p["source"] for p in doc["inputs_not_understood"] if "mixes the scripts" in p["message"]]
    assert marked == ["\u0435sx03/nics.txt"]  # only the Cyrillic one, on its own input
