"""Hostile sosreports, multi-host pastes and capture dates (inputs added with issues 24-26), fed to the real CLI in a
limited child (conftest.py: 1 GiB, 60 s of CPU). The sosreport is the real canonical/hotsos tree of
tests/collect/sosreports; the attack parts (zeros, hostile names, dates) are payloads, not device output."""
from __future__ import annotations

import io
import lzma
import os
import tarfile
from pathlib import Path

TREE = Path(__file__).resolve().parents[1] / "collect" / "sosreports" / "hotsos-kubernetes"
HOST = "juju-110cc2-k8stest-4"  # its sos_commands/host/hostname


def _tree_members(root: str) -> list[tuple[tarfile.TarInfo, bytes]]:
    out = []
    for p in sorted(TREE.rglob("*")):
        if p.is_file():
            data = p.read_bytes()
            info = tarfile.TarInfo(f"{root}/{p.relative_to(TREE).as_posix()}" if root else p.relative_to(TREE).as_posix())
            info.size = len(data)
            out.append((info, data))
    return out


def _tar_bytes(members: list[tuple[tarfile.TarInfo, bytes]], end: bool) -> bytes:
    buf = io.BytesIO()
    for info, data in members:
        buf.write(info.tobuf(tarfile.GNU_FORMAT))
        buf.write(data + b"\0" * (-len(data) % 512))
    if end:
        buf.write(b"\0" * 1024)
    return buf.getvalue()


def _xz_bomb(path: Path, zeros_gib: int) -> Path:
    """A sosreport ``.tar.xz``: the real tree, then a member of ``zeros_gib`` GiB of zeros (the same xz stream of
    64 MiB of zeros concatenated: xz reads concatenated streams as one), then one more member."""
    root = "sosreport-bomb-2026-01-01-abcdefg"
    huge = tarfile.TarInfo(f"{root}/var/log/huge")
    huge.size = zeros_gib << 30
    chunk = lzma.compress(bytes(64 << 20), preset=9)
    after = tarfile.TarInfo(f"{root}/sos_commands/networking/ethtool_-i_ens9")
    after.size = 14
    with open(path, "wb") as fh:
        fh.write(lzma.compress(_tar_bytes(_tree_members(root), end=False) + huge.tobuf(tarfile.GNU_FORMAT)))
        for _ in range(zeros_gib * 16):
            fh.write(chunk)
        fh.write(lzma.compress(_tar_bytes([(after, b"driver: ixgbe\n")], end=True)))
    return path


def test_an_xz_bomb_sosreport_stops_unpacking_and_keeps_what_came_before(cli, tmp_path):
    bomb = _xz_bomb(tmp_path / "sosreport-bomb.tar.xz", 64)
    assert bomb.stat().st_size < 20_000_000
    # a 64 MiB floor, so the test unpacks about 100 times the file's size (not 4 GiB) before the cut
    run = cli("audit", "--no-history", "--capture", bomb, "--json", tmp_path / "b.json",
              setup="import nicadvisor.collect.bundle as b; b.MAX_UNPACKED_BYTES = 64 << 20")
    assert "unpacks to more than" in run.err and "'sosreport-bomb-2026-01-01-abcdefg/var/log/huge'" in run.err
    assert f"{HOST} (linux)" in run.out and "ens3" in run.out  # what came before the bomb is audited
