"""``nic-advisor verify`` on the command line (issue 25 §4): the approved audit's own capture inputs read again, new
captures given with ``--capture`` instead, its usage errors (exit 2, said in a sentence), and ``--bench``: the
approved audit's benchmark run again on the same path (the quick benchmark between two network namespaces shaped to
100 Mbit/s with tc tbf, real netperf), shown before and after beside its band."""
from __future__ import annotations

import json
import shutil

import pytest

from nicadvisor.cli import main
from nicadvisor.paths import demo_lab_dir

HOST = "esxi-sio4-nsxv"  # a demo host with a VDS and a TEP vmknic at MTU 1600


@pytest.fixture
def history(tmp_path, monkeypatch):
    for var in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.setenv(var, str(tmp_path / "xdg" / var.lower()))
    return tmp_path


def test_verify_reads_the_stored_captures_again_or_new_ones(history, capsys):
    folder = history / HOST
    shutil.copytree(demo_lab_dir() / HOST, folder)
    # NOT RATED, with three MTU warnings: the rules branch's fabric item beside the switch's and the TEP's
    assert main(["audit", "--capture", str(folder), "--quiet"]) == 2
    capsys.readouterr()
    assert main(["verify", "--against", "1", "--quiet", "--json", str(history / "r.json")]) == 1
    out = capsys.readouterr().out
    doc = json.loads((history / "r.json").read_text(encoding="utf-8"))
    assert doc["new_audit"]["audit_id"] == 2 and doc["counts"]["not done"] == len(doc["checks"]) > 0
    assert [c["rule_id"] for c in doc["checks"]] == ["fabric-mtu-for-overlay", "switch-mtu-below-1700",
                                                     "tep-mtu-below-1700"]
    assert "[not done] item" in out and f"{HOST}/vDS-C-Transport" in out and "Result: 0 of 3 plan targets done, 3 not done" in out

    # the captures moved: the stored path is gone, so nothing is re-read; new captures are given instead
    moved = history / "moved" / HOST
    folder.rename(history / "elsewhere")
    moved.parent.mkdir()
    (history / "elsewhere").rename(moved)
    assert main(["verify", "--against", "1", "--quiet"]) == 2
    assert "not re-read" in capsys.readouterr().out
    assert main(["verify", "--against", "1", "--capture", str(moved), "--quiet"]) == 1
    assert "[not done]" in capsys.readouterr().out


def test_verify_usage_errors_exit_2(history, capsys):
    assert main(["verify", "--against", "7", "--quiet"]) == 2
    assert "nic-advisor history" in capsys.readouterr().err  # where the ids are
    with pytest.raises(SystemExit) as exc:
        main(["verify"])
    assert exc.value.code == 2  # --against is required


@pytest.mark.root
def test_verify_runs_the_benchmark_again_beside_its_band(history, capsys):
    assert main(["audit", "--demo", "--bench", "--netns", "--rate-mbit", "100", "--duration", "1", "--quiet"]) == 1
    capsys.readouterr()
    # it changes this machine while it runs (namespaces): never without --yes
    assert main(["verify", "--against", "1", "--bench", "--quiet"]) == 2
    assert "--yes" in capsys.readouterr().err
    record = history / "record.json"
    assert main(["verify", "--against", "1", "--bench", "--yes", "--quiet", "--json", str(record)]) == 1
    out = capsys.readouterr().out
    doc = json.loads(record.read_text(encoding="utf-8"))
    stream = next(b for b in doc["benchmarks"] if b["label"].startswith("TCP_STREAM"))
    assert "shaped to 100 Mbit/s" in stream["label"]  # the same path: the rate read back from the approved run
    assert stream["before"] is not None and stream["after"] is not None  # one row, both runs
    assert 0 < stream["after"] < 0.11 and stream["unit"] == "Gbit/s"  # under the 100 Mbit/s tbf (and its burst)
    assert stream["expected"].endswith("Mbit/s") and "…" in stream["expected"]
    assert stream["verdict_before"] in ("pass", "warn", "fail") and stream["verdict_after"] in ("pass", "warn", "fail")
    assert "benchmark TCP_STREAM" in out and "Mbit/s →" in out
