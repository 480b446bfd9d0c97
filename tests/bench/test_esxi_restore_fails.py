"""Issue 29 §4 on the ESXi lab (tests/bench/esxi_lab.py): when the ESXi host refuses or never answers the restore of
the firewall ruleset the benchmark opened, the run does not end as a success: it exits 4 (EXIT_HOST_CHANGED), its
last line says ``HOST left changed: …`` with the exact esxcli command to undo it by hand, it never claims that every
change was put back, and the next start puts the ruleset back first (the journal row stays). Needs root."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from benchtools import needs_root  # noqa: E402
from esxi_lab import running_esxi_lab  # noqa: E402
from test_esxi_endpoint_lab import SET_OFF, _assert_put_back, _journal_dir  # noqa: E402
from nicadvisor import cli  # noqa: E402
from nicadvisor.bench.journal import read_entries  # noqa: E402

pytestmark = [needs_root, pytest.mark.root]
UNDO = "esxcli network firewall ruleset set -r remoteSerialPort -e false"


@pytest.fixture()
def lab():
    with running_esxi_lab() as lab:
        yield lab


@pytest.mark.parametrize("how", ["refuse", "hang"])
def test_a_restore_that_fails_or_hangs_exits_4_and_says_how_to_undo_it(lab, capsys, how):
    lab.set_state(**{how: [SET_OFF], "hang_s": 60})
    code = cli.main(lab.cli_args(esxi_first=False) + ["--tests", "TCP_STREAM", "--duration", "1", "--yes",
                                                      "--no-history", "--timeout", "8"])
    out, err = capsys.readouterr()
    assert code == cli.EXIT_HOST_CHANGED == 4, out + err
    assert lab.state()["rulesets"] == {"remoteSerialPort": True}  # the lab host really is left open
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"HOST left changed: {lab.esxi_target().name}: firewall ruleset remoteSerialPort "
                           "(was disabled); undo it by hand there with: " + UNDO), err
    assert "was put back" not in err and "changes undone" not in err
    assert [e.kind for e in read_entries(_journal_dir())] == ["esxi-ruleset"]  # kept for the next start

    # the next start: the host answers again, the ruleset is put back before anything else
    lab.set_state(refuse=[], hang=[])
    code = cli.main(lab.cli_args(esxi_first=False) + ["--tests", "TCP_STREAM", "--duration", "1", "--yes",
                                                      "--no-history"])
    out, err = capsys.readouterr()
    assert code in (0, 1), out + err
    assert "cleaned up after an earlier run: put back firewall ruleset remoteSerialPort" in err
    assert "HOST left changed" not in err
    _assert_put_back(lab)
