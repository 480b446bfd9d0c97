"""TLS trust for live audits: verified by default, self-signed only when pinned, mismatches refused."""
from __future__ import annotations

import logging
import re
import socket
from pathlib import Path

import pytest

from nicadvisor.collect.tls_pinning import (
    ThumbprintMismatchError,
    UntrustedCertificateError,
    fetch_thumbprint,
    normalize_thumbprint,
    ssl_context_for,
)
from nicadvisor.collect.vsphere import VsphereTarget, collect_vsphere
from vcsimtools import PASSWORD, USER

APP = Path(__file__).resolve().parents[2] / "app"
THUMB_RE = re.compile(r"^([0-9A-F]{2}:){31}[0-9A-F]{2}$")


def _target(port: int, **kw) -> VsphereTarget:
    return VsphereTarget(host="127.0.0.1", port=port, user=USER, password=PASSWORD, timeout_s=10, modules=False, **kw)


def test_thumbprint_normalisation():
    tp = "4c3d58c280ea08a0675379a8d53b7c776a8a40eed1804e1726395bd70723d4d8"
    assert normalize_thumbprint(tp) == normalize_thumbprint(":".join(tp[i:i + 2] for i in range(0, 64, 2)).upper())
    assert THUMB_RE.match(normalize_thumbprint(tp))
    with pytest.raises(ValueError, match="SHA-1 thumbprint"):
        normalize_thumbprint("AA:" * 19 + "AA")
    with pytest.raises(ValueError, match="not a certificate thumbprint"):
        normalize_thumbprint("zz")


def test_unpinned_self_signed_is_refused_with_its_thumbprint(vcsim):
    actual = fetch_thumbprint("127.0.0.1", vcsim.port, 10)
    assert THUMB_RE.match(actual)
    with pytest.raises(UntrustedCertificateError) as err:
        ssl_context_for("127.0.0.1", vcsim.port, timeout=10)
    assert err.value.thumbprint == actual and actual in str(err.value) and "self-signed" in str(err.value)
    col = collect_vsphere([_target(vcsim.port)])
    assert col.hosts == [] and col.sessions[0].trust is None
    (p,) = col.problems
    assert "the TLS certificate is not trusted" in p.message and actual in p.message


def test_pinned_thumbprint_connects(vcsim):
    pin = fetch_thumbprint("127.0.0.1", vcsim.port, 10).lower().replace(":", "")
    col = collect_vsphere([_target(vcsim.port, thumbprint=pin)])
    assert col.problems == [] and len(col.hosts) == 4
    assert col.sessions[0].trust.mode == "pinned"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_changed_certificate_is_refused(vcsim_factory, tmp_path):
    """Pin the simulator's certificate, restart it on the same port with another one: refused."""
    trustme = pytest.importorskip("trustme")
    port = _free_port()
    first = vcsim_factory("-cluster", "1", "-host", "1", "-standalone-host", "0", "-vm", "0", listen=f"127.0.0.1:{port}")
    pin = fetch_thumbprint("127.0.0.1", port, 10)
    first.stop()
    cert = trustme.CA().issue_cert("127.0.0.1")
    cert.cert_chain_pems[0].write_to_path(tmp_path / "cert.pem")
    cert.private_key_pem.write_to_path(tmp_path / "key.pem")
    vcsim_factory("-cluster", "1", "-host", "1", "-standalone-host", "0", "-vm", "0", "-tlscert",
                  str(tmp_path / "cert.pem"), "-tlskey", str(tmp_path / "key.pem"), listen=f"127.0.0.1:{port}")
    now = fetch_thumbprint("127.0.0.1", port, 10)
    assert now != pin
    with pytest.raises(ThumbprintMismatchError) as err:
        ssl_context_for("127.0.0.1", port, thumbprint=pin, timeout=10)
    assert (err.value.expected, err.value.actual) == (pin, now)
    col = collect_vsphere([_target(port, thumbprint=pin)])
    assert col.hosts == []
    (p,) = col.problems
    assert f"expected SHA-256 {pin}, the server presented {now}" in p.message


def test_ca_signed_certificate_verifies_without_pin(vcsim_factory, tmp_path, monkeypatch):
    """Default mode: a certificate from a CA in the trust store (here via SSL_CERT_FILE) just works."""
    trustme = pytest.importorskip("trustme")
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1")
    cert.cert_chain_pems[0].write_to_path(tmp_path / "cert.pem")
    cert.private_key_pem.write_to_path(tmp_path / "key.pem")
    ca.cert_pem.write_to_path(tmp_path / "ca.pem")
    sim = vcsim_factory("-cluster", "1", "-host", "2", "-standalone-host", "0", "-vm", "0",
                        "-tlscert", str(tmp_path / "cert.pem"), "-tlskey", str(tmp_path / "key.pem"))
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "ca.pem"))
    col = collect_vsphere([_target(sim.port)])
    assert col.problems == [] and len(col.hosts) == 2
    assert col.sessions[0].trust.mode == "ca"


def test_insecure_is_explicit_logged_and_marked(vcsim, caplog):
    caplog.set_level(logging.WARNING, logger="nicadvisor.collect.vsphere")
    col = collect_vsphere([_target(vcsim.port, insecure=True)])
    assert col.problems == [] and len(col.hosts) == 4
    trust = col.sessions[0].trust
    assert trust.mode == "insecure" and trust.thumbprint == fetch_thumbprint("127.0.0.1", vcsim.port, 10)
    assert any("NOT verified" in r.getMessage() for r in caplog.records)
    assert all("NOT verified (insecure mode)" in cap.notes[0] for h in col.hosts for cap, _ in h.parsed)
    assert PASSWORD not in caplog.text


def test_app_never_disables_verification():
    """The project hook flags these; the pinning code must not need them."""
    bad = re.compile(r"CERT_NONE|_create_unverified_context|disableSslCertValidation\s*=\s*True")
    hits = [f"{p}:{i}" for p in APP.rglob("*.py") for i, line in enumerate(p.read_text().splitlines(), 1)
            if bad.search(line)]
    assert hits == []
