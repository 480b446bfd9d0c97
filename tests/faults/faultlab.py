"""Shared pieces of the fault tests (test helper, not a test module): the live stand-ins of the other test
folders, reused by putting ``tests/live``, ``tests/ssh`` and ``tests/nsx`` on ``sys.path``.

* :class:`ForbiddingNsx`: the NSX Manager stand-in of ``tests/nsx/nsx_responder.py`` (real example responses
  of ``shared/fixtures/nsx-api``) whose user logs in but lacks the role for some endpoints: those answer
  ``403`` with an NSX ``ApiError`` body (:data:`FORBIDDEN_BODY`);
* :class:`SshLab`: a throw-away local (non-root) account, a client key, and two real OpenSSH sshd with the ESXi
  personality (answers are real captures), each with its own fault-injection file (``tests/ssh/sshd_harness.py``).
"""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
for _sub in ("live", "ssh", "nsx"):
    if str(TESTS / _sub) not in sys.path:
        sys.path.insert(0, str(TESTS / _sub))

import sshd_harness as H  # noqa: E402
from nsx_responder import NsxResponder, _Handler  # noqa: E402

from capturetools import CAPTURES  # noqa: E402

from nicadvisor.collect.ssh import SshTarget  # noqa: E402



NSX_USER, NSX_PASSWORD = "nsx-auditor", "Pw-nsx-3e91d0"

#: The NSX 3.0 lab of shared/fixtures/nsx-api: host transport nodes esx03.lab, esx04.lab, esx05.lab (VDS).
NSX30_ROUTES = {
    "/api/v1/node/version": "GET_api_v1_node_version_nsx3133_nsxoperator_fixture.json",
    "/api/v1/host-switch-profiles": "GET_api_v1_host-switch-profiles_list_nsx22_mtu1700_vlan12_apnex.json",
    "/api/v1/host-switch-profiles/d3804574-de10-4b2f-b92b-a5a29def128b":
        "GET_api_v1_host-switch-profiles_id_nsx3x_uplink_mtu1600_lag_saltfixture.json",
    "/api/v1/global-configs": "GET_api_v1_global-configs_list_SwitchingGlobalConfig_apiref_latest.PARTIAL.txt",
    "/api/v1/transport-nodes": "GET_api_v1_transport-nodes_list_nsx30_vds_STANDARD_apnex.json",
    "/api/v1/transport-zones": "GET_api_v1_transport-zones_list_nsx30_apnex.json",
}

#: The body a forbidden GET gets: the NSX ``ApiError`` shape (``error_code``, ``error_message``,
#: ``module_name``; NSX-T REST API reference, ApiError schema), with the 403 description of the API
#: reference's error list ("The client does not have sufficient privileges to execute the request.").
#: The code is 401 as in the "401 Forbidden" Broadcom KB 390631 / 435871 describe for users whose role lacks
#: a Manager API feature; what matters here is that it is NOT 98 (expired session, nsx-api.md §3).
FORBIDDEN_BODY = {"module_name": "common-services", "error_code": 401,
                  "error_message": "The client does not have sufficient privileges to execute the request."}


class _ForbiddingHandler(_Handler):
    """The responder's handler, answering ``403`` + :data:`FORBIDDEN_BODY` to an authenticated GET of a
    path in ``responder.forbidden`` (the login itself succeeds: the account exists, its role is short)."""

    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        r = self.server.responder
        path = self.path.split("?", 1)[0]
        if path in r.forbidden and self._authorised() == "ok":
            r.log.append(("GET", path, {"status": "403"}))
            self._json(403, FORBIDDEN_BODY)
            return
        super().do_GET()


class ForbiddingNsx(NsxResponder):
    """:class:`NsxResponder` whose ``forbidden`` paths answer 403 (see :class:`_ForbiddingHandler`).

    Forbidden GETs appear in ``log`` with the query ``{"status": "403"}``.
    """

    def __init__(self, routes: dict[str, str], ctx, forbidden: tuple[str, ...], **kw) -> None:
        super().__init__(routes, ctx, **kw)
        self.forbidden = set(forbidden)
        self._server.RequestHandlerClass = _ForbiddingHandler


@dataclass(frozen=True)
class NsxCert:
    """``ctx`` (server SSLContext of the self-signed certificate) and ``thumbprint`` (``AA:BB:…``) to pin."""

    ctx: object
    thumbprint: str


class SshLab:
    """``user`` (H.TestUser, not root), ``client_key``, ``esxi`` and ``esxi2`` (sshd with the ESXi personality;
    ``behaviour(sshd, **faults)`` sets that one's faults: ``sleep={cmd: s}``, ``die=[cmd]``, ``garbage=[cmd]``)."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.user = H.TestUser(base)
        self.client_key = H.keygen(base / "client_key")
        self.authorized_keys = base / "authorized_keys"
        self.authorized_keys.write_text(Path(str(self.client_key) + ".pub").read_text())
        self.authorized_keys.chmod(0o644)
        self.sshds: list[H.Sshd] = []
        self._files: dict[int, Path] = {}
        self.esxi = self._personality("a")
        self.esxi2 = self._personality("b")

    def _personality(self, tag: str) -> H.Sshd:
        path = self.base / f"behaviour_{tag}.json"
        path.write_text("{}")
        path.chmod(0o644)
        sshd = H.Sshd(self.base, self.user.name, self.authorized_keys, tag=f"esxi-{tag}",
                      force_command=H.personality_command(CAPTURES, path))
        self._files[id(sshd)] = path
        self.sshds.append(sshd)
        return sshd

    def behaviour(self, sshd: H.Sshd, **faults) -> None:
        self._files[id(sshd)].write_text(json.dumps(faults))

    def target(self, sshd: H.Sshd, **kw) -> SshTarget:
        """A target for ``sshd`` with the client key and the pinned host key (overridable)."""
        args = dict(host=sshd.listen, port=sshd.port, user=self.user.name, kind="esxi",
                    key_filename=str(self.client_key), trusted_fingerprint=sshd.fingerprint,
                    connect_timeout_s=5.0, command_timeout_s=10.0)
        args.update(kw)
        return SshTarget(**args)


