"""The read-only NSX Manager client end to end, against a local HTTPS stand-in serving the real example
responses (tests/nsx/nsx_responder.py): hosts, modes and MTUs read, paging, PARTIAL responses, session
expiry and re-login, wrong password, TLS trust (CA bundle, refused self-signed, pinned), timeouts."""
from __future__ import annotations

import socket
import threading

import pytest

from nsx_responder import NsxResponder

from nicadvisor.cancel import Cancelled
from nicadvisor.parsers.assemble import assemble_host
from nicadvisor.collect.nsx import NsxTarget, collect_nsx

PASSWORD = "VMware1!VMware1!"

BASE_ROUTES = {
    "/api/v1/node/version": "GET_api_v1_node_version_nsx3133_nsxoperator_fixture.json",
    "/api/v1/host-switch-profiles": "GET_api_v1_host-switch-profiles_list_nsx22_mtu1700_vlan12_apnex.json",
    "/api/v1/host-switch-profiles/d3804574-de10-4b2f-b92b-a5a29def128b":
        "GET_api_v1_host-switch-profiles_id_nsx3x_uplink_mtu1600_lag_saltfixture.json",
    "/api/v1/global-configs": "GET_api_v1_global-configs_list_SwitchingGlobalConfig_apiref_latest.PARTIAL.txt",
}
ENS_INTR = {**BASE_ROUTES,
            "/api/v1/transport-nodes": "GET_api_v1_transport-nodes_list_nsx3x_nvds_ENS_INTERRUPT_saltfixture.json",
            "/api/v1/transport-zones": "GET_api_v1_transport-zones_list_nsx3x_saltfixture.json"}
NSX22 = {**BASE_ROUTES, "/api/v1/transport-nodes": "GET_api_v1_transport-nodes_list_nsx22_nvds_apnex.json"}
NSX22.pop("/api/v1/node/version")  # a 2.2 manager: the 3.1 version fixture would not belong
NSX30 = {**BASE_ROUTES,
         "/api/v1/transport-nodes": "GET_api_v1_transport-nodes_list_nsx30_vds_STANDARD_apnex.json",
         "/api/v1/transport-zones": "GET_api_v1_transport-zones_list_nsx30_apnex.json"}


def _target(srv, cert, **kw):
    return NsxTarget(srv.url, "admin", kw.pop("password", PASSWORD), ca_bundle=cert.ca_bundle, **kw)


def _messages(problems):
    return [p.message for p in problems]


def _only_reads(srv):
    assert {(m, p) for m, p, _ in srv.log if m != "GET"} <= {("POST", "/api/session/create")}


def test_ens_interrupt_nvds_end_to_end(trusted_cert):
    progress: list[str] = []
    with NsxResponder(ENS_INTR, trusted_cert.ctx) as srv:
        col = collect_nsx(_target(srv, trusted_cert), progress=progress.append)
    _only_reads(srv)
    assert col.trust.mode == "ca"
    assert col.inventory.version.product_version == "3.1.3.3.0.18844959"
    assert col.inventory.switching_config.physical_uplink_mtu == 1600  # from the truncated global-configs list
    (h,) = col.hosts
    assert (h.name, h.kind) == ("10.206.243.190", "esxi")
    assert col.aliases["10.206.243.190"] == ["10.206.243.190", "ESXi-mcm1514577-163356055792.eng.vmware.com",
                                             "ESXi-mcm1514577-163356055792"]
    cap, result = h.parsed[0]
    assert cap.source == f"nsx://127.0.0.1:{srv.port}/api/v1/transport-nodes/211dfaaf-18ee-42cb-b181-281647979048"
    assert cap.command == "NSX API GET /api/v1/transport-nodes" and '"ENS_INTERRUPT"' in cap.text
    assert result.switches["nvds1"]["ens_mode"].value == "ens_interrupt"
    host, _problems, _parsed = assemble_host(h)
    sw = host.switches[0]
    assert (sw.name, sw.kind, sw.ens_mode, sw.mtu) == ("nvds1", "opaque", "ens_interrupt", None)
    assert sw.evidence["ens_mode"].line == 'host_switch_spec.host_switches[0].host_switch_mode: "ENS_INTERRUPT"'
    assert host.product_version == "7.0.0"
    # the uplink profile fb38b6c9… and the state are not among the fixtures: unknown, said so
    assert any("uplink profile fb38b6c9-379b-42cf-b78c-13fc05da2e0d was not read" in m for m in _messages(h.problems))
    assert any("global-configs: response is not complete JSON" in m for m in _messages(col.problems))
    assert any("state of transport node 10.206.243.190 not read" in m and "HTTP 404" in m for m in _messages(col.problems))
    assert ("GET", "/api/v1/global-configs/SwitchingGlobalConfig") in [(m, p) for m, p, _ in srv.log]
    assert "transport nodes" in progress and progress[-1].startswith("read 1 host(s)")


def test_nsx22_nvds_mtu_from_profile_with_basic_auth(trusted_cert):
    with NsxResponder(NSX22, trusted_cert.ctx) as srv:
        col = collect_nsx(_target(srv, trusted_cert, auth="basic"))
    assert srv.logins == 0 and all(m == "GET" for m, _, _ in srv.log)
    (h,) = col.hosts  # tn-edge01 (fp-eth0) left out
    host, _, _ = assemble_host(h)
    assert host.name == "tn-esx01"
    sw = host.switches[0]
    assert (sw.name, sw.kind, sw.mtu, sw.uplinks, sw.ens_mode) == ("hs-fabric", "opaque", 1700, ["vmnic1"], None)
    assert sw.evidence["mtu"].source.endswith("/api/v1/host-switch-profiles/6f3c6c31-550f-4fed-be38-414c38b1f945")
    assert host.switch_of("vmnic1") is sw
    assert any("node/version" in p.source or "NSX version not read" in p.message for p in col.problems)


def test_nsx30_vds_paged_list(trusted_cert):
    with NsxResponder(NSX30, trusted_cert.ctx, page_size=2, paged=("/api/v1/transport-nodes",)) as srv:
        col = collect_nsx(_target(srv, trusted_cert))
    pages = [q for m, p, q in srv.log if p == "/api/v1/transport-nodes"]
    assert pages == [{}, {"cursor": "2"}]
    assert [h.name for h in col.hosts] == ["esx03.lab", "esx04.lab", "esx05.lab"]  # tn-edge02 left out
    host, _, _ = assemble_host(col.hosts[0])
    sw = host.switches[0]
    assert (sw.name, sw.kind, sw.ens_mode, sw.mtu, sw.uplinks) == ("fabric", "distributed", "standard", None, None)
    rec = next(r for _, res in col.hosts[0].parsed for r in res.records if r["kind"] == "nsx host switch")
    assert [z["name"] for z in rec["transport_zones"]] == ["tz-overlay", "tz-vlan"]
    assert rec["vds_uplinks"] == [{"vds_uplink_name": "Uplink 1", "uplink_name": "uplink-1"},
                                  {"vds_uplink_name": "Uplink 2", "uplink_name": "uplink-2"}]


def test_state_naming_another_node_is_ignored(trusted_cert):
    routes = {**ENS_INTR, "/api/v1/transport-nodes/211dfaaf-18ee-42cb-b181-281647979048/state":
              "GET_api_v1_transport-nodes_id_state_nsx22_success_apnex.json"}
    with NsxResponder(routes, trusted_cert.ctx) as srv:
        col = collect_nsx(_target(srv, trusted_cert))
    assert col.inventory.states == {}
    assert any("describes transport node 28a72d62-e01f-40cd-9b77-8f0bce12e700" in m for m in _messages(col.problems))
    assert all(not r.vmknics for _, r in col.hosts[0].parsed)


def test_expired_session_relogin_once_then_success(trusted_cert):
    with NsxResponder(ENS_INTR, trusted_cert.ctx, expire_after=2) as srv:
        col = collect_nsx(_target(srv, trusted_cert))
    assert srv.logins == 2
    assert [h.name for h in col.hosts] == ["10.206.243.190"]
    assert not any("not authenticated" in m for m in _messages(col.problems))


def test_session_expiring_again_right_after_relogin_is_a_problem(trusted_cert):
    with NsxResponder(ENS_INTR, trusted_cert.ctx, expire_after=0, expirations=5) as srv:
        col = collect_nsx(_target(srv, trusted_cert))
    assert srv.logins == 2 and col.hosts == []
    (p,) = col.problems
    assert "not authenticated (HTTP 403, error_code 98" in p.message


def test_wrong_password_is_a_clear_problem_without_the_password(trusted_cert):
    target = NsxTarget("https://127.0.0.1:1", "admin", "s3cret-Wrong!", ca_bundle=trusted_cert.ca_bundle)
    assert "s3cret-Wrong!" not in repr(target)
    with NsxResponder(ENS_INTR, trusted_cert.ctx) as srv:
        col = collect_nsx(NsxTarget(srv.url, "admin", "s3cret-Wrong!", ca_bundle=trusted_cert.ca_bundle))
    assert col.hosts == []
    (p,) = col.problems
    assert "login refused for user 'admin' (HTTP 403)" in p.message and "s3cret" not in p.message
    assert p.source == f"nsx://127.0.0.1:{srv.port}"
    assert [m for m, _, _ in srv.log] == ["POST"]


def test_untrusted_certificate_refused_with_its_thumbprint(trusted_cert, self_signed_cert):
    with NsxResponder(ENS_INTR, self_signed_cert.ctx) as srv:
        col = collect_nsx(NsxTarget(srv.url, "admin", PASSWORD))
    assert col.hosts == [] and srv.log == []  # nothing sent: no credentials to an untrusted server
    (p,) = col.problems
    assert "not trusted" in p.message and self_signed_cert.thumbprint in p.message
    assert f"--thumbprint {self_signed_cert.thumbprint}" in p.message
    # a CA-issued certificate whose CA is not trusted is refused the same way
    with NsxResponder(ENS_INTR, trusted_cert.ctx) as srv:
        col = collect_nsx(NsxTarget(srv.url, "admin", PASSWORD))
    assert col.hosts == [] and trusted_cert.thumbprint in col.problems[0].message


def test_pinned_self_signed_certificate_works(self_signed_cert):
    pin = self_signed_cert.thumbprint.replace(":", "").lower()  # any spelling of the SHA-256
    with NsxResponder(ENS_INTR, self_signed_cert.ctx) as srv:
        col = collect_nsx(NsxTarget(srv.url, "admin", PASSWORD, thumbprint=pin))
    assert col.trust.mode == "pinned" and col.trust.thumbprint == self_signed_cert.thumbprint
    assert [h.name for h in col.hosts] == ["10.206.243.190"]


def test_wrong_pin_refused(self_signed_cert, other_cert_thumbprint):
    with NsxResponder(ENS_INTR, self_signed_cert.ctx) as srv:
        col = collect_nsx(NsxTarget(srv.url, "admin", PASSWORD, thumbprint=other_cert_thumbprint))
    assert col.hosts == [] and srv.log == []
    assert "thumbprint mismatch" in col.problems[0].message
    assert self_signed_cert.thumbprint in col.problems[0].message


def test_server_timeout_is_a_problem(trusted_cert):
    # the answer is delayed an hour (until the responder stops): only the timeout can end the collection
    with NsxResponder(ENS_INTR, trusted_cert.ctx, delay_s=3600) as srv:
        col = collect_nsx(_target(srv, trusted_cert, timeout_s=0.5))
    assert col.hosts == []
    assert any("no answer to GET /api/v1/transport-nodes within 0.5 s (timeout)" in m for m in _messages(col.problems))


def test_unreachable_and_http_refused():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    col = collect_nsx(NsxTarget(f"https://127.0.0.1:{port}", "admin", PASSWORD, timeout_s=2))
    assert col.hosts == [] and "cannot connect" in col.problems[0].message
    col = collect_nsx(NsxTarget("http://nsx.lab", "admin", PASSWORD))
    assert "only https is supported" in col.problems[0].message


def test_cancel_raises(trusted_cert):
    cancel = threading.Event()
    cancel.set()
    with NsxResponder(ENS_INTR, trusted_cert.ctx) as srv:
        with pytest.raises(Cancelled):
            collect_nsx(_target(srv, trusted_cert), cancel=cancel)
