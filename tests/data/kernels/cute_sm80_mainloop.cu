// The shared-memory side of an SM80 GEMM mainloop written with CuTe (CUTLASS's cute/ headers, from
// the nvidia-cutlass wheel; BSD-3-Clause, NVIDIA): an A tile of 128 x 32 f16 (K-major), brought in
// with cp.async (SM80_CP_ASYNC_CACHEALWAYS<uint128_t>: 16 bytes per thread, a 32 x 4 thread layout
// over 32 rows x 4 chunks, repeated 4 times down the tile), and read with ldmatrix.x4
// (SM75_U32x4_LDSM_N: the A operand of SM80_16x8x16 per warp, lane l addressing row l % 16 and
// chunk l / 16 of the warp's 16 x 16 block), 4 warps along M, 2 M-blocks and 2 K-steps each, over
// K / 32 tiles. Written for this corpus (tests/test_kernel_sources.py): the thread-to-element maps
// are explicit here, the layouts and the instructions are CuTe's.
//
//   mainloop_swizzled   the smem layout CUTLASS's SM80 f16 GEMMs use for 32-element rows:
//                       composition(Swizzle<2,3,3>, Layout<Shape<_8,_32>, Stride<_32,_1>>) tiled to 128 x 32
//   mainloop_rowmajor   the same tile unswizzled (Layout<Shape<_128,_32>, Stride<_32,_1>>): each
//                       ldmatrix phase reads 8 rows 64 bytes apart, 4 to a pair of 128-byte lines (4-way)
#include <cute/tensor.hpp>

using namespace cute;

using SwizzledA = decltype(tile_to_shape(composition(Swizzle<2, 3, 3>{}, Layout<Shape<_8, _32>, Stride<_32, _1>>{}),
                                         Shape<_128, _32>{}));
using RowMajorA = Layout<Shape<_128, _32>, Stride<_32, _1>>;

template <class SmemLayout>
__device__ void mainloop(const half_t *A, int K, uint32_t *out) {
  __shared__ alignas(128) half_t smem[128 * 32];
  Tensor sA = make_tensor(make_smem_ptr(smem), SmemLayout{});
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  uint32_t acc = 0;
  for (int k0 = 0; k0 < K; k0 += 32) {
    // global -> shared: thread t copies row t / 4 + 32 i, elements 8 (t % 4) .. 8 (t % 4) + 7
    CUTE_UNROLL
    for (int i = 0; i < 4; ++i) {
      const int row = t / 4 + 32 * i, col = 8 * (t % 4);
      SM80_CP_ASYNC_CACHEALWAYS<uint128_t>::copy(*reinterpret_cast<const uint128_t *>(&A[row * K + k0 + col]),
                                                 *reinterpret_cast<uint128_t *>(&sA(row, col)));
    }
    cp_async_fence();
    cp_async_wait<0>();
    __syncthreads();
    // shared -> registers: warp w's 16 x 16 blocks at rows 64 m + 16 w, columns 16 k
    CUTE_UNROLL
    for (int m = 0; m < 2; ++m) {
      CUTE_UNROLL
      for (int k = 0; k < 2; ++k) {
        uint32_t r0, r1, r2, r3;
        SM75_U32x4_LDSM_N::copy(*reinterpret_cast<const uint128_t *>(&sA(64 * m + 16 * warp + lane % 16, 16 * k + 8 * (lane / 16))), r0, r1, r2, r3);
        acc += r0 ^ r1 ^ r2 ^ r3;
      }
    }
    __syncthreads();
  }
  out[t] = acc;
}

extern "C" __global__ void __launch_bounds__(128) mainloop_swizzled(const half_t *A, int K, uint32_t *out) {
  mainloop<SwizzledA>(A, K, out);
}

extern "C" __global__ void __launch_bounds__(128) mainloop_rowmajor(const half_t *A, int K, uint32_t *out) {
  mainloop<RowMajorA>(A, K, out);
}
