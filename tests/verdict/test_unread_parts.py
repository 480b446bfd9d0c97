"""No all-clear while part of a given folder could not be read (review of issue 6): a host folder that is empty,
holds no capture, or cannot be opened, and a bundle that is not one, beside a host that alone is READY, keep the
audit from READY (NOT RATED, each part named with why); a stray file beside a read host's captures does not; an
unreadable folder never ends the audit."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from capturetools import completed, ready_host
from nicadvisor.services.audit import AuditRequest, run_audit

READY_HOST = "esx-nested"  # a whole pNIC listing: READY on its own once its decisive checks are made (completed)


def _lab(tmp_path):
    lab = tmp_path / "lab"
    ready_host(lab, READY_HOST)
    return lab


def _verdict(lab):
    return completed(run_audit(AuditRequest(capture_paths=(str(lab),)))).verdict


def test_the_ready_host_alone_is_ready(tmp_path):
    assert _verdict(_lab(tmp_path)).status == "ready"


def test_unread_host_folders_and_bundles_keep_the_audit_from_ready(tmp_path):
    lab = _lab(tmp_path)
    (lab / "esx-empty").mkdir()
    (lab / "esx-bad").mkdir()
    (lab / "esx-bad" / "nics.txt").write_bytes(bytes(range(256)) * 4)
    (lab / "esx-02-vm-support.tgz").write_text("not an archive", encoding="utf-8")
    (lab / "esx-03").symlink_to(tmp_path / "gone")
    (lab / READY_HOST / "notes.txt").write_text("to do: check vmnic1\n", encoding="utf-8")  # beside read captures
    v = _verdict(lab)
    assert v.status == "not_rated"
    assert v.reason.startswith("4 parts of the inputs could not be read: ")
    named = " ".join(v.causes)
    for part in ("esx-empty", "esx-bad/nics.txt", "esx-02-vm-support.tgz", "esx-03"):
        assert str(lab / part) in named
    assert "notes.txt" not in named


@pytest.mark.root
def test_an_unreadable_folder_is_named_and_the_rest_audited(tmp_path):
    lab = _lab(tmp_path)
    locked = lab / "locked"
    locked.mkdir()
    locked.chmod(0)
    try:
        # root reads everything: drop the capabilities that let it (capsh), as an ordinary account would be
        run = subprocess.run(["capsh", "--drop=cap_dac_override,cap_dac_read_search", "--", "-c",
                              f"{sys.executable} -m nicadvisor.cli audit --no-history --capture {lab}"],
                             capture_output=True, text=True, timeout=120, env={**os.environ})
    finally:
        locked.chmod(0o700)
    assert "Traceback" not in run.stderr, run.stderr
    assert READY_HOST in run.stdout and f"{locked}" in run.stderr and "cannot be read" in run.stderr
    assert run.returncode == 2  # NOT RATED: the locked folder could not be read


def test_a_file_of_a_read_host_that_could_not_be_read_keeps_that_host_from_ready(tmp_path):
    """Hostile review: a host folder with a good listing and a 50 MB file headed ``esxcfg-nics -l`` was READY. That
    file may hold the outputs that decide the host: NOT RATED, naming it (a stray note beside it still is not)."""
    lab = _lab(tmp_path)
    big = lab / READY_HOST / "nic_list_full.txt"
    with open(big, "wb") as fh:
        fh.write(b"# command: esxcfg-nics -l\n")
        fh.truncate(50 * 1024 * 1024)  # sparse: over the capture size cap without writing 50 MB
    v = _verdict(lab)
    (host,) = v.hosts
    assert v.status == "not_rated" and host.status == "not_rated"
    assert host.reason == "nic_list_full.txt could not be read: see the inputs not understood"
