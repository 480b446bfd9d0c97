#!/usr/bin/env bash
# Builds the one-folder frozen NIC Advisor (PyInstaller): DIST/nic-advisor/nic-advisor runs every sub-command
# (audit, demo, gui, bench, history, and the benchmark agent as `nic-advisor agent ...`) with no Python
# installed; the rules, the demo lab and the templates travel inside it, and DIST/nic-advisor/nic-advisor.desktop
# starts the wizard. Usage: bash packaging/build-frozen.sh [DIST] (default: dist/). Needs the app installed in
# the running python (packaging/setup-debian.sh) and PyInstaller (installed from PyPI when missing).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dist=$(mkdir -p "${1:-$here/dist}" && cd "${1:-$here/dist}" && pwd)
py=python3
[ -x "$here/.venv/bin/python" ] && py="$here/.venv/bin/python"
"$py" -c 'import PyInstaller' 2>/dev/null || "$py" -m pip install -q --disable-pip-version-check "pyinstaller>=6"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/nic-advisor.py" <<'PY'
import multiprocessing
import sys

from nicadvisor.cli import main

if __name__ == "__main__":
    multiprocessing.freeze_support()  # the wizard writes its reports in a spawned child process
    sys.exit(main())
PY
"$py" -m PyInstaller --noconfirm --log-level WARN --onedir --name nic-advisor \
  --collect-submodules nicadvisor --collect-data nicadvisor \
  --distpath "$dist" --workpath "$work/build" --specpath "$work" "$work/nic-advisor.py"
cp "$here/app/nicadvisor/gui/nic-advisor.svg" "$dist/nic-advisor/nic-advisor.svg"
sed -e "s|^Exec=.*|Exec=\"$dist/nic-advisor/nic-advisor\" gui|" -e "s|^Icon=.*|Icon=$dist/nic-advisor/nic-advisor.svg|" \
  "$here/packaging/nic-advisor.desktop" \
  > "$dist/nic-advisor/nic-advisor.desktop"
echo "built $dist/nic-advisor/nic-advisor"
