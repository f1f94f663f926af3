#include <cstdint>
__device__ __forceinline__ uint32_t smem_u32(const void *p) {
  uint32_t r;
  asm volatile("{ .reg .u64 smem_ptr; cvta.to.shared.u64 smem_ptr, %1; cvt.u32.u64 %0, smem_ptr; }\n" : "=r"(r) : "l"(p));
  return r;
}
// 64 x 64 b16 tile, rows 128 bytes: cp.async 16-byte chunks, then ldmatrix.x4 of 16 x 16 blocks.
__global__ void __launch_bounds__(128) copy_ldsm(const uint4 *g, uint32_t *out) {
  __shared__ __align__(128) uint16_t tile[64 * 64];
  int t = threadIdx.x;
  for (int i = 0; i < 4; ++i) {
    int chunk = t + i * 128;                 // 512 chunks of 16 bytes: row chunk / 8, column (chunk % 8) * 8
    uint32_t dst = smem_u32(&tile[(chunk / 8) * 64 + (chunk % 8) * 8]);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(dst), "l"(g + chunk));
  }
  asm volatile("cp.async.wait_all;\n" ::);
  __syncthreads();
  int warp = t / 32, lane = t % 32;
  uint32_t a0, a1, a2, a3;
  uint32_t src = smem_u32(&tile[(warp * 16 + lane % 16) * 64 + (lane / 16) * 8]);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(src));
  out[t] = a0 ^ a1 ^ a2 ^ a3;
}
