"""Issue 29 §3: ``--save-captures`` files are attached to support cases, so no line of them keeps a secret the host
echoed: not the output, and not the ``# note:`` header holding its stderr, the command or the source either."""
from __future__ import annotations

from nicadvisor.model import Audit
from nicadvisor.model.text import SecretScrubber
from nicadvisor.parsers.assemble import HostInputs
from nicadvisor.parsers.capture_file import Capture
from nicadvisor.services.live import HostSink

SECRET = "pw-Kq3v9Xr2"


def test_every_line_of_a_saved_capture_is_scrubbed(tmp_path):
    # the red team's case: the host echoed the password on stderr, kept as the capture's note
    cap = Capture(source=f"ssh root@esx01 ({SECRET})", command=f"esxcli network nic list # {SECRET}",
                  text=f"Name  PCI\n{SECRET}\n", notes=(f"exit status 1: error: bad password {SECRET} / {SECRET}",),
                  origin=f"ssh://esx01 {SECRET}")
    sink = HostSink(Audit(), save_folder=str(tmp_path), scrub=SecretScrubber([SECRET]))
    sink._save([HostInputs(name="esx01", captures=[cap])], str(tmp_path))
    (saved,) = (tmp_path / "esx01").iterdir()
    text = saved.read_text(encoding="utf-8")
    assert SECRET not in text
    assert "# note: exit status 1: error: bad password *** / ***" in text.splitlines()
