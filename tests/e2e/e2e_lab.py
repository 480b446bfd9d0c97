"""Shared pieces of the end-to-end CLI tests (test helper, not a test module): the distinctive passwords,
an in-memory keyring backend, certificate thumbprints, and handles of the three live stand-ins.

The stand-ins are the existing harnesses, reused by putting ``tests/live``, ``tests/ssh`` and
``tests/nsx`` on ``sys.path``: ``vcsimtools`` (govmomi's vcsim), ``sshd_harness`` (real OpenSSH sshd
with the ESXi personality answering with real captures), ``nsx_responder`` (HTTPS responder of the real
``shared/fixtures/nsx-api`` responses); the self-signed NSX certificate is made by ``tests/nsx/nsx_certs.py``.
"""
from __future__ import annotations

import hashlib
import os
import ssl
import sys
from dataclasses import dataclass
from pathlib import Path


TESTS = Path(__file__).resolve().parents[1]
for _sub in ("live", "ssh", "nsx"):
    if str(TESTS / _sub) not in sys.path:
        sys.path.insert(0, str(TESTS / _sub))

import sshd_harness as H  # noqa: E402
from nsx_responder import NsxResponder  # noqa: E402
from vcsimtools import USER, ToolMissing, Vcsim, start_vcsim  # noqa: E402
from testkeyring import MemoryKeyring

__all__ = ["H", "NSX30_ROUTES", "ORIGINAL_XDG", "PASSWORDS", "PW_NSX", "PW_SSH", "PW_VC", "USER", "EsxiSsh",
           "MemoryKeyring", "Nsx", "NsxResponder", "ToolMissing", "Vcsim", "cert_thumbprint",
           "start_vcsim"]

#: The passwords of the three targets: distinctive, so the secret scan cannot match anything else.
PW_VC, PW_SSH, PW_NSX = "Pw-vc-7f3a9c", "Pw-ssh-51b0e2", "Pw-nsx-c4d871"
PASSWORDS = (PW_VC, PW_SSH, PW_NSX)

#: The XDG folders tests/conftest.py set for the whole run (scanned too by the secret test).
ORIGINAL_XDG = tuple(os.environ[v] for v in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME")
                     if os.environ.get(v))

#: The NSX 3.0 lab of shared/fixtures/nsx-api: host transport nodes esx03.lab, esx04.lab, esx05.lab on a
#: VDS (mode STANDARD), plus an edge (left out by the collector).
NSX30_ROUTES = {
    "/api/v1/node/version": "GET_api_v1_node_version_nsx3133_nsxoperator_fixture.json",
    "/api/v1/host-switch-profiles": "GET_api_v1_host-switch-profiles_list_nsx22_mtu1700_vlan12_apnex.json",
    "/api/v1/host-switch-profiles/d3804574-de10-4b2f-b92b-a5a29def128b":
        "GET_api_v1_host-switch-profiles_id_nsx3x_uplink_mtu1600_lag_saltfixture.json",
    "/api/v1/global-configs": "GET_api_v1_global-configs_list_SwitchingGlobalConfig_apiref_latest.PARTIAL.txt",
    "/api/v1/transport-nodes": "GET_api_v1_transport-nodes_list_nsx30_vds_STANDARD_apnex.json",
    "/api/v1/transport-zones": "GET_api_v1_transport-zones_list_nsx30_apnex.json",
}




def cert_thumbprint(host: str, port: int) -> str:
    """SHA-256 of the server's leaf certificate as ``AA:BB:…`` (read with :mod:`ssl`, unverified; not
    with the app's own code, so the pin is an independent reading)."""
    der = ssl.PEM_cert_to_DER_cert(ssl.get_server_certificate((host, port), timeout=10))
    h = hashlib.sha256(der).hexdigest().upper()
    return ":".join(h[i:i + 2] for i in range(0, 64, 2))




@dataclass
class EsxiSsh:
    """The SSH ESXi stand-in: ``user`` (login name), ``port``, ``fingerprint`` (``SHA256:…`` of its host key)."""

    user: str
    port: int
    fingerprint: str

    @property
    def name(self) -> str:
        """The host's name in the audit (``host:port`` for a port other than 22)."""
        return f"127.0.0.1:{self.port}"

    @property
    def source(self) -> str:
        return f"ssh://{self.user}@127.0.0.1:{self.port}"


@dataclass
class Nsx:
    """The NSX stand-in: ``srv`` (NsxResponder), ``thumbprint`` (``AA:BB:…``) of its self-signed certificate."""

    srv: NsxResponder
    thumbprint: str

    @property
    def port(self) -> int:
        return self.srv.port
