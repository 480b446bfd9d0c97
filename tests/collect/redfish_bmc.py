"""A real Redfish service on 127.0.0.1 for the BMC tests (test helper, not a test module): sushy-tools' static
emulator (``sushy-static``) serving DMTF's public mockup ``redfish_mockups/public-tower`` (see its SOURCE.txt) over
HTTPS with a trustme certificate issued for 127.0.0.1. Nothing leaves the machine."""
from __future__ import annotations

import hashlib
import shutil
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path

import trustme

MOCKUPS = Path(__file__).parent / "redfish_mockups"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class StaticBmc:
    """``with StaticBmc(tmp_path) as bmc:`` — ``bmc.url`` (``https://127.0.0.1:PORT``), ``bmc.port``, ``bmc.ca_file``
    (the PEM of the CA that signed its certificate), ``bmc.thumbprint`` (SHA-256 of its certificate, ``AA:BB:…``)."""

    def __init__(self, folder: Path, mockup: str | Path = "public-tower", port: int = 0) -> None:
        ca = trustme.CA()
        leaf = ca.issue_cert("127.0.0.1")
        tag = hashlib.sha256(ca.cert_pem.bytes()).hexdigest()[:8]  # two servers in one folder keep their own files
        self.ca_file = str(folder / f"bmc-ca-{tag}.pem")
        ca.cert_pem.write_to_path(self.ca_file)
        self.cert, self.key = folder / f"bmc-cert-{tag}.pem", folder / f"bmc-key-{tag}.pem"
        leaf.cert_chain_pems[0].write_to_path(str(self.cert))
        leaf.private_key_pem.write_to_path(str(self.key))
        der = ssl.PEM_cert_to_DER_cert(leaf.cert_chain_pems[0].bytes().decode())
        digest = hashlib.sha256(der).hexdigest().upper()
        self.thumbprint = ":".join(digest[i:i + 2] for i in range(0, len(digest), 2))
        self.mockup = MOCKUPS / mockup  # a name under MOCKUPS, or a folder of its own (an absolute path)
        self.log = folder / "sushy-static.log"
        self.port = port  # 0: a free one
        self.url = ""
        self._proc: subprocess.Popen | None = None

    def __enter__(self) -> "StaticBmc":
        exe = shutil.which("sushy-static") or str(Path(sys.executable).parent / "sushy-static")
        for _attempt in range(5):  # a port taken between picking and binding: pick another
            self.port = self.port if self.port and _attempt == 0 else _free_port()
            self.url = f"https://127.0.0.1:{self.port}"
            with self.log.open("ab") as log:  # the child keeps its own descriptor
                self._proc = subprocess.Popen(
                    [exe, "-i", "127.0.0.1", "-p", str(self.port), "-m", str(self.mockup), "-c", str(self.cert),
                     "-k", str(self.key)], stdout=log, stderr=subprocess.STDOUT)
            if self._wait_listening():
                return self
            self._stop()
        raise RuntimeError(f"sushy-static did not start: {self.log.read_text(errors='replace')[-2000:]}")

    def _wait_listening(self, deadline_s: float = 60.0) -> bool:
        end = time.monotonic() + deadline_s
        while time.monotonic() < end:
            if self._proc is not None and self._proc.poll() is not None:
                return False
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return True
            except OSError:
                time.sleep(0.1)  # polling a condition (the port accepting), not a timed assertion
        return False

    def _stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(timeout=10)

    def __exit__(self, *exc: object) -> None:
        self._stop()
