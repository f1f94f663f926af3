// Transposes with a 32 x 32 tile of floats, blocks of 32 x 8 threads (cuda-samples' pattern).
// naive: the tile read down a column (32-way conflicts); padded: a pitch of 33 (none).
#define TILE 32
#define ROWS 8

__global__ void transpose_naive(float *out, const float *in, int width) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) out[(y + j) * width + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void transpose_padded(float *out, const float *in, int width) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) out[(y + j) * width + x] = tile[threadIdx.x][threadIdx.y + j];
}

// A loop whose trip count is a parameter, and an if/else whose lanes diverge.
__global__ void column_sum(float *out, int n) {
  __shared__ float s[2048];
  float acc = 0;
  for (int i = 0; i < n; ++i) acc += s[threadIdx.x * 32 + i];
  if (threadIdx.x & 1) s[threadIdx.x] = acc; else s[threadIdx.x * 2] = acc + 1;
  out[threadIdx.x] = acc;
}
