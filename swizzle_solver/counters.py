"""Counters in the profiler's words (DESIGN.md section 10): what Nsight Compute prints for a kernel
that makes one access once over the whole tile, every placement once.

The figures are the probe's prediction (probe/plan.py ``one_pass``: the instructions a probe kernel
issues for the access, and the simulator on the phases the hardware makes of them), the same that
the recorded H100 measurements agree with (tests/data/gpu); here they get ncu's metric names, which
the probe's kernels ask ncu for (probe/cuda.py):

- ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_X.sum`` = W, the wavefronts of every instruction
  summed;
- ``l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_X.sum`` = W - ideal, the ideal being one
  wavefront per phase (more for a phase of more than 128 B);

X = ``ld`` for loads (LDS), ``st`` for stores (STS), ``ldgsts`` for cp.async (LDGSTS: ncu counts its
shared-memory writes under their own op, not ``st``). ldmatrix and stmatrix (LDSM, STSM) are not
counted under the ``l1tex__...`` names of any op; ncu prints them as
``sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum`` (``_stsm``) and the bank
conflicts likewise, so those are their names here, as measured.

AMD targets keep DESIGN.md section 9's per-instruction ``SQ_LDS_BANK_CONFLICT`` (report.cost_json).
This module is the NVIDIA targets' profiler capability (hardware.Hardware.profiler = "swizzle_solver.counters"):
report.py imports it, and probe/plan.py with it, only when a document asks for counters.
"""
from __future__ import annotations

import numpy as np

from .model import InputError, Pattern, Problem
from .probe.plan import Op, one_pass


def ncu_op(op: Op) -> str:
    """ncu's name of the shared-memory op ``op`` is counted under: ld (LDS), st (STS), ldsm (LDSM),
    stsm (STSM), ldgsts (cp.async's LDGSTS: its shared writes are neither ld nor st)."""
    if op.copy:
        return "ldgsts"
    if op.matrices:
        return "stsm" if op.store else "ldsm"
    return "st" if op.store else "ld"


def l1tex(op: str) -> tuple[str, str]:
    """(wavefronts, bank conflicts) of ``op`` in the l1tex unit's names (ld, st and ldgsts only)."""
    return (f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum",
            f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum")


def sass(op: str) -> tuple[str, str]:
    """(wavefronts, bank conflicts) of ``op`` as the SASS-level counters name them (every op)."""
    return (f"sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum",
            f"sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum")


def ncu_names(op: str) -> list[tuple[str, str]]:
    """The (wavefronts, bank conflicts) name pairs ncu may print for ``op``, DESIGN.md section
    10's first: ncu versions differ in which exist (the probe's compare groups)."""
    return [l1tex(op), sass(op)] if op in ("ld", "st", "ldgsts") else [sass(op)]


def counter(problem: Problem, pattern: Pattern, table: np.ndarray) -> dict[str, int] | None:
    """``{wavefronts name: W, bank conflicts name: W - ideal}`` for one pass of ``pattern`` over the
    layout whose element table is ``table``; None where no kernel issues the access as one
    instruction (probe/plan.py refuses it: lanes of mixed widths, Blackwell's byte forms of
    ldmatrix)."""
    try:
        op, wavefronts, ideal = one_pass(pattern, problem, table)
    except InputError:
        return None
    waves, conflicts = ncu_names(ncu_op(op))[0]
    return {waves: wavefronts, conflicts: wavefronts - ideal}
