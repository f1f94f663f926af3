#!/usr/bin/env bash
# The gpu tier's probes as one prepared script (bench/gpu_probe.py says what each step does):
#   bash bench/gpu_probe.sh gen OUT            # here, with the package's dependencies (z3 included)
#   bash bench/gpu_probe.sh run OUT            # on the GPU machine: nvcc, ncu, python3 with numpy/typer/rich
#   bash bench/gpu_probe.sh gen-broadcast OUT  # here: the repeated-address experiment (bench/gpu_broadcast.py)
#   bash bench/gpu_probe.sh analyze-broadcast OUT RESULTS   # its measurement against each hypothesis
# Results (summary.txt, summary.json, one folder per probe) go to OUT/results, or --results DIR.
# OUT and RESULTS are relative to the repository root (the script runs there).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-$( [ -x .venv/bin/python ] && echo .venv/bin/python || echo python3 )}"
case "${1:-}" in
  gen-broadcast) shift; exec "$PY" bench/gpu_broadcast.py gen "$@";;
  analyze-broadcast) shift; exec "$PY" bench/gpu_broadcast.py analyze "$@";;
esac
exec "$PY" bench/gpu_probe.py "$@"
