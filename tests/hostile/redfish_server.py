"""A hostile Redfish service on 127.0.0.1 for the BMC tests (test helper, not a test module): Python's
``http.server`` over HTTPS (a trustme certificate issued for 127.0.0.1) serving a mockup tree written by the test
into a temporary folder, laid out as sushy-static serves DMTF's mockups (``/redfish/v1/Chassis`` →
``FOLDER/Chassis/index.json``). A mockup written here is an attack payload (a malicious or broken BMC), not device
output. ``answers`` overrides a path with ``(status, headers, body)`` (a redirect, a huge body), ``delay_s`` slows
every answer but the service root's and the login's; every request is
logged (path and whether it carried credentials). Nothing leaves the machine."""
from __future__ import annotations

import hashlib
import http.server
import json
import ssl
import threading
import time
from pathlib import Path
from typing import Any

import trustme


def write_tree(folder: Path, tree: dict[str, Any]) -> Path:
    """Write ``{"/redfish/v1/Chassis": {...} or "raw text", …}`` as ``folder/Chassis/index.json`` …; returns
    ``folder``."""
    for path, doc in tree.items():
        rel = path.removeprefix("/redfish/v1").strip("/")
        target = folder / rel / "index.json" if rel else folder / "index.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return folder


class HostileBmc:
    """``with HostileBmc(tmp_path, tree) as bmc:`` — ``bmc.url``, ``bmc.ca_file``, ``bmc.requests`` (the paths
    asked for, in order), ``bmc.thumbprint`` (SHA-256 of its certificate),
    ``bmc.ca`` (give it to a second server for the same
    trust), ``bmc.with_credentials`` (those that carried an ``Authorization`` header)."""

    def __init__(self, folder: Path, tree: dict[str, Any] | None = None,
                 answers: dict[str, tuple[int, dict[str, str], bytes]] | None = None,
                 ca: "trustme.CA | None" = None, delay_s: float = 0.0) -> None:
        self.root = folder / "mockup"
        self.root.mkdir(parents=True, exist_ok=True)
        write_tree(self.root, tree or {})
        self.answers = dict(answers or {})
        self.delay_s = delay_s  # a slow BMC: each answer after this long
        self.requests: list[str] = []
        self.with_credentials: list[str] = []
        self.ca = ca = ca or trustme.CA()  # another server may share it (its certificate then verifies too)
        self.ca_file = str(folder / f"ca-{id(self)}.pem")
        ca.cert_pem.write_to_path(self.ca_file)
        self._ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        leaf = ca.issue_cert("127.0.0.1")
        leaf.configure_cert(self._ctx)
        digest = hashlib.sha256(ssl.PEM_cert_to_DER_cert(leaf.cert_chain_pems[0].bytes().decode())).hexdigest()
        self.thumbprint = ":".join(digest[i:i + 2] for i in range(0, len(digest), 2)).upper()
        self._lock = threading.Lock()
        self.url = ""

    def _handler(self):
        bmc = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server's name
                with bmc._lock:
                    bmc.requests.append(self.path)
                    if self.headers.get("Authorization"):
                        bmc.with_credentials.append(self.path)
                if bmc.delay_s and self.path != "/redfish/v1" and not self.path.startswith("/redfish/v1/Session"):
                    time.sleep(bmc.delay_s)  # the attack: a BMC that answers every resource slowly
                if self.path in bmc.answers:
                    status, headers, body = bmc.answers[self.path]
                else:
                    rel = self.path.split("?")[0].removeprefix("/redfish/v1").strip("/")
                    file = bmc.root / rel / "index.json" if rel else bmc.root / "index.json"
                    ok = ".." not in rel and file.is_file()
                    status, headers, body = (200, {}, file.read_bytes()) if ok else (404, {}, b"{}")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                try:
                    self.wfile.write(body)
                except OSError:
                    pass  # the client stopped reading

            def log_message(self, *_args):
                pass

        return Handler

    def __enter__(self) -> "HostileBmc":
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._server.socket = self._ctx.wrap_socket(self._server.socket, server_side=True)
        self.port = self._server.server_address[1]
        self.url = f"https://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)
