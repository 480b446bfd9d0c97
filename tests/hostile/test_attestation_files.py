"""Hostile review (attestations, ``--attestations FILE`` and ``nic-advisor attest --file FILE``): a FIFO given as the
file (the read waited for a writer forever), a file nested deeper than the recursion limit (a RecursionError
traceback), 200,000 empty attestations in 600 kB (the schema check collected an error object per item: 3.3 GB at
80,000), control characters or bidirectional overrides in WHO (a forged "attested by" in a view that shows text as
it is), a date years in the future. Each is refused with a clear message naming the file — in a child limited to
1 GiB and 60 s of CPU time (conftest.py), with no traceback — and the audit does not run on half of the file."""
from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOST = ROOT / "resources" / "demo-lab" / "linux-igb-mfd"
GOOD = {"check": "pcie", "host": "linux-igb-mfd", "pnic": "enp2s0", "value": {"pcie_width": 4}, "who": "Alice Admin",
        "when": "2026-11-30", "how": "BIOS PCIe slot page"}


def _audit(cli, path: Path, tmp_path: Path):
    return cli("audit", "--capture", HOST, "--no-history", "--json", tmp_path / "audit.json", "--attestations", path)


def _write(tmp_path: Path, *items: dict) -> Path:
    f = tmp_path / "attested.json"
    f.write_text(json.dumps({"attestations": list(items)}), encoding="utf-8")
    return f


def test_a_fifo_is_refused_not_waited_on(tmp_path, cli):
    fifo = tmp_path / "attested.yaml"
    os.mkfifo(fifo)
    run = _audit(cli, fifo, tmp_path)
    assert run.code == 2 and "not a regular file" in run.err and str(fifo) in run.err, run.err
    run = cli("attest", "--file", fifo, "--check", "mtu", "--host", "h", "--pnic", "p", "--value", "mtu=9000",
              "--who", "a", "--how", "b")
    assert run.code == 2 and "not a regular file" in run.err, run.err


@pytest.mark.parametrize("text", ["attestations: " + "[" * 50_000 + "]" * 50_000,
                                  '{"attestations": ' + "{\"a\": " * 30_000 + "1" + "}" * 30_001])
def test_a_file_nested_past_the_recursion_limit_is_refused(tmp_path, cli, text):
    f = tmp_path / "deep.yaml"
    f.write_text(text)
    run = _audit(cli, f, tmp_path)
    assert run.code == 2 and str(f) in run.err and "nested" in run.err, run.err


def test_two_hundred_thousand_empty_attestations_cost_bounded_memory(tmp_path, cli):
    f = tmp_path / "many.json"
    f.write_text('{"attestations": [' + ",".join(["{}"] * 200_000) + "]}")
    run = _audit(cli, f, tmp_path)
    assert run.code == 2 and "200000 attestations" in run.err and "at most 10000" in run.err, run.err


def test_ten_thousand_broken_attestations_name_the_first(tmp_path):
    from nicadvisor.services.attestations import AttestationError, load_attestations

    f = tmp_path / "broken.json"
    f.write_text(json.dumps({"attestations": [GOOD] + [{}] * 9_999}))
    with pytest.raises(AttestationError, match=r"attestation 2: 'check' is a required property"):
        load_attestations(f)


@pytest.mark.parametrize("field,value", [("who", "Alice\x1b[2J Admin"), ("who", "\u202eAlice"),
                                         ("host", "linux-igb-mfd\n"), ("how", "photo\x07"), ("pnic", "enp2s0\u2066")])
def test_control_and_bidi_characters_are_refused(tmp_path, field, value):
    from nicadvisor.services.attestations import AttestationError, load_attestations

    with pytest.raises(AttestationError, match=rf"attestation 1, field {field}: .*control or bidirectional"):
        load_attestations(_write(tmp_path, {**GOOD, field: value}))


def test_a_sentence_of_several_lines_is_still_a_how(tmp_path):
    from nicadvisor.services.attestations import load_attestations

    (a,) = load_attestations(_write(tmp_path, {**GOOD, "how": "BIOS slot page.\n\tPhoto: evidence/slot2.jpg"}))
    assert a.how.startswith("BIOS slot page.")


def test_a_date_in_the_future_is_refused(tmp_path):
    from nicadvisor.services.attestations import AttestationError, load_attestations

    later = (dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=3)).date().isoformat()
    with pytest.raises(AttestationError, match=rf"attestation 1, field when: '{later}' is in the future"):
        load_attestations(_write(tmp_path, {**GOOD, "when": later}))
    with pytest.raises(AttestationError, match="in the future"):
        load_attestations(_write(tmp_path, {**GOOD, "when": "2999-12-31T23:59:59Z"}))
    # tomorrow (UTC) is today somewhere east of UTC: allowed
    tomorrow = (dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=1)).date().isoformat()
    assert load_attestations(_write(tmp_path, {**GOOD, "when": tomorrow}))[0].when == tomorrow


def test_an_evidence_path_is_text_never_opened_or_linked(tmp_path, cli):
    """What held: ``how`` naming a file outside the folder, or markup, is shown as text (HTML escaped), never read."""
    f = _write(tmp_path, {**GOOD, "how": "../../../../etc/shadow <a href='javascript:x'>photo</a>"})
    html = tmp_path / "audit.html"
    run = cli("audit", "--capture", HOST, "--no-history", "--html", html, "--attestations", f)
    assert run.code != 3 and html.exists(), run.err
    text = html.read_text()
    assert "../../../../etc/shadow &lt;a href=" in text and "<a href='javascript" not in text
