"""What a person checked by hand (issue 24 §1): ``nic-advisor attest`` writes an attestation file checked against its
JSON Schema; ``audit --attestations FILE`` decides the cells the host did not tell as "attested by WHO on DATE" in
every view (CLI summary, wizard matrix, PDF, HTML, JSON, CSV) and lists them for the board; a reading taken on the
host wins and the disagreement is a finding. The host is the demo lab's real igb capture (linux-igb-mfd)."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from nicadvisor.cli import main
from nicadvisor.model.attestations import Attestation, apply_attestations
from nicadvisor.services.attestations import AttestationError, add_attestation, load_attestations

ROOT = Path(__file__).resolve().parents[2]
HOST = ROOT / "resources" / "demo-lab" / "linux-igb-mfd"
SCHEMA = json.loads((ROOT / "app" / "nicadvisor" / "report" / "audit.schema.json").read_text())
LABEL = "attested by Alice Admin on 2026-11-30"


@pytest.fixture(autouse=True)
def _own_folders(tmp_path, monkeypatch):
    for var in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.setenv(var, str(tmp_path / var.lower()))


def _attest(path: Path, *args: str) -> int:
    return main(["attest", "--file", str(path), "--host", "linux-igb-mfd", "--pnic", "enp2s0", *args])


def _pcie(path: Path) -> int:
    return _attest(path, "--check", "pcie", "--value", "pcie_speed_gts=5", "--value", "pcie_width=4",
                   "--value", "pcie_speed_capable_gts=5", "--value", "pcie_width_capable=4", "--who", "Alice Admin",
                   "--when", "2026-11-30", "--how", "BIOS PCIe slot page, photo evidence/slot2.jpg")


def test_attest_writes_a_valid_file_and_refuses_bad_values(tmp_path, capsys):
    f = tmp_path / "attested.yaml"
    assert _pcie(f) == 0
    doc = yaml.safe_load(f.read_text())
    assert doc["attestations"][0]["value"] == {"pcie_speed_gts": 5.0, "pcie_width": 4, "pcie_speed_capable_gts": 5.0,
                                               "pcie_width_capable": 4}
    before = f.read_text()
    # a width no PCIe link has, a fact of another check, a date that does not exist: refused, nothing written
    assert _attest(f, "--check", "pcie", "--value", "pcie_width=3", "--who", "a", "--how", "b") == 2
    assert _attest(f, "--check", "mtu", "--value", "pcie_width=4", "--who", "a", "--how", "b") == 2
    assert _attest(f, "--check", "mtu", "--value", "mtu=9000", "--who", "a", "--how", "b", "--when",
                   "2026-02-30") == 2
    err = capsys.readouterr().err
    assert "attestation 2, field value.pcie_width" in err and "not a date that exists" in err
    assert f.read_text() == before


def test_a_file_that_breaks_the_schema_names_the_attestation_and_field(tmp_path):
    f = tmp_path / "a.json"
    f.write_text(json.dumps({"attestations": [{"check": "mtu", "host": "h", "pnic": "vmnic0", "value": {"mtu": 9000},
                                               "who": "x", "when": "2026-11-30", "how": "y"},
                                              {"check": "link", "host": "h", "value": {"link_up": True},
                                               "who": "x", "when": "2026-11-30", "how": "y"}]}))
    with pytest.raises(AttestationError, match="attestation 2: 'pnic' is a required property"):
        load_attestations(f)
    f.write_text("attestations: [")
    with pytest.raises(AttestationError, match="not YAML or JSON"):
        load_attestations(f)


def _audit(tmp_path: Path, attested: Path, capsys) -> tuple[int, str, Path]:
    out = tmp_path / "out"
    # the full summary: --quiet (board branch) prints only the verdict and one line per group of alike hosts
    code = main(["audit", "--capture", str(HOST), "--no-history", "--attestations", str(attested),
                 "--json", str(out / "a.json"), "--csv", str(out / "a.csv"), "--html", str(out / "a.html"),
                 "--pdf", str(out / "a.pdf")])
    return code, capsys.readouterr().out, out


def test_an_attestation_decides_the_cell_in_every_view_and_is_listed_for_the_board(tmp_path, capsys):
    f = tmp_path / "attested.yaml"
    assert _pcie(f) == 0
    capsys.readouterr()
    _code, summary, out = _audit(tmp_path, f, capsys)
    # CLI summary: the value with its marker, and the board's list
    assert f"  enp2s0 {LABEL}: pcie speed gts 5, pcie width 4" in summary
    assert "Attested by hand (1; a reading on the host wins)" in summary and ": decided, decides pcie" in summary
    # JSON: the cell and the array, valid against the schema
    doc = json.loads((out / "a.json").read_text())
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)
    cell = doc["hosts"][0]["pnics"][0]["capabilities"]["pcie"]
    assert cell["status"] == "pass" and cell["text"].endswith(f"· {LABEL}") and "not read on the host" in cell["reason"]
    assert [(a["label"], a["status"], a["how"]) for a in doc["attestations"]] == \
        [(LABEL, "decided", "BIOS PCIe slot page, photo evidence/slot2.jpg")]
    ev = doc["hosts"][0]["pnics"][0]["evidence"]["pcie_width"]
    assert ev["command"] == LABEL  # never a command run on the host
    # CSV: the inventory says where the value came from; the attestations file lists it
    inv = list(csv.DictReader(io.StringIO((out / "a-inventory.csv").read_text(encoding="utf-8-sig"))))
    assert f"pcie_width: {LABEL}" in inv[0]["not_read_on_host"]
    rows = list(csv.DictReader(io.StringIO((out / "a-attestations.csv").read_text(encoding="utf-8-sig"))))
    assert rows[0]["label"] == LABEL and rows[0]["status"] == "decided"
    # HTML and PDF: the cell and the board's section
    html = (out / "a.html").read_text()
    assert "Checked by hand: attestations (1)" in html and LABEL in html
    from pypdf import PdfReader

    text = " ".join(" ".join((p.extract_text() or "").split()) for p in PdfReader(out / "a.pdf").pages)
    assert "Checked by hand: attestations (1)" in text and "Alice Admin on 2026-11-30" in text


def test_the_host_reading_wins_and_the_disagreement_is_a_finding(tmp_path, capsys):
    f = tmp_path / "attested.yaml"
    # the capture's ethtool -k reads tx-udp_tnl-segmentation on with tx-gso-partial on: igb's GSO_PARTIAL tunnel
    # TSO, which the rules branch reads as no Geneve offload (geneve_offload False); a person saw "yes"
    assert _attest(f, "--check", "geneve_offload", "--value", "geneve_offload=yes", "--who", "Carol",
                   "--when", "2026-11-29", "--how", "NIC vendor datasheet") == 0
    capsys.readouterr()
    _code, summary, out = _audit(tmp_path, f, capsys)
    doc = json.loads((out / "a.json").read_text())
    pnic = doc["hosts"][0]["pnics"][0]
    assert pnic["geneve_offload"] is False and pnic["evidence"]["geneve_offload"]["command"].startswith("ethtool")
    assert doc["attestations"][0]["status"] == "overruled"
    found = [x for x in doc["findings"] if x["rule_id"] == "attestation-disagrees"]
    assert len(found) == 1 and found[0]["severity"] == "info" and "Carol" in found[0]["message"]
    assert "attested by Carol" not in pnic["capabilities"]["geneve_offload"]["text"]


def test_an_attestation_for_a_host_not_audited_is_listed_not_applied():
    outcomes, findings = apply_attestations([], [Attestation("mtu", "esx-z", "vmnic0", {"mtu": 9000}, "a",
                                                             "2026-11-30", "b")])
    assert outcomes[0].status == "not applied" and "no host esx-z" in outcomes[0].note and findings == []


def test_add_attestation_creates_the_file(tmp_path):
    f = tmp_path / "new.yaml"
    add_attestation(f, Attestation("release", "esx-a", "", {"product_version": "8.0.3", "product_update": "Update 3"},
                                   "Dan", "2026-11-30", "vSphere client summary tab"))
    [a] = load_attestations(f)
    assert a.check == "release" and a.pnic == "" and a.source == str(f)


def test_hostile_files_are_refused_in_bounded_time(tmp_path):
    bomb = tmp_path / "bomb.yaml"  # each level 9 aliases of the one below: 9**7 items if expanded and quoted
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 7)]
    bomb.write_text("\n".join(lines) + "\nattestations: [*a6]\n")
    with pytest.raises(AttestationError, match="aliases"):
        load_attestations(bomb)
    huge = tmp_path / "huge.yaml"
    with huge.open("w") as fh:
        fh.write("attestations: []\n#" + "x" * (4 * 1024 * 1024) + "\n")
    with pytest.raises(AttestationError, match="larger than"):
        load_attestations(huge)
    long_value = tmp_path / "long.json"
    long_value.write_text(json.dumps({"attestations": [{"check": "mtu", "host": "h", "pnic": "p", "value": {"mtu": 9000},
                                                        "who": "w" * 100_000, "when": "2026-11-30", "how": "y"}]}))
    with pytest.raises(AttestationError) as err:
        load_attestations(long_value)
    assert len(str(err.value)) < 1000  # the message quotes the value, shortened
