#!/usr/bin/env bash
# The gpu tier's probes as one prepared script (bench/gpu_probe.py says what each step does):
#   bash bench/gpu_probe.sh gen OUT            # here, with the package's dependencies (z3 included)
#   bash bench/gpu_probe.sh run OUT            # on the GPU machine: nvcc, ncu, python3 with numpy/typer/rich
#   bash bench/gpu_probe.sh gen-broadcast OUT  # here: the repeated-address experiment (bench/gpu_broadcast.py)
#   bash bench/gpu_probe.sh analyze-broadcast OUT RESULTS   # its measurement against each hypothesis
#   bash bench/gpu_probe.sh gen-discriminate OUT            # here: issue 38's probes (bench/gpu_discriminate.py)
#   bash bench/gpu_probe.sh analyze-discriminate OUT RESULTS
# The next device run (docs/hardware.md, "The next device run"), every set in one call:
#   bash bench/gpu_probe.sh prepare OUT        # here: OUT/discriminate, OUT/tier, OUT/broadcast, and the plan
#   bash bench/gpu_probe.sh dry-run OUT        # here, no GPU: every kernel built by nvcc for sm_90 (NVCC=...)
#   bash bench/gpu_probe.sh device OUT [RUN]   # on the H100 (at most 6 minutes): runs all three sets, keeps
#                                              # the raw files under RUN (default tests/data/gpu/<gpu>-<date>),
#                                              # prints the agreement tables
# Results (summary.txt, summary.json, one folder per probe) go to OUT/results, or --results DIR.
# OUT and RESULTS are relative to the repository root (the script runs there).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-$( [ -x .venv/bin/python ] && echo .venv/bin/python || echo python3 )}"
SETS="discriminate tier broadcast"
case "${1:-}" in
  gen-broadcast) shift; exec "$PY" bench/gpu_broadcast.py gen "$@";;
  analyze-broadcast) shift; exec "$PY" bench/gpu_broadcast.py analyze "$@";;
  gen-discriminate) shift; exec "$PY" bench/gpu_discriminate.py gen "$@";;
  analyze-discriminate) shift; exec "$PY" bench/gpu_discriminate.py analyze "$@";;
  prepare)
    OUT="${2:?usage: bash bench/gpu_probe.sh prepare OUT}"
    "$PY" bench/gpu_discriminate.py gen "$OUT/discriminate" > "$OUT.plan.txt" || { cat "$OUT.plan.txt"; exit 1; }
    "$PY" bench/gpu_probe.py gen "$OUT/tier" > /dev/null
    "$PY" bench/gpu_broadcast.py gen "$OUT/broadcast" > /dev/null
    mv "$OUT.plan.txt" "$OUT/plan.txt"
    grep -v '^wrote \|^gpu_probe gen' "$OUT/plan.txt"
    echo "gpu_probe.sh prepare: $OUT ($(for s in $SETS; do printf '%s ' "$s: $(ls -d "$OUT/$s"/[0-9][0-9]-* | wc -l)"; done)probes); the plan: $OUT/plan.txt"
    exit 0;;
  dry-run)
    OUT="${2:?usage: bash bench/gpu_probe.sh dry-run OUT}"
    [ -d "$OUT/discriminate" ] || bash bench/gpu_probe.sh prepare "$OUT"
    if [ -z "${NVCC:-}" ] && ! command -v nvcc > /dev/null; then
      NVCC="$("$PY" -c 'import nvidia, pathlib; print(next(p for p in (pathlib.Path(d) / s / "bin" / "nvcc" for d in nvidia.__path__ for s in ("cu13", "cu12")) if p.exists()))' 2>/dev/null || true)"
      [ -n "$NVCC" ] || { echo "gpu_probe.sh dry-run: no nvcc (PATH, \$NVCC or the nvidia-cuda-nvcc wheel)" >&2; exit 1; }
      export NVCC
    fi
    status=0
    for s in $SETS; do
      "$PY" bench/gpu_probe.py run "$OUT/$s" --results "$OUT/dry-run/$s" --build-only || status=1
    done
    exit $status;;
  device)
    OUT="${2:?usage: bash bench/gpu_probe.sh device OUT [RUN]}"
    GPU="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 | tr 'A-Z ' 'a-z-' | sed 's/^nvidia-//; s/-.*//')"
    RUN="${3:-tests/data/gpu/${GPU:-gpu}-$(date -u +%Y-%m-%d)}"
    mkdir -p "$RUN"
    cp "$OUT/plan.txt" "$RUN/plan.txt" 2>/dev/null || true
    # the new probes first; then the sets measured before (the regression), within about 5 minutes in all
    python3 bench/gpu_probe.py run "$OUT/discriminate" --results "$RUN/discriminate" --timeout 60 --budget 90 || true
    python3 bench/gpu_probe.py run "$OUT/tier" --results "$RUN/tier" --timeout 60 --budget 150 || true
    python3 bench/gpu_probe.py run "$OUT/broadcast" --results "$RUN/broadcast" --timeout 60 --budget 45 || true
    echo; echo "== issue 38's hypotheses (measured vs each) =="
    python3 bench/gpu_discriminate.py analyze "$OUT/discriminate" "$RUN/discriminate" | tee "$RUN/discriminate/analysis.md" || true
    echo; echo "== the repeated-address experiment =="
    python3 bench/gpu_broadcast.py analyze "$OUT/broadcast" "$RUN/broadcast" > "$RUN/broadcast/analysis.md" || true
    tail -n 12 "$RUN/broadcast/analysis.md"
    echo "gpu_probe.sh device: raw files and summaries in $RUN"
    exit 0;;
esac
exec "$PY" bench/gpu_probe.py "$@"
