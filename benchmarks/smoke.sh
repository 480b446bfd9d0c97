#!/usr/bin/env bash
# Benchmark smoke runs for CI: each comparison once with tiny inputs, printing its side-by-side ratios.
# Not a pass/fail performance gate: a benchmark fails only if it cannot run at all.
set -euo pipefail
cd "$(dirname "$0")/.."
for b in benchmarks/*.py; do
  echo "== $b --smoke"
  "${PY:-python3}" "$b" --smoke
done
