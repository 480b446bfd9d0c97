"""Issue 20 §4: an NSX Manager whose 403 page echoes the login form put the password on stderr and into the JSON,
HTML, verdict CSV and the history. Any server text stored or shown is now scrubbed of the secrets sent in that
session, in every form a server could echo them (as sent, URL-encoded, HTML- and JSON-escaped, Basic-auth base64).
The manager is the NSX stand-in (tests/nsx/nsx_responder.py) on loopback, told to echo what it was sent."""
from __future__ import annotations

import base64
import html
import json
import urllib.parse
from pathlib import Path

import pytest

from nsx_responder import NsxResponder

from nicadvisor.cli import main
from nicadvisor.store.history import default_history_path

#: A password with characters that each encoding changes (sent wrong: the manager refuses and echoes it).
SENT = "Wr0ng&Pass word!<é>\""


def _forms(secret: str) -> list[str]:
    return [secret, urllib.parse.quote(secret, safe=""), urllib.parse.quote_plus(secret), html.escape(secret),
            json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]]


def _leaked(blob: bytes | str) -> list[str]:
    data = blob if isinstance(blob, bytes) else blob.encode("utf-8", "replace")
    return [f for f in _forms(SENT) if f.encode() in data]


@pytest.fixture
def echoing_manager(self_signed_cert):
    with NsxResponder({}, self_signed_cert.ctx, user="auditor", password="the-right-one",
                      echo_form=True) as srv:
        yield srv, self_signed_cert.thumbprint


def test_a_403_page_echoing_the_login_form_leaks_the_password_nowhere(echoing_manager, tmp_path, capsys,
                                                                      monkeypatch):
    srv, thumbprint = echoing_manager
    monkeypatch.setenv("NIC_ADVISOR_NSX_PASSWORD", SENT)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # a history of this test's own
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    out = tmp_path / "out"
    code = main(["audit", "--nsx", srv.url, "--user", "auditor", "--thumbprint", f"127.0.0.1:{srv.port}={thumbprint}",
                 "--json", str(out / "a.json"), "--html", str(out / "a.html"), "--csv", str(out / "a.csv"),
                 "--pdf", str(out / "a.pdf")])
    printed = capsys.readouterr()
    assert code == 2
    assert "login refused for user 'auditor' (HTTP 403, error_code 403: Authentication failed for request " \
           "j_username=auditor&j_password=***)" in printed.err  # the echo is shown, the secret is not
    assert not _leaked(printed.out) and not _leaked(printed.err)
    written = [p for p in out.iterdir() if p.is_file()]
    assert {p.name for p in written} >= {"a.json", "a.html", "a.csv", "a-verdict.csv", "a.pdf"}
    assert {p.name: _leaked(p.read_bytes()) for p in written if _leaked(p.read_bytes())} == {}
    assert "j_password=***" in (out / "a-verdict.csv").read_text(encoding="utf-8-sig")
    history = default_history_path()
    stored = b"".join(p.read_bytes() for p in history.parent.glob(history.name + "*"))
    assert b"j_password=***" in stored and not _leaked(stored)
    assert main(["history", "1"]) == 2
    again = capsys.readouterr()
    assert "j_password=***" in again.out + again.err and not _leaked(again.out + again.err)


def test_every_form_of_a_secret_is_scrubbed():
    from nicadvisor.model.text import SecretScrubber

    scrub = SecretScrubber([SENT], [("auditor", SENT)])
    basic = base64.b64encode(f"auditor:{SENT}".encode()).decode()
    for form in [*_forms(SENT), basic]:
        assert scrub(f"before {form} after") == "before *** after", form
    assert scrub("nothing secret") == "nothing secret"
    assert SecretScrubber(["abc"])("abc") == "abc"  # too short to scrub without destroying the text


def test_test_connection_of_a_manager_echoing_the_login_form_shows_no_password(echoing_manager, tmp_path,
                                                                               monkeypatch):
    """The wizard's "Test connection" (services/connection.py) shows the manager's answer: scrubbed as the audit's."""
    from nicadvisor.services.connection import check_nsx
    from nicadvisor.services.targets import NsxEntry

    srv, thumbprint = echoing_manager
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # a pin store of this test's own
    entry = NsxEntry(url=srv.url, user="auditor", thumbprint=thumbprint)
    result = check_nsx(entry, lambda *_a, **_k: SENT, timeout=10)
    assert not result.ok
    assert "j_password=***" in result.message, result.message  # the echo is shown, the secret is not
    assert not _leaked(result.message) and not _leaked(" ".join(result.notes))
