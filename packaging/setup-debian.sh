#!/usr/bin/env bash
# Installs NIC Advisor on a Debian 12 (bookworm) machine: the app and what it runs (netperf, iperf3, ethtool,
# the Qt libraries, the PDF fonts). With --test also everything the test suite needs (an SSH server, Xvfb,
# poppler, fontconfig, binutils for PyInstaller, busybox and Debian's ansible-core for the collector script and its
# playbook, Go from bookworm-backports when the system's is too old, and govmomi's vcsim/govc); a test dependency
# that cannot be installed stops the setup with a message.
# Idempotent; run as root (or with sudo available). Used by the README commands and by .ci/run (via test.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
with_tests=0
case "${1:-}" in
  --test) with_tests=1 ;;
  "") ;;
  *) echo "usage: setup-debian.sh [--test]" >&2; exit 2 ;;
esac
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
fail() { echo "setup-debian.sh: $*" >&2; exit 1; }
# shellcheck source=packaging/apt-sources.sh
. "$here/packaging/apt-sources.sh"

go_ok() {  # a Go toolchain >= 1.22 (govmomi v0.46.3 needs it) on PATH
  command -v go >/dev/null 2>&1 || return 1
  local v
  v=$(go env GOVERSION 2>/dev/null | sed -E 's/^go([0-9]+)\.([0-9]+).*/\1 \2/')
  [ -n "$v" ] && set -- $v && { [ "$1" -gt 1 ] || [ "$2" -ge 22 ]; }
}

# netperf lives in Debian's non-free component, a Go new enough for vcsim in bookworm-backports: both come from
# the mirror this machine already uses (never one written here).
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
mirror=$(debian_mirror /etc/apt) || fail "no Debian mirror found in this machine's apt sources (/etc/apt/sources.list, /etc/apt/sources.list.d): cannot add the non-free component that netperf needs"
backports=0
if [ "$with_tests" = 1 ] && ! go_ok; then backports=1; fi
sources=/etc/apt/sources.list.d/nicadvisor.sources
wanted=$(extra_sources "$mirror" "$codename" "$backports")
if [ "$backports" = 0 ] && [ -f "$sources" ] && grep -q -- "-backports" "$sources"; then
  wanted=$(extra_sources "$mirror" "$codename" 1)  # keep a backports entry an earlier --test run added
fi
changed=0
if [ ! -f "$sources" ] || [ "$(cat "$sources")" != "$wanted" ]; then
  printf '%s\n' "$wanted" | $SUDO tee "$sources" >/dev/null
  changed=1
fi
$SUDO rm -f /etc/apt/sources.list.d/nicadvisor-non-free.sources  # written by older versions, with a fixed host

app_pkgs=(
  python3 python3-pip python3-venv git                 # the app itself
  netperf iperf3 ethtool iproute2 pciutils procps      # benchmarks and the local Linux audit
  fonts-dejavu-core fonts-dejavu-extra                 # the PDF's fonts (regular/bold/mono; oblique is in -extra)
  libglib2.0-0 libegl1 libgl1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libdbus-1-3
  libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-randr0
  libxcb-render-util0 libxcb-shape0 libxcb-xinerama0 libxcb-xkb1 libxcb-xfixes0
)
test_pkgs=(
  openssh-server openssh-client                        # the loopback ESXi/Linux SSH test hosts
  iputils-ping                                         # the MTU path check run on the namespace test hosts
  libcap2-bin                                          # capsh: root tests drop the capabilities to meet EACCES
  xvfb xauth poppler-utils fontconfig                  # GUI under Xvfb, PDF read-back and rendering, fc-list
  binutils                                             # objdump, for the PyInstaller build test
  busybox                                              # the ESXi collector script runs under busybox sh (ESXi Shell)
  ansible-core                                         # ansible-playbook: packaging/ansible/collect.yml on lab hosts
  lldpd                                                # lldpctl: the switch-port read, tested between namespaces
)
# PyInstaller bundles the shared libpython of the interpreter (Debian's python3 does not pull it in)
pyver=$(python3 -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
test_pkgs+=("libpython$pyver")
pkgs=("${app_pkgs[@]}")
[ "$with_tests" = 1 ] && pkgs+=("${test_pkgs[@]}")
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ "$changed" = 1 ] || [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update -q
fi
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" || fail "could not install: ${missing[*]}"
fi
if [ "$with_tests" = 1 ] && command -v systemctl >/dev/null 2>&1 && systemctl is-active -q lldpd 2>/dev/null; then
  # Debian starts lldpd on install where systemd runs: the test lab starts its own lldpd on the default socket
  # (tests/collect/test_local_lldp_netns.py), and a test machine has no business announcing itself on its links
  $SUDO systemctl disable --now lldpd || fail "could not stop the lldpd that installing it started"
fi
command -v netperf >/dev/null 2>&1 || fail "netperf is not installed (Debian non-free, from $mirror)"

# Python dependencies (pinned in pyproject.toml). Debian's own python3 is "externally managed" (PEP 668): there the
# app goes into .venv and its commands are linked into /usr/local/bin; a python3 that is not (pyenv, an active
# venv) gets an editable install directly.
py=python3
if python3 -c 'import os, sys, sysconfig; sys.exit(0 if os.path.exists(os.path.join(sysconfig.get_paths()["stdlib"], "EXTERNALLY-MANAGED")) and sys.prefix == sys.base_prefix else 1)'; then
  [ -x "$here/.venv/bin/python" ] || python3 -m venv "$here/.venv"
  py="$here/.venv/bin/python"
fi
extra=""
[ "$with_tests" = 1 ] && extra="[test]"
"$py" -m pip install -q --disable-pip-version-check -e "$here$extra"
if [ "$py" != python3 ]; then
  for cmd in nic-advisor nic-advisor-gui lint-imports; do
    [ -x "$here/.venv/bin/$cmd" ] && $SUDO ln -sf "$here/.venv/bin/$cmd" "/usr/local/bin/$cmd"
  done
fi

# A menu entry for the wizard on desktops.
if [ -d /usr/share/applications ]; then
  $SUDO install -m 0644 "$here/packaging/nic-advisor.desktop" /usr/share/applications/nic-advisor.desktop
  # its Icon=nic-advisor: the wizard's own window icon, in the hicolor theme
  $SUDO install -D -m 0644 "$here/app/nicadvisor/gui/nic-advisor.svg" \
    /usr/share/icons/hicolor/scalable/apps/nic-advisor.svg
fi

[ "$with_tests" = 1 ] || exit 0

# govmomi's vCenter simulator and govc, for the live-vCenter tests and benchmarks/inventory (built from the Go
# module proxy; govmomi v0.46.3 needs Go >= 1.22: Debian 12's golang-go is 1.19, bookworm-backports has 1.23).
if ! go_ok; then
  $SUDO apt-get install -y -q --no-install-recommends -t "$codename-backports" golang-go \
    || fail "could not install golang-go from $codename-backports (Go >= 1.22 builds vcsim for the vCenter tests)"
  hash -r
  go_ok || fail "Go >= 1.22 is needed to build vcsim/govc; found: $(go version 2>&1 || echo none)"
fi
gobin=$(go env GOPATH)/bin
for tool in vcsim govc; do
  if [ ! -x "$gobin/$tool" ]; then
    GOFLAGS=-mod=mod go install "github.com/vmware/govmomi/$tool@v0.46.3" \
      || fail "could not build $tool with $(go version): the live vCenter tests need it"
  fi
done
