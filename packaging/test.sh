#!/usr/bin/env bash
# Installs everything the tests need (packaging/setup-debian.sh) and runs the whole test suite,
# the architecture contracts and the benchmark smoke runs. Used by the README and by .ci/run.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
bash packaging/setup-debian.sh --test
py=python3
if [ -x "$here/.venv/bin/python" ]; then   # Debian's externally managed python3: see setup-debian.sh
  export PATH="$here/.venv/bin:$PATH"
  py="$here/.venv/bin/python"
fi
export QT_QPA_PLATFORM=offscreen
export PATH="$(go env GOPATH 2>/dev/null || echo "$HOME/go")/bin:$PATH"
lint-imports --config pyproject.toml
# On every core (pytest-xdist): most of the suite waits on real parts (sshd, vcsim, netperf, Qt), so the workers
# overlap that waiting. --dist loadgroup keeps the tests of one xdist_group (a machine-wide resource, e.g. lldpd's
# default socket) on one worker, in turn. NICADVISOR_TEST_WORKERS=0 runs in this process; arguments given to this
# script come last and win (e.g. -n 0, -m "not slow"). Twice as many workers as cores: on the 2-core development
# machine -n 4 ran the 3,559 tests in 8 min 58 s against 11 min 7 s with -n 2 (1.9 cores busy), all green; 3,582
# tests in 7 min 43 s to 9 min 3 s on 2026-12-02 (the longest modules first: tests/conftest.py LONGEST_FIRST).
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
workers=${NICADVISOR_TEST_WORKERS:-$((2 * cores))}
status=0
"$py" -m pytest -p no:cacheprovider -n "$workers" --dist loadgroup "$@" || status=$?
if [ "$status" -eq 5 ]; then echo "no tests collected" >&2; exit 1; fi
if [ "$status" -ne 0 ]; then exit "$status"; fi
if [ -x benchmarks/smoke.sh ]; then PY="$py" bash benchmarks/smoke.sh; fi
