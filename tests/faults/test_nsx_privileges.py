"""NSX Manager with an account that logs in but whose role lacks read access (HTTP 403, error_code not 98):
a clear problem naming the endpoint and the role needed, no re-login loop, and what can be read is read."""
from __future__ import annotations

import nsx_responder
from faultlab import FORBIDDEN_BODY, NSX30_ROUTES, NSX_PASSWORD, NSX_USER, ForbiddingNsx

from nicadvisor.collect.nsx import NsxTarget, collect_nsx


def _target(srv: ForbiddingNsx, cert, **kw) -> NsxTarget:
    return NsxTarget(srv.url, NSX_USER, NSX_PASSWORD, thumbprint=cert.thumbprint, timeout_s=5, **kw)


def test_transport_nodes_forbidden_is_one_clear_problem_without_relogin(nsx_cert):
    with ForbiddingNsx(NSX30_ROUTES, nsx_cert.ctx, ("/api/v1/transport-nodes",),
                       user=NSX_USER, password=NSX_PASSWORD) as srv:
        col = collect_nsx(_target(srv, nsx_cert))
    assert col.hosts == []
    (p,) = col.problems
    assert p.source == f"nsx://127.0.0.1:{srv.port}"
    assert p.message == (
        f"127.0.0.1:{srv.port}: no permission to read GET /api/v1/transport-nodes as user '{NSX_USER}' "
        f"(HTTP 403, error_code 401: {FORBIDDEN_BODY['error_message']}): the account needs an NSX role with read "
        "access to it, e.g. the built-in Auditor role (read-only); custom roles cannot grant Manager API access")
    assert NSX_PASSWORD not in p.message
    # logged in once, asked once: a 403 that is not an expired session (error_code 98) is never retried
    assert srv.logins == 1
    assert [(m, path) for m, path, _ in srv.log] == [("POST", "/api/session/create"),
                                                      ("GET", "/api/v1/node/version"),
                                                      ("GET", "/api/v1/transport-nodes")]


def test_basic_auth_forbidden_is_the_same_problem(nsx_cert):
    with ForbiddingNsx(NSX30_ROUTES, nsx_cert.ctx, ("/api/v1/transport-nodes",),
                       user=NSX_USER, password=NSX_PASSWORD) as srv:
        col = collect_nsx(_target(srv, nsx_cert, auth="basic"))
    (p,) = col.problems
    assert "no permission to read GET /api/v1/transport-nodes" in p.message and "error_code 401" in p.message
    assert [path for _, path, _ in srv.log].count("/api/v1/transport-nodes") == 1 and srv.logins == 0


def test_one_forbidden_endpoint_leaves_the_hosts_read(nsx_cert):
    """A role that reads transport nodes but not transport zones: that one list is a problem, the hosts are there."""
    with ForbiddingNsx(NSX30_ROUTES, nsx_cert.ctx, ("/api/v1/transport-zones",),
                       user=NSX_USER, password=NSX_PASSWORD) as srv:
        col = collect_nsx(_target(srv, nsx_cert))
    assert [h.name for h in col.hosts] == ["esx03.lab", "esx04.lab", "esx05.lab"]
    denied = [p for p in col.problems if "no permission" in p.message]
    assert len(denied) == 1
    assert denied[0].source == f"nsx://127.0.0.1:{srv.port}/api/v1/transport-zones"
    assert denied[0].message.startswith(f"transport zones not read: 127.0.0.1:{srv.port}: no permission to read "
                                        f"GET /api/v1/transport-zones as user '{NSX_USER}' (HTTP 403")
    assert srv.logins == 1


class _StringCode98(nsx_responder._Handler):
    """The responder's expired-session answer (403, error_code 98) with the code spelled as a string."""

    def _json(self, status, obj) -> None:
        if isinstance(obj, dict) and obj.get("error_code") == 98:
            obj = {**obj, "error_code": "98"}
        super()._json(status, obj)


def test_expired_session_with_error_code_as_a_string_relogs_once(nsx_cert):
    """NSX ApiError bodies carry ``error_code`` as a number or as a string (``"error_code" : "269"`` in a real
    answer): an expired session (98) is recognised either way, so it is not mistaken for a missing role."""
    with ForbiddingNsx(NSX30_ROUTES, nsx_cert.ctx, (), user=NSX_USER, password=NSX_PASSWORD, expire_after=2) as srv:
        srv._server.RequestHandlerClass = _StringCode98
        col = collect_nsx(_target(srv, nsx_cert))
    assert srv.logins == 2
    assert [h.name for h in col.hosts] == ["esx03.lab", "esx04.lab", "esx05.lab"]
    assert not any("not authenticated" in p.message or "no permission" in p.message for p in col.problems)
