"""The bundled demo lab holds only real captures, byte-identical to shared/fixtures/captures, and audits."""
from __future__ import annotations

from capturetools import CAPTURES

from nicadvisor.paths import demo_lab_dir


def test_every_demo_file_is_a_real_capture():
    files = [p for p in demo_lab_dir().rglob("*.txt")]
    assert len(files) >= 20
    for p in files:
        original = CAPTURES / p.name
        assert original.is_file(), f"{p} is not a copy of a shared fixture"
        assert p.read_bytes() == original.read_bytes(), f"{p} differs from {original}"


def test_every_demo_host_is_listed_in_the_readme():
    readme = (demo_lab_dir() / "README.md").read_text(encoding="utf-8")
    for host in (d for d in demo_lab_dir().iterdir() if d.is_dir()):
        assert f"`{host.name}`" in readme
