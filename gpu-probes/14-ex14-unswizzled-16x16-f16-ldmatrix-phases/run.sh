#!/usr/bin/env bash
# Runs the probe under Nsight Compute and writes ncu.csv (every kernel's counters, ncu --csv), which
# `swizzle-solve probe-compare .` compares with prediction.json; device.txt says what ran it.
# $NCU: the ncu to use (default: ncu on PATH). Builds the probe first if needed (build.sh).
set -uo pipefail
cd "$(dirname "$0")"
export LC_ALL=C  # numbers as probe-compare reads them (no locale's decimal comma)
NCU="${NCU:-ncu}"
if [ ! -x probe ] || [ probe.cu -nt probe ]; then
  bash build.sh || { echo "run.sh: the build failed" >&2; exit 1; }
fi
# the probe alone first: it checks that every load read the planned bytes (probe.out; exit 3: one did not)
./probe > probe.out
status=$?
cat probe.out
if [ $status -eq 3 ]; then
  echo "run.sh: a checksum differs (see above): measuring anyway; probe-compare reports it" >&2
elif [ $status -ne 0 ]; then
  echo "run.sh: the probe failed without the profiler (see above)" >&2; exit 1
fi
WANTED=(
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum \
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum \
  sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum \
  sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum \
  l1tex__data_pipe_lsu_wavefronts_mem_shared.sum \
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum \
  smsp__sass_inst_executed_op_shared_ld.sum \
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum \
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum \
  smsp__sass_inst_executed_op_shared_st.sum
)
run_ncu() {
  rm -f ncu.csv.part
  "$NCU" --csv --print-units base --kernel-name regex:'^probe_a[0-9]+' --metrics "$(IFS=,; echo "$*")" \
    --log-file ncu.csv.part ./probe profile > ncu.stdout 2> ncu.stderr && grep -q probe_a ncu.csv.part
}
if ! run_ncu "${WANTED[@]}"; then
  # an ncu that lacks one of the metrics stops at it: keep those its --query-metrics lists, try again
  KNOWN=$("$NCU" --query-metrics 2>/dev/null || true)
  USE=()
  for m in "${WANTED[@]}"; do
    if grep -qE "(^|[[:space:]])${m%.sum}([[:space:]]|$)" <<<"$KNOWN"; then USE+=("$m"); fi
  done
  if [ ${#USE[@]} -eq 0 ] || ! run_ncu "${USE[@]}"; then
    echo "run.sh: ncu failed:" >&2; tail -n 20 ncu.stderr ncu.csv.part >&2 2>/dev/null; exit 1
  fi
fi
mv ncu.csv.part ncu.csv
{
  echo "gpu: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)"
  echo "driver: $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
  echo "ncu: $("$NCU" --version 2>/dev/null | tail -n 1)"
  echo "nvcc: $("${NVCC:-nvcc}" --version 2>/dev/null | tail -n 1)"
  echo "date: $(date -u +%Y-%m-%d)"
} > device.txt
echo "run.sh: wrote ncu.csv; compare: swizzle-solve probe-compare $(pwd)"
