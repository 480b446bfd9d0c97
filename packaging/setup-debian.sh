#!/usr/bin/env bash
# Installs everything NIC Advisor and its test suite need on a fresh Debian 12 (bookworm) machine.
# Idempotent; run as root (or with sudo available). Used by the README commands and by .ci/run.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive

# netperf lives in Debian's non-free component: add it (only that component) for apt.
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
nonfree=/etc/apt/sources.list.d/nicadvisor-non-free.sources
if [ ! -f "$nonfree" ]; then
  $SUDO tee "$nonfree" >/dev/null <<SRC
Types: deb
URIs: http://deb.debian.org/debian
Suites: $codename
Components: non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi

apt_pkgs=(
  python3 python3-pip python3-venv git              # the app itself
  netperf iperf3 ethtool iproute2 pciutils procps   # benchmarks and the local Linux audit
  openssh-server openssh-client                      # the loopback ESXi/Linux SSH test hosts
  xvfb xauth poppler-utils fonts-dejavu-core         # GUI under Xvfb, PDF read-back and rendering
  libegl1 libgl1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libdbus-1-3
  libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-randr0
  libxcb-render-util0 libxcb-shape0 libxcb-xinerama0 libxcb-xkb1 libxcb-xfixes0
)
missing=()
for p in "${apt_pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ! command -v netperf >/dev/null 2>&1 || [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${apt_pkgs[@]}"
fi

# Python dependencies of the app and of the tests (pinned in pyproject.toml). Debian's own python3 is
# "externally managed" (PEP 668): there the app goes into .venv and its commands are linked into
# /usr/local/bin; a python3 that is not (pyenv, an active venv) gets an editable install directly.
py=python3
if python3 -c 'import os, sys, sysconfig; sys.exit(0 if os.path.exists(os.path.join(sysconfig.get_paths()["stdlib"], "EXTERNALLY-MANAGED")) and sys.prefix == sys.base_prefix else 1)'; then
  [ -x "$here/.venv/bin/python" ] || python3 -m venv "$here/.venv"
  py="$here/.venv/bin/python"
fi
"$py" -m pip install -q --disable-pip-version-check -e "$here[test]"
if [ "$py" != python3 ]; then
  for cmd in nic-advisor nic-advisor-gui lint-imports; do
    $SUDO ln -sf "$here/.venv/bin/$cmd" "/usr/local/bin/$cmd"
  done
fi

# A menu entry for the wizard on desktops.
if [ -d /usr/share/applications ]; then
  $SUDO install -m 0644 "$here/packaging/nic-advisor.desktop" /usr/share/applications/nic-advisor.desktop
fi

# govmomi's vCenter simulator and govc, for the live-vCenter tests and benchmarks/inventory
# (built from the Go module proxy; needs Go >= 1.21: Debian 12's golang-go is older, use its backports).
command -v go >/dev/null 2>&1 || $SUDO apt-get install -y -q --no-install-recommends golang-go || true
if command -v go >/dev/null 2>&1; then
  gobin=$(go env GOPATH)/bin
  for tool in vcsim govc; do
    if [ ! -x "$gobin/$tool" ]; then
      GOFLAGS=-mod=mod go install "github.com/vmware/govmomi/$tool@v0.46.3" \
        || echo "could not build $tool with $(go version): the live vCenter tests need it" >&2
    fi
  done
else
  echo "no Go toolchain: vcsim and govc (live vCenter tests, benchmarks/inventory) are not installed" >&2
fi
