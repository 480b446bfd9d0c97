"""A capture file whose header does not name a command a parser reads, but whose note does (as admins and public
posts write them): the audit of the folder reads it with the command of the note (parsers/assemble.py passes the
notes to the parsers). The text is a real capture's, the header rewritten."""
from __future__ import annotations

from capturetools import capture_path
from nicadvisor.collect.sources import read_capture
from nicadvisor.services.audit import AuditRequest, run_audit

REAL = "esxi_esxcfg-nics-l_nmlx5_core_connectx5_25g_esxi703.txt"


def test_a_command_named_only_in_the_note_is_read(tmp_path):
    cap = read_capture(capture_path(REAL))
    host = tmp_path / "esx-note"
    host.mkdir()
    (host / "nics.txt").write_text("# command: see the note\n# note: output of 'esxcfg-nics -l' on the host\n"
                                   + cap.text, encoding="utf-8")
    audit = run_audit(AuditRequest(capture_paths=(str(tmp_path),)))
    (h,) = audit.hosts
    assert {p.name for p in h.pnics} >= {"vmnic0", "vmnic1"}
    assert not [p for p in audit.inputs_not_understood if p.source.endswith("nics.txt")]
