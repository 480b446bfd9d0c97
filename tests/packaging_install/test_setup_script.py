"""The set-up script tells the truth on a fresh Debian machine (issue "Verdicts an admin can trust" §5): the apt
entries it adds come from the machine's own sources (no mirror host in the repository), and it installs the
packages the app's files come from (the PDF's fonts)."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FUNCTIONS = REPO / "packaging" / "apt-sources.sh"


def _mirror(apt_dir: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", f'. "{FUNCTIONS}"; debian_mirror "$1"', "_", str(apt_dir)],
                          capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize("layout, files", [
    ("deb822", {"sources.list.d/debian.sources":
                "Types: deb\n# a comment\nURIs: http://mirror.example.org/debian\nSuites: bookworm bookworm-updates\n"
                "Components: main\n\nTypes: deb\nURIs: http://security.example.org/debian-security\n"
                "Suites: bookworm-security\nComponents: main\n"}),
    ("deb822, security first", {"sources.list.d/a.sources":
                                "Types: deb\nURIs: http://security.example.org/debian-security\n"
                                "Suites: bookworm-security\nComponents: main\n\n"
                                "Types: deb\nURIs: http://mirror.example.org/debian\nSuites: bookworm\n"
                                "Components: main\n"}),
    ("one-line", {"sources.list": "# deb http://old.example.org/debian bookworm main\n"
                                  "deb http://security.example.org/debian-security bookworm-security main\n"
                                  "deb [arch=amd64 signed-by=/k.gpg] http://mirror.example.org/debian bookworm main\n"}),
    ("our own file is not a source", {"sources.list.d/nicadvisor.sources":
                                      "Types: deb\nURIs: http://ours.example.org/debian\nSuites: bookworm\n"
                                      "Components: non-free\n",
                                      "sources.list": "deb http://mirror.example.org/debian bookworm main\n"}),
])
def test_mirror_is_read_from_the_machines_own_sources(tmp_path, layout, files):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    run = _mirror(tmp_path)
    assert run.returncode == 0 and run.stdout.strip() == "http://mirror.example.org/debian", (layout, run)


def test_no_mirror_is_a_clear_failure(tmp_path):
    (tmp_path / "sources.list.d").mkdir()
    assert _mirror(tmp_path).returncode != 0


def test_extra_sources_add_non_free_and_backports_of_that_mirror():
    text = subprocess.run(["bash", "-c", f'. "{FUNCTIONS}"; extra_sources http://m.example.org/debian bookworm 1'],
                          capture_output=True, text=True, check=True).stdout
    stanzas = [s for s in text.split("\n\n") if s.strip()]
    assert "Suites: bookworm\nComponents: non-free" in stanzas[0]
    assert "Suites: bookworm-backports\nComponents: main" in stanzas[1]
    assert all("URIs: http://m.example.org/debian" in s for s in stanzas)


def test_packaging_writes_no_mirror_host():
    for script in (REPO / "packaging").glob("*.sh"):
        for line in script.read_text().splitlines():
            if line.lstrip().startswith("#"):
                continue
            assert not re.search(r"https?://[a-z0-9.-]+\.(org|net|com)", line), (script.name, line)


def test_the_pdf_fonts_come_from_packages_the_setup_installs():
    from nicadvisor.report.pdf import FONT_DIR

    setup = (REPO / "packaging" / "setup-debian.sh").read_text()
    for font in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans-Oblique.ttf", "DejaVuSansMono.ttf"):
        owner = subprocess.run(["dpkg", "-S", str(FONT_DIR / font)], capture_output=True, text=True)
        assert owner.returncode == 0, f"{font} is not installed from a Debian package"
        package = owner.stdout.split(":")[0]
        assert re.search(rf"\b{re.escape(package)}\b", setup), f"{font} comes from {package}, not installed by setup"
