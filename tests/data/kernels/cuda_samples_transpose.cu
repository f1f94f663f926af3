// Shared-memory matrix transposes in the form of NVIDIA's cuda-samples
// (Samples/6_Performance/transpose/transpose.cu, BSD-3-Clause, Copyright (c) 2022 NVIDIA
// CORPORATION): TILE_DIM 32 and BLOCK_ROWS 16 as that sample defines them, launched with blocks of
// TILE_DIM x BLOCK_ROWS threads. The lines that index the shared tile are the sample's; the rest is
// written for this corpus (tests/test_kernel_sources.py counts every shared-memory instruction of
// these kernels against a per-lane brute force of those lines).
//
// The sample's notice:
//
// Copyright (c) 2022, NVIDIA CORPORATION. All rights reserved.
//
// Redistribution and use in source and binary forms, with or without
// modification, are permitted provided that the following conditions
// are met:
//  * Redistributions of source code must retain the above copyright
//    notice, this list of conditions and the following disclaimer.
//  * Redistributions in binary form must reproduce the above copyright
//    notice, this list of conditions and the following disclaimer in the
//    documentation and/or other materials provided with the distribution.
//  * Neither the name of NVIDIA CORPORATION nor the names of its
//    contributors may be used to endorse or promote products derived
//    from this software without specific prior written permission.
//
// THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS ``AS IS'' AND ANY
// EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
// IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR
// PURPOSE ARE DISCLAIMED.  IN NO EVENT SHALL THE COPYRIGHT OWNER OR
// CONTRIBUTORS BE LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL,
// EXEMPLARY, OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO,
// PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR
// PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON ANY THEORY
// OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT
// (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE
// OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
//
//   transposeNaive             no shared memory
//   transposeCoalesced         tile[TILE_DIM][TILE_DIM]: the column read is a 32-way bank conflict
//   transposeNoBankConflicts   tile[TILE_DIM][TILE_DIM + 1]: the sample's padding fix
//   transposeSwizzled          tile[TILE_DIM][TILE_DIM] under the layout swizzle-solve answers for
//                              the same accesses (--rows 32 --cols 32 --access row --access col:
//                              Swizzle<5,0,5>, phys = p ^ ((p >> 5) & 31), p = r * 32 + c)
#define TILE_DIM 32
#define BLOCK_ROWS 16

extern "C" __global__ void transposeNaive(float *odata, const float *idata, int width, int height) {
  int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
  int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
  int index_in = xIndex + width * yIndex;
  int index_out = yIndex + height * xIndex;
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
    odata[index_out + i] = idata[index_in + i * width];
  }
}

extern "C" __global__ void transposeCoalesced(float *odata, const float *idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM];
  int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
  int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
  int index_in = xIndex + (yIndex)*width;
  xIndex = blockIdx.y * TILE_DIM + threadIdx.x;
  yIndex = blockIdx.x * TILE_DIM + threadIdx.y;
  int index_out = xIndex + (yIndex)*height;
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
    tile[threadIdx.y + i][threadIdx.x] = idata[index_in + i * width];
  }
  __syncthreads();
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
    odata[index_out + i * height] = tile[threadIdx.x][threadIdx.y + i];
  }
}

extern "C" __global__ void transposeNoBankConflicts(float *odata, const float *idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
  int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
  int index_in = xIndex + (yIndex)*width;
  xIndex = blockIdx.y * TILE_DIM + threadIdx.x;
  yIndex = blockIdx.x * TILE_DIM + threadIdx.y;
  int index_out = xIndex + (yIndex)*height;
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
    tile[threadIdx.y + i][threadIdx.x] = idata[index_in + i * width];
  }
  __syncthreads();
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
    odata[index_out + i * height] = tile[threadIdx.x][threadIdx.y + i];
  }
}

// swizzle-solve --emit cuda for the same two accesses (Swizzle<5,0,5>)
static inline __device__ int swizzle_phys(int r, int c) {
  const int p = r * 32 + c;  // logical element offset
  return p ^ ((p >> 5) & 31);  // Swizzle<5,0,5>
}

extern "C" __global__ void transposeSwizzled(float *odata, const float *idata, int width, int height) {
  __shared__ float tile[TILE_DIM * TILE_DIM];
  int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
  int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
  int index_in = xIndex + (yIndex)*width;
  xIndex = blockIdx.y * TILE_DIM + threadIdx.x;
  yIndex = blockIdx.x * TILE_DIM + threadIdx.y;
  int index_out = xIndex + (yIndex)*height;
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
    tile[swizzle_phys(threadIdx.y + i, threadIdx.x)] = idata[index_in + i * width];
  }
  __syncthreads();
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
    odata[index_out + i * height] = tile[swizzle_phys(threadIdx.x, threadIdx.y + i)];
  }
}
