// SGEMM with 2-D block tiling (SGEMM_CUDA's kernel 5 shape): 128 x 128 x 8 tiles, 256 threads, 8 x 8 per thread.
#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
__global__ void __launch_bounds__(256) sgemm2d(int M, int N, int K, const float *A, const float *B, float *C) {
  __shared__ float As[BM * BK];
  __shared__ float Bs[BK * BN];
  const int cRow = blockIdx.y, cCol = blockIdx.x;
  const int threadCol = threadIdx.x % (BN / TN), threadRow = threadIdx.x / (BN / TN);
  A += cRow * BM * K; B += cCol * BN; C += cRow * BM * N + cCol * BN;
  const int innerRowA = threadIdx.x / BK, innerColA = threadIdx.x % BK, strideA = 256 / BK;
  const int innerRowB = threadIdx.x / BN, innerColB = threadIdx.x % BN, strideB = 256 / BN;
  float acc[TM * TN] = {0.0f}, regM[TM], regN[TN];
  for (int k = 0; k < K; k += BK) {
    for (int o = 0; o < BM; o += strideA) As[(innerRowA + o) * BK + innerColA] = A[(innerRowA + o) * K + innerColA];
    for (int o = 0; o < BK; o += strideB) Bs[(innerRowB + o) * BN + innerColB] = B[(innerRowB + o) * N + innerColB];
    __syncthreads();
    A += BK; B += BK * N;
    for (int d = 0; d < BK; ++d) {
      for (int i = 0; i < TM; ++i) regM[i] = As[(threadRow * TM + i) * BK + d];
      for (int i = 0; i < TN; ++i) regN[i] = Bs[d * BN + threadCol * TN + i];
      for (int m = 0; m < TM; ++m) for (int n = 0; n < TN; ++n) acc[m * TN + n] += regM[m] * regN[n];
    }
    __syncthreads();
  }
  for (int m = 0; m < TM; ++m) for (int n = 0; n < TN; ++n) C[(threadRow * TM + m) * N + threadCol * TN + n] = acc[m * TN + n];
}

// SGEMM_CUDA's kernel 6 shape: A stored transposed into As (4 scalar stores per float4), B copied as
// float4, and the 8 results' operands read as float4 (nvcc's ld.shared.v4) from both tiles.
__global__ void __launch_bounds__(256) sgemm_vec(int M, int N, int K, const float *A, const float *B, float *C) {
  __shared__ float As[BM * BK];
  __shared__ float Bs[BK * BN];
  const int cRow = blockIdx.y, cCol = blockIdx.x;
  const int threadCol = threadIdx.x % (BN / TN), threadRow = threadIdx.x / (BN / TN);
  A += cRow * BM * K; B += cCol * BN; C += cRow * BM * N + cCol * BN;
  const int innerRowA = threadIdx.x / (BK / 4), innerColA = threadIdx.x % (BK / 4);
  const int innerRowB = threadIdx.x / (BN / 4), innerColB = threadIdx.x % (BN / 4);
  float acc[TM * TN] = {0.0f}, regM[TM], regN[TN];
  for (int k = 0; k < K; k += BK) {
    float4 tmp = reinterpret_cast<const float4 *>(&A[innerRowA * K + innerColA * 4])[0];
    As[(innerColA * 4 + 0) * BM + innerRowA] = tmp.x;
    As[(innerColA * 4 + 1) * BM + innerRowA] = tmp.y;
    As[(innerColA * 4 + 2) * BM + innerRowA] = tmp.z;
    As[(innerColA * 4 + 3) * BM + innerRowA] = tmp.w;
    reinterpret_cast<float4 *>(&Bs[innerRowB * BN + innerColB * 4])[0] =
        reinterpret_cast<const float4 *>(&B[innerRowB * N + innerColB * 4])[0];
    __syncthreads();
    A += BK; B += BK * N;
    for (int d = 0; d < BK; ++d) {
      for (int i = 0; i < TM; ++i) regM[i] = As[d * BM + threadRow * TM + i];
      for (int i = 0; i < TN; ++i) regN[i] = Bs[d * BN + threadCol * TN + i];
      for (int m = 0; m < TM; ++m) for (int n = 0; n < TN; ++n) acc[m * TN + n] += regM[m] * regN[n];
    }
    __syncthreads();
  }
  for (int m = 0; m < TM; ++m) for (int n = 0; n < TN; ++n) C[(threadRow * TM + m) * N + threadCol * TN + n] = acc[m * TN + n];
}
