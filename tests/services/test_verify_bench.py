"""``verify --against ID --bench`` runs the approved audit's benchmark again on the same path (issue 25 §4 "The
measurements"): here the quick benchmark between two network namespaces shaped to 100 Mbit/s with tc tbf (real
netperf), once in the approved audit and once in the verification, shown before and after beside its band."""
from __future__ import annotations

import json

import pytest

from nicadvisor.cli import main

pytestmark = pytest.mark.root


@pytest.fixture
def history(tmp_path, monkeypatch):
    for var in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.setenv(var, str(tmp_path / "xdg" / var.lower()))
    return tmp_path


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
