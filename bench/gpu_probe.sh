#!/usr/bin/env bash
# The gpu tier's probes as one prepared script (bench/gpu_probe.py says what each step does):
#   bash bench/gpu_probe.sh gen OUT        # here, with the package's dependencies (z3 included)
#   bash bench/gpu_probe.sh run OUT        # on the GPU machine: nvcc, ncu, python3 with numpy/typer/rich
# Results (summary.txt, summary.json, one folder per probe) go to OUT/results, or --results DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-$( [ -x .venv/bin/python ] && echo .venv/bin/python || echo python3 )}"
exec "$PY" bench/gpu_probe.py "$@"
