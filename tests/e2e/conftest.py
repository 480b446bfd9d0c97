"""Fixtures of the end-to-end CLI tests: every live target kind at once, on 127.0.0.1 (see e2e_lab.py).

* ``vc``: vcsim, 1 cluster of 2 hosts (``DC0_C0_H0``, ``DC0_C0_H1``), user ``auditor`` / ``PW_VC``;
* ``esxi_ssh``: a real OpenSSH sshd with the ESXi personality (real captures), logging in a throw-away
  local account whose password is set to ``PW_SSH`` (no key authorised; root needed, else skipped);
* ``nsx``: the NSX Manager stand-in (NSX 3.0 fixtures) with a self-signed certificate, ``auditor`` / ``PW_NSX``;
* ``memory_keyring``: the only place the CLI finds the passwords (restored after each test);
* ``xdg``: the test's own XDG folders (audit history, known_hosts, bench journal) under ``tmp_path/xdg``.

Every server is stopped (and the test account deleted) at the end of the session.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import keyring
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from e2e_lab import (  # noqa: E402
    NSX30_ROUTES, PW_NSX, PW_SSH, PW_VC, USER, EsxiSsh, H, MemoryKeyring, Nsx, NsxResponder, ToolMissing, Vcsim,
    start_vcsim,
)
import nsx_certs  # noqa: E402  (e2e_lab put tests/nsx on sys.path)
from nsx_responder import server_context  # noqa: E402

from capturetools import CAPTURES  # noqa: E402


@pytest.fixture
def memory_keyring():
    """A fresh :class:`MemoryKeyring` as the active backend; the previous backend is restored after."""
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def xdg(tmp_path, monkeypatch) -> Path:
    """The XDG folders of this test: ``tmp_path/xdg/<variable in lower case>``."""
    root = tmp_path / "xdg"
    for var in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.setenv(var, str(root / var.lower()))
    return root


@pytest.fixture(scope="session")
def vc(tmp_path_factory) -> Vcsim:
    """vcsim with user ``auditor`` / ``PW_VC``: hosts DC0_C0_H0 and DC0_C0_H1 (cluster DC0_C0)."""
    try:
        # Go's flag package keeps the last value: this -password overrides vcsimtools' default one
        sim = start_vcsim(tmp_path_factory.mktemp("e2e-vcsim"), "-password", PW_VC, "-cluster", "1", "-host", "2",
                          "-standalone-host", "0", "-vm", "0")
    except ToolMissing as exc:
        pytest.skip(str(exc))
    try:
        yield sim
    finally:
        sim.stop()


@pytest.fixture(scope="session")
def esxi_ssh():
    """A real sshd (ESXi personality over real captures) on 127.0.0.1, password ``PW_SSH``."""
    why = H.available()
    if why:
        pytest.skip(f"real-sshd tests skipped: {why}")
    base = H.make_base("nicadv-e2e-ssh-")
    user = sshd = None
    try:
        user = H.TestUser(base)
        user.set_password(PW_SSH)
        keys = base / "authorized_keys"  # no key is authorised: the password is the only way in
        keys.write_text("")
        keys.chmod(0o644)
        sshd = H.Sshd(base, user.name, keys, force_command=H.personality_command(CAPTURES)).start()
        yield EsxiSsh(user.name, sshd.port, sshd.fingerprint)
    finally:
        if sshd is not None:
            sshd.stop()
        if user is not None:
            user.remove()
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="session")
def nsx(tmp_path_factory) -> Nsx:
    """The NSX Manager stand-in (NSX 3.0 lab fixtures), self-signed certificate for ``nsxmgr.lab``."""
    cert_pem, key_pem, der = nsx_certs.self_signed("nsxmgr.lab")
    ctx = server_context(cert_pem, key_pem, tmp_path_factory.mktemp("e2e-nsx-cert"))
    srv = NsxResponder(NSX30_ROUTES, ctx, user=USER, password=PW_NSX)
    srv.start()
    try:
        yield Nsx(srv, nsx_certs.thumb(der))
    finally:
        srv.stop()

