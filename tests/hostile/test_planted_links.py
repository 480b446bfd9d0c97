"""Issue 29 §1: no report writer follows a symbolic link another user planted in a shared folder. A second,
unprivileged user (``nobody``, through ``setpriv``) plants links in a sticky, world-writable folder pointing at a
file of root's; root's runs refuse each one with a sentence and the file stays as it was."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from nicadvisor.atomic_file import PlantedLinkError, atomic_write, write_text

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                                reason="needs root and setpriv to act as a second user")  # the lab runs as root

VICTIM_TEXT = "ssh-ed25519 AAAAC3root-own-key root@admin\n"
AS_NOBODY = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]


@pytest.fixture
def shared(sticky_folder):
    return sticky_folder


@pytest.fixture
def victim(tmp_path) -> Path:
    """root's ``authorized_keys`` in a folder only root can enter."""
    home = tmp_path / "root-home" / ".ssh"
    home.mkdir(parents=True, mode=0o700)
    path = home / "authorized_keys"
    path.write_text(VICTIM_TEXT, encoding="utf-8")
    return path


def plant(link: Path, target: Path) -> None:
    """``nobody`` creates ``link`` → ``target``."""
    subprocess.run([*AS_NOBODY, "ln", "-s", str(target), str(link)], check=True, timeout=30)
    assert link.is_symlink() and link.lstat().st_uid == 65534


@pytest.mark.parametrize("flag, name, side", [
    ("--csv", "nic-report.csv", "nic-report-inventory.csv"),  # the side file of the red team's repro
    ("--csv", "nic-report.csv", "nic-report.csv"),
    ("--pdf", "r.pdf", "r.pdf"),
    ("--html", "r.html", "r.html"),
    ("--json", "r.json", "r.json"),
])
def test_a_report_never_goes_through_another_users_link(cli, good_host, shared, victim, flag, name, side):
    plant(shared / side, victim)
    run = cli("audit", "--quiet", "--no-history", "--capture", good_host, flag, shared / name)
    assert victim.read_text(encoding="utf-8") == VICTIM_TEXT  # root's file untouched
    assert (shared / side).is_symlink() and os.readlink(shared / side) == str(victim)
    assert run.code == 2, run.err
    assert f"{shared / side} is a symbolic link owned by another user (uid 65534)" in run.err


def test_a_dangling_link_makes_no_file_behind_it(cli, good_host, shared, tmp_path):
    behind = tmp_path / "root-home" / "made-by-export.json"
    behind.parent.mkdir(mode=0o700)
    plant(shared / "r.json", behind)
    run = cli("audit", "--quiet", "--no-history", "--capture", good_host, "--json", shared / "r.json")
    assert run.code == 2 and not behind.exists()


def test_a_planted_folder_link_is_not_followed_either(shared, victim):
    plant(shared / "reports", victim.parent)
    with pytest.raises(PlantedLinkError, match="owned by another user"):
        write_text(shared / "reports" / "authorized_keys", "attacker-key\n")
    assert victim.read_text(encoding="utf-8") == VICTIM_TEXT


def test_saved_captures_never_go_through_a_planted_link(shared, victim):
    from nicadvisor.collect.ssh import save_captures
    from nicadvisor.parsers.assemble import HostInputs
    from nicadvisor.parsers.capture_file import Capture

    os.chmod(shared, 0o777)  # world-writable without the sticky bit counts as shared too
    sub = shared / "esx01"
    subprocess.run([*AS_NOBODY, "mkdir", str(sub)], check=True, timeout=30)
    os.chmod(sub, 0o777)
    plant(sub / "001_esxcli_network_nic_list.txt", victim)
    cap = Capture(source="ssh", command="esxcli network nic list", text="Name\n", host="esx01")
    with pytest.raises(PlantedLinkError):
        save_captures([HostInputs(name="esx01", captures=[cap])], shared)
    assert victim.read_text(encoding="utf-8") == VICTIM_TEXT


def test_the_file_is_renamed_onto_the_path_given_not_the_links_target(shared, victim):
    """root's own link in the shared folder may be used, but the report replaces the link, not what it names."""
    link = shared / "mine.csv"
    link.symlink_to(victim)
    atomic_write(link, lambda tmp: tmp.write_text("report\n", encoding="utf-8"))
    assert not link.is_symlink() and link.read_text(encoding="utf-8") == "report\n"
    assert victim.read_text(encoding="utf-8") == VICTIM_TEXT
    assert [p.name for p in shared.iterdir()] == ["mine.csv"]  # the private temporary folder is gone
