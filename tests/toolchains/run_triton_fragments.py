"""Triton 3.9's dot-operand layouts of an NVIDIA mma.sync (MMA v2) operand, per lane (CPU, no GPU).

Usage: python run_triton_fragments.py IN.json OUT.json, IN = {case: {"operand": 0 | 1, "shape": [R, C],
"k_width": W}}, OUT = {case: {"lanes": [[[row, col], ...] for each of 32 lanes]} or {"error": "..."}}.

For each case the Gluon layout ``DotOperandLayout(operand, NVMMADistributedLayout(version=[2, 0],
warps_per_cta=[1, 1], instr_shape=[16, 8]), k_width)`` of one warp is turned into its linear layout by
Triton's C++ conversion (``to_linear_layout``, LinearLayoutConversions.cpp), and each lane's elements
are listed: the XOR of its lane bases and every combination of the register bases (the warp and block
bases are 0: one warp). Run in its own process by test_triton_fragments.py.
"""
import json
import sys
import traceback


def span(bases: list[list[int]]) -> set[tuple[int, int]]:
    """Every XOR combination of ``bases`` ([row, col] each)."""
    points = {(0, 0)}
    for r, c in bases:
        points |= {(pr ^ r, pc ^ c) for pr, pc in points}
    return points


def lanes_of(linear) -> list[list[list[int]]]:
    reg = [list(b) for b in linear.reg_bases]
    lane = [list(b) for b in linear.lane_bases]
    out = []
    for l in range(32):
        r0 = c0 = 0
        for bit, (r, c) in enumerate(lane):
            if l >> bit & 1:
                r0, c0 = r0 ^ r, c0 ^ c
        out.append(sorted([r0 ^ r, c0 ^ c] for r, c in span(reg)))
    return out


def main(src: str, dst: str) -> None:
    from triton._C.libtriton import gluon_ir, ir
    from triton.experimental.gluon import language as ttgl

    context = ir.context()
    ir.load_dialects(context)
    builder = gluon_ir.GluonOpBuilder(context)
    results = {}
    with open(src) as f:
        cases = json.load(f)
    for case, spec in cases.items():
        try:
            parent = ttgl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[1, 1], instr_shape=[16, 8])
            layout = ttgl.DotOperandLayout(operand_index=spec["operand"], parent=parent, k_width=spec["k_width"])
            linear = builder.to_linear_layout(layout._to_ir(builder), spec["shape"])
            results[case] = {"lanes": lanes_of(linear), "repr": repr(linear)}
        except Exception:  # the case's own failure, reported by its test
            results[case] = {"error": traceback.format_exc()[-3000:]}
    with open(dst, "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main(*sys.argv[1:])
