"""``nic-advisor vcg fetch``: the public vSAN HCL downloaded only on request, TLS verified, bounded, then imported
like a file. The server is a real HTTPS server on 127.0.0.1 with a test CA (trustme); no traffic leaves the machine."""
from __future__ import annotations

import http.server
import ssl
import threading
from pathlib import Path

import pytest
import trustme

from nicadvisor.cli import main
from nicadvisor.collect.guide_fetch import GuideFetchError, fetch_guide
from nicadvisor.vcg.guide_store import guide_dir, load_dataset

ALL_JSON = Path(__file__).with_name("guide_files") / "vsan_all_json_nic_59003.json"


class _Handler(http.server.BaseHTTPRequestHandler):
    body = ALL_JSON.read_bytes()

    def do_GET(self):  # noqa: N802 - http.server API
        if self.path == "/big.json":
            self.send_response(200)
            self.send_header("Content-Length", str(10 * 2**20))
            self.end_headers()
            self.wfile.write(b"[" * 65536)
            return
        if self.path != "/service/vsan/all.json":
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *_args):
        pass


@pytest.fixture
def https_server(tmp_path):
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    cert.configure_cert(ctx)
    server.socket = ctx.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    ca_file = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}", str(ca_file)
    finally:
        server.shutdown()
        server.server_close()


def test_fetch_downloads_verified_and_imports(https_server, capsys, tmp_path):
    base, ca = https_server
    try:
        assert main(["vcg", "fetch", "--url", f"{base}/service/vsan/all.json", "--ca-file", ca]) == 0
        out = capsys.readouterr().out
        assert "vsan-hcl, 6 listing(s)" in out and "imported as version 1" in out
        assert {g.driver for g in load_dataset().listings} == {"bnxtroce"}
    finally:
        for p in guide_dir().glob("guide*.json"):
            p.unlink()


def test_fetch_refuses_an_untrusted_certificate_and_changes_nothing(https_server, capsys):
    base, _ca = https_server
    assert main(["vcg", "fetch", "--url", f"{base}/service/vsan/all.json"]) == 2
    assert "TLS verification failed" in capsys.readouterr().err
    assert load_dataset() is None


def test_fetch_bounds(https_server, tmp_path):
    base, ca = https_server
    tmp_path = tmp_path / "downloads"
    tmp_path.mkdir()
    with pytest.raises(GuideFetchError, match="more than the 1048576 accepted"):
        fetch_guide(f"{base}/big.json", ca_file=ca, max_bytes=2**20, folder=tmp_path)
    with pytest.raises(GuideFetchError, match="HTTP 404"):
        fetch_guide(f"{base}/nothing.json", ca_file=ca, folder=tmp_path)
    with pytest.raises(GuideFetchError, match="only https://"):
        fetch_guide("http://127.0.0.1:1/all.json", folder=tmp_path)
    assert list(tmp_path.iterdir()) == []  # nothing half-written is left behind


def test_wizard_download_shows_the_diff_before_anything_is_imported(https_server, qtbot):
    from nicadvisor.gui.tasks import TaskRunner
    from nicadvisor.gui.widgets.guide_panel import GuidePanel

    base, ca = https_server
    runner = TaskRunner()
    panel = GuidePanel(runner)
    qtbot.addWidget(panel)
    try:
        assert panel.download(f"{base}/service/vsan/all.json", ca_file=ca, confirm=False)
        qtbot.waitUntil(lambda: panel.apply_button.isEnabled(), timeout=10_000)
        assert "1 device(s) added" in panel.diff.toPlainText() and load_dataset() is None
        panel.apply()
        qtbot.waitUntil(lambda: "version 1" in panel.status.text(), timeout=10_000)
    finally:
        runner.shutdown(5000)
        for p in guide_dir().glob("guide*.json"):
            p.unlink()
