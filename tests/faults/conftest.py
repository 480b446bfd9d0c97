"""Fixtures of the fault tests (issue "Audit live estates" §7 Faults): the live stand-ins, started here so
one audit can mix them (pieces in faultlab.py).

* ``nsx_cert``: a self-signed certificate for ``nsxmgr.lab`` and its SHA-256 pin;
* ``ssh_lab`` / ``esxi_lab``: :class:`faultlab.SshLab` (non-root account, two sshd with the ESXi personality;
  ``esxi_lab`` clears their injected faults before and after the test); ``linux_netns``: a network namespace
  with a veth pair and a plain sshd inside (the real ethtool / ip / sysfs answer, as that non-root account);
* ``vcsim_factory``: govmomi's vcsim instances (``tests/live/vcsimtools.py``).

Everything started is stopped, and the account, namespace and interfaces deleted, at teardown. SSH
fixtures need root (sshd switching users, namespaces) and skip otherwise; vcsim ones skip without vcsim.
"""
from __future__ import annotations

import secrets
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from faultlab import H, NsxCert, SshLab  # noqa: E402  (puts tests/ssh, tests/nsx, tests/live on sys.path)
import nsx_certs  # noqa: E402
from nsx_responder import server_context  # noqa: E402
from vcsimtools import ToolMissing, Vcsim, start_vcsim  # noqa: E402


@pytest.fixture(scope="session")
def nsx_cert(tmp_path_factory) -> NsxCert:
    cert_pem, key_pem, der = nsx_certs.self_signed("nsxmgr.lab")
    ctx = server_context(cert_pem, key_pem, tmp_path_factory.mktemp("faults-nsx-cert"))
    return NsxCert(ctx, nsx_certs.thumb(der))


# --- SSH fixtures ---------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def ssh_lab():
    why = H.available()
    if why:
        pytest.skip(f"real-sshd tests skipped: {why}")
    base = H.make_base("nicadv-faults-")
    lab = None
    try:
        lab = SshLab(base)
        for sshd in lab.sshds:
            sshd.start()
        yield lab
    finally:
        if lab is not None:
            for sshd in lab.sshds:
                sshd.stop()
            lab.user.remove()
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def esxi_lab(ssh_lab):
    """``ssh_lab`` with no fault injected on either sshd (before and after the test)."""
    for sshd in ssh_lab.sshds:
        ssh_lab.behaviour(sshd)
    yield ssh_lab
    for sshd in ssh_lab.sshds:
        ssh_lab.behaviour(sshd)



@pytest.fixture
def linux_netns(ssh_lab):
    """A namespace with a plain sshd inside, reached over a veth pair (see H.sshd_in_netns).
    Yields (sshd, inside interface name, its MAC)."""
    with H.sshd_in_netns(ssh_lab.base, ssh_lab.user.name, ssh_lab.authorized_keys, "flt", 130,
                         tag=f"netns-{secrets.token_hex(3)}") as found:
        yield found


# --- vcsim ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def vcsim_factory(tmp_path_factory):
    """``start(*args)`` → a running vcsim (user/password of vcsimtools); all are stopped at the end."""
    started: list[Vcsim] = []
    base = tmp_path_factory.mktemp("faults-vcsim")

    def start(*args: str) -> Vcsim:
        try:
            sim = start_vcsim(base, *args)
        except ToolMissing as exc:
            pytest.skip(str(exc))
        started.append(sim)
        return sim

    yield start
    for sim in started:
        sim.stop()
