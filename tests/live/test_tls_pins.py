"""TLS pins stored per server (collect/tls_pins.py): explicit pin > stored pin > system CA; a pin is saved
after a successful connection; a certificate that differs from its stored pin is refused with both
thumbprints and how to re-pin; a CA-trusted server needs no pin. Against vcsim (self-signed) and the
NSX stand-in (tests/nsx: self-signed and trustme-CA certificates)."""
from __future__ import annotations

import argparse
import logging
import stat
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "nsx"))

from nsx_certs import self_signed, thumb  # noqa: E402
from nsx_responder import NsxResponder, server_context  # noqa: E402
from vcsimtools import PASSWORD, USER  # noqa: E402

from nicadvisor.cli_live import LiveArgsError, add_arguments, build_targets  # noqa: E402
from nicadvisor.collect import ConnectionCheckError  # noqa: E402
from nicadvisor.collect.nsx import NsxTarget, check_login as nsx_check_login, collect_nsx  # noqa: E402
from nicadvisor.collect.tls_pinning import (  # noqa: E402
    PinChangedError,
    ThumbprintMismatchError,
    TrustDecision,
    UntrustedCertificateError,
    fetch_thumbprint,
    ssl_context_for,
)
from nicadvisor.collect.tls_pins import TlsPins, default_path, server_key  # noqa: E402
from nicadvisor.collect.vsphere import VsphereTarget, check_login, collect_vsphere  # noqa: E402

NSX_PW = "VMware1!VMware1!"
A = "AA:" * 31 + "AA"
B = "0b" * 32  # any case / separator is accepted and stored normalised


@pytest.fixture(scope="module")
def other_thumbprint() -> str:
    """The SHA-256 thumbprint of ANOTHER certificate: stands for the pin of a certificate since replaced."""
    return thumb(self_signed("old-cert.lab")[2])


@pytest.fixture(scope="module")
def nsx_self_signed(tmp_path_factory):
    cert_pem, key_pem, der = self_signed("nsxmgr.lab")
    return server_context(cert_pem, key_pem, tmp_path_factory.mktemp("pins-selfsigned")), thumb(der)


@pytest.fixture(scope="module")
def nsx_ca_trusted(tmp_path_factory):
    trustme = pytest.importorskip("trustme")
    tmp = tmp_path_factory.mktemp("pins-ca")
    ca = trustme.CA()
    leaf = ca.issue_cert("127.0.0.1")
    ctx = server_context(b"".join(b.bytes() for b in leaf.cert_chain_pems), leaf.private_key_pem.bytes(), tmp)
    ca.cert_pem.write_to_path(str(tmp / "ca.pem"))
    return ctx, str(tmp / "ca.pem")


def _vc(port: int, pins: TlsPins | None, **kw) -> VsphereTarget:
    return VsphereTarget(host="127.0.0.1", port=port, user=USER, password=PASSWORD, timeout_s=10, modules=False,
                         network_hints=False, pins=pins, **kw)


# --- the store ---------------------------------------------------------------------------------------

def test_store_save_get_replace_remove(tmp_path):
    pins = TlsPins(tmp_path / "cfg" / "tls_pins")
    assert pins.get("vc1.lab", 443) is None and pins.all() == {}
    assert pins.save("VC1.lab", 443, B) is True
    assert pins.get("vc1.lab", 443) == ":".join(["0B"] * 32)
    assert pins.get("vc1.lab", 8443) is None  # per host AND port
    assert pins.save("vc1.lab", 443, B.upper()) is False  # same pin: nothing written
    assert pins.save("fd00::10", 8443, A) is True
    assert pins.all() == {"vc1.lab:443": ":".join(["0B"] * 32), "[fd00::10]:8443": A}
    assert pins.save("vc1.lab", 443, A) is True  # re-pin replaces the old pin
    assert pins.get("vc1.lab", 443) == A and len(pins.all()) == 2
    text = pins.path.read_text()
    assert text.startswith("# NIC Advisor pinned TLS certificates") and text.count("vc1.lab:443") == 1
    assert stat.S_IMODE(pins.path.stat().st_mode) == 0o600
    assert [p.name for p in pins.path.parent.iterdir()] == ["tls_pins"]  # atomic: no temporary left
    assert pins.remove("vc1.lab", 443) is True and pins.remove("vc1.lab", 443) is False
    assert pins.all() == {"[fd00::10]:8443": A}


def test_store_skips_unreadable_lines_and_keeps_them(tmp_path):
    path = tmp_path / "tls_pins"
    path.write_text("garbage line here\nvc2.lab:443 not-a-thumbprint\nvc3.lab:443 " + A + "\n")
    pins = TlsPins(path)
    assert pins.all() == {"vc3.lab:443": A} and pins.get("vc2.lab", 443) is None
    pins.save("vc2.lab", 443, B)
    assert "garbage line here" in path.read_text() and pins.get("vc3.lab", 443) == A
    with pytest.raises(ValueError, match="SHA-1"):
        pins.save("vc4.lab", 443, "AA:" * 19 + "AA")


def test_default_path_is_in_the_user_config_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert default_path() == tmp_path / "nic-advisor" / "tls_pins"
    assert TlsPins().path == default_path()
    assert server_key("[FD00::1]", 443) == "[fd00::1]:443" and server_key("Vc.Lab", 8443) == "vc.lab:8443"


def test_remember_stores_only_explicit_pins(tmp_path, caplog):
    pins = TlsPins(tmp_path / "tls_pins")
    assert not pins.remember("vc.lab", 443, TrustDecision("ca", None))  # a CA-trusted server needs no pin
    assert not pins.remember("vc.lab", 443, TrustDecision("insecure", A))
    assert not pins.remember("vc.lab", 443, TrustDecision("pinned", A, stored=True))
    assert not pins.path.exists()
    assert pins.remember("vc.lab", 443, TrustDecision("pinned", A)) and pins.get("vc.lab", 443) == A
    (tmp_path / "file").write_text("")
    broken = TlsPins(tmp_path / "file" / "tls_pins")  # its folder is a file: cannot be written
    with caplog.at_level(logging.WARNING, logger="nicadvisor.collect.tls_pins"):
        assert broken.remember("vc.lab", 443, TrustDecision("pinned", A)) is False
    assert "TLS pin of vc.lab:443 not saved" in caplog.text


# --- vcsim (self-signed) -------------------------------------------------------------------------------

def test_vcsim_pin_saved_then_used_then_change_refused(vcsim, tmp_path, other_thumbprint):
    pins = TlsPins(tmp_path / "tls_pins")
    actual = fetch_thumbprint("127.0.0.1", vcsim.port, 10)
    with pytest.raises(ConnectionCheckError, match="the TLS certificate is not trusted"):
        check_login(_vc(vcsim.port, pins))  # first contact, no pin: refused, nothing stored
    assert pins.all() == {}

    session = check_login(_vc(vcsim.port, pins, thumbprint=actual.lower().replace(":", "")))
    assert (session.trust.mode, session.trust.stored) == ("pinned", False)
    assert pins.get("127.0.0.1", vcsim.port) == actual  # saved after the successful login

    col = collect_vsphere([_vc(vcsim.port, pins)])  # next run: no thumbprint, the stored pin is used
    assert col.problems == [] and len(col.hosts) == 4
    assert (col.sessions[0].trust.mode, col.sessions[0].trust.stored) == ("pinned", True)
    assert col.sessions[0].trust.describe() == f"TLS certificate pinned (SHA-256 {actual}, stored pin)"

    pins.save("127.0.0.1", vcsim.port, other_thumbprint)  # the certificate "changed" since it was pinned
    with pytest.raises(PinChangedError) as err:
        ssl_context_for("127.0.0.1", vcsim.port, timeout=10, pins=pins)
    assert isinstance(err.value, ThumbprintMismatchError)
    assert (err.value.expected, err.value.actual) == (other_thumbprint, actual)
    col = collect_vsphere([_vc(vcsim.port, pins)])
    assert col.hosts == [] and col.sessions[0].trust is None
    (p,) = col.problems
    assert f"127.0.0.1:{vcsim.port}: the TLS certificate has CHANGED since it was pinned" in p.message
    assert f"stored SHA-256 {other_thumbprint} (in {pins.path})" in p.message
    assert f"the server now presents {actual}" in p.message
    assert f"re-pin it with --thumbprint 127.0.0.1:{vcsim.port}={actual}" in p.message
    assert pins.get("127.0.0.1", vcsim.port) == other_thumbprint  # a refusal changes nothing

    session = check_login(_vc(vcsim.port, pins, thumbprint=actual))  # re-pin: explicit beats stored
    assert session.trust.mode == "pinned" and pins.get("127.0.0.1", vcsim.port) == actual


def test_vcsim_wrong_explicit_pin_is_not_stored(vcsim, tmp_path, other_thumbprint):
    pins = TlsPins(tmp_path / "tls_pins")
    with pytest.raises(ConnectionCheckError, match="certificate thumbprint mismatch"):
        check_login(_vc(vcsim.port, pins, thumbprint=other_thumbprint))
    with pytest.raises(ConnectionCheckError, match="login refused"):  # pin right, password wrong
        check_login(VsphereTarget(host="127.0.0.1", port=vcsim.port, user=USER, password="wrong", timeout_s=10,
                                  pins=pins, thumbprint=fetch_thumbprint("127.0.0.1", vcsim.port, 10)))
    assert pins.all() == {}  # saved only after a SUCCESSFUL connection


def test_vcsim_without_store_ignores_pins(vcsim, tmp_path):
    TlsPins(tmp_path / "tls_pins").save("127.0.0.1", vcsim.port, fetch_thumbprint("127.0.0.1", vcsim.port, 10))
    with pytest.raises(UntrustedCertificateError):  # no store given: no stored pin read
        ssl_context_for("127.0.0.1", vcsim.port, timeout=10)


# --- NSX stand-in ----------------------------------------------------------------------------------------

def _nsx(srv, pins, **kw) -> NsxTarget:
    return NsxTarget(srv.url, "admin", NSX_PW, pins=pins, timeout_s=10, **kw)


def test_nsx_pin_saved_then_used_then_change_refused(nsx_self_signed, tmp_path, other_thumbprint):
    ctx, actual = nsx_self_signed
    pins = TlsPins(tmp_path / "tls_pins")
    routes = {"/api/v1/transport-nodes": "GET_api_v1_transport-nodes_list_nsx30_vds_STANDARD_apnex.json"}
    with NsxResponder(routes, ctx) as srv:
        col = collect_nsx(_nsx(srv, pins, thumbprint=actual))
        assert col.trust.mode == "pinned" and len(col.hosts) == 3
        assert pins.get("127.0.0.1", srv.port) == actual

        col = collect_nsx(_nsx(srv, pins))  # no thumbprint: the stored pin
        assert (col.trust.mode, col.trust.stored) == ("pinned", True) and len(col.hosts) == 3

        pins.save("127.0.0.1", srv.port, other_thumbprint)
        sent = len(srv.log)
        col = collect_nsx(_nsx(srv, pins))
        assert col.hosts == [] and len(srv.log) == sent  # refused before any request (no credentials sent)
        (p,) = col.problems
        assert "the TLS certificate has CHANGED since it was pinned" in p.message
        assert other_thumbprint in p.message and f"--thumbprint 127.0.0.1:{srv.port}={actual}" in p.message

        nsx_check_login(_nsx(srv, pins, thumbprint=actual))  # re-pin on "Test connection"
        assert pins.get("127.0.0.1", srv.port) == actual


def test_nsx_ca_trusted_needs_no_pin(nsx_ca_trusted, tmp_path):
    ctx, bundle = nsx_ca_trusted
    pins = TlsPins(tmp_path / "tls_pins")
    with NsxResponder({}, ctx) as srv:
        nsx_check_login(_nsx(srv, pins, ca_bundle=bundle))
        assert pins.all() == {} and not pins.path.exists()
        with pytest.raises(ConnectionCheckError, match="login refused"):
            nsx_check_login(NsxTarget(srv.url, "admin", "wrong", pins=pins, timeout_s=10, ca_bundle=bundle))


# --- CLI -------------------------------------------------------------------------------------------------

class _Passwords:
    def get(self, service_id: str, user: str, label: str) -> str:
        return NSX_PW


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(list(argv))


def test_cli_thumbprint_is_stored_after_success_and_reused(nsx_self_signed, tmp_path, other_thumbprint):
    ctx, actual = nsx_self_signed
    pins = TlsPins(tmp_path / "tls_pins")
    with NsxResponder({}, ctx) as srv:
        first = build_targets(_args("--nsx", srv.url, "--user", "admin", "--thumbprint",
                                    f"127.0.0.1:{srv.port}={actual.lower()}"), _Passwords(), pin_store=pins)
        (t,) = first["nsx"]
        assert t.thumbprint == actual and t.pins is pins and pins.all() == {}  # not stored before connecting
        nsx_check_login(t)
        assert pins.get("127.0.0.1", srv.port) == actual
        (t2,) = build_targets(_args("--nsx", srv.url, "--user", "admin"), _Passwords(), pin_store=pins)["nsx"]
        assert t2.thumbprint is None
        nsx_check_login(t2)  # the stored pin is used
        pins.save("127.0.0.1", srv.port, other_thumbprint)
        with pytest.raises(ConnectionCheckError, match="has CHANGED since it was pinned"):
            nsx_check_login(t2)


def test_cli_thumbprint_arguments(tmp_path):
    pins = TlsPins(tmp_path / "tls_pins")
    (t,) = build_targets(_args("--vcenter", "https://vc.lab:8443", "--user", "u", "--thumbprint", B),
                         _Passwords(), pin_store=pins)["vsphere"]
    assert t.thumbprint == ":".join(["0B"] * 32) and t.pins is pins  # bare pin: the only target
    with pytest.raises(LiveArgsError, match="exactly one"):
        build_targets(_args("--vcenter", "vc1.lab", "--nsx", "nsx1.lab", "--user", "u", "--thumbprint", B),
                      _Passwords(), pin_store=pins)
    with pytest.raises(LiveArgsError, match="SHA-1 thumbprint"):
        build_targets(_args("--vcenter", "vc1.lab", "--user", "u", "--thumbprint", "vc1.lab=" + "AA:" * 19 + "AA"),
                      _Passwords(), pin_store=pins)
    built = build_targets(_args("--vcenter", "vc1.lab", "--nsx", "nsx1.lab:8443", "--user", "u",
                                "--thumbprint", f"nsx1.lab:8443={A}"), _Passwords(), pin_store=pins)
    ((vc,), (nsx,)) = built["vsphere"], built["nsx"]
    assert (vc.thumbprint, nsx.thumbprint) == (None, A)  # per server; vc1.lab: its stored pin, else the CA
    assert vc.pins is pins and nsx.pins is pins
