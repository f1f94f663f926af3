# Triton 3.9: a 64 x 64 fp32 transpose (a convert_layout through shared memory), compiled on the CPU for sm_90;
# python triton_transpose.py writes triton_transpose.ptx (the .file path then made relative).
import triton, triton.language as tl
from triton.backends.compiler import GPUTarget
@triton.jit
def transpose(x_ptr, y_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + r[None, :])
    tl.store(y_ptr + r[:, None] * N + r[None, :], tl.trans(x))
src = triton.compiler.ASTSource(fn=transpose, signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "N": "constexpr"}, constexprs={"N": 64})
k = triton.compile(src, target=GPUTarget("cuda", 90, 32))
open("triton_transpose.ptx", "w").write(k.asm["ptx"])
print("ok")
