// Kernels whose `ptxas -v` reports the parser and resource-check tests read (regenerate.sh).
// Each kernel exercises one line of the report; the macros add the ones the compiler rejects.
// Compile only: these kernels are never run.

// Static shared memory: (T * (T + 1)) floats, 4224 bytes at T = 32, 43680 at T = 104 (under the
// 48 KiB static limit) and 58080 = 0xe2e0 at T = 120 (over it).
template <int T>
__global__ void tile_transpose(float* out, const float* in, int n) {
  __shared__ float tile[T][T + 1];
  const int x = blockIdx.x * T + threadIdx.x;
  const int y = blockIdx.y * T + threadIdx.y;
  for (int j = 0; j < T; j += blockDim.y)
    if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  for (int j = 0; j < T; j += blockDim.y)
    if (x < n && y + j < n) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}
template __global__ void tile_transpose<32>(float*, const float*, int);
template __global__ void tile_transpose<104>(float*, const float*, int);
#ifdef ADAEXPLORE_TILE_OVER_48K
template __global__ void tile_transpose<120>(float*, const float*, int);
#endif

// A per-thread array indexed at run time lives on the stack (local memory): 1024 bytes.
__global__ void stack_array(float* out, const float* in, int pick) {
  float values[256];
  values[0] = in[threadIdx.x];
  for (int i = 1; i < 256; ++i) values[i] = values[i - 1] * in[threadIdx.x + i] + i;
  values[pick & 255] += 1.0f;
  out[threadIdx.x] = values[(pick >> 8) & 255];
}

// A callee that is not inlined: its frame counts in the caller's cumulative stack size.
__device__ __noinline__ float gather(const float* in, int pick) {
  float values[32];
  for (int i = 0; i < 32; ++i) values[i] = in[i] + i;
  return values[pick & 31];
}
__global__ void calls_gather(float* out, const float* in) { out[threadIdx.x] = gather(in, threadIdx.x); }

// 1024 threads and 2 blocks per SM leave 32 registers per thread: the accumulators spill.
__global__ void __launch_bounds__(1024, 2) register_pressure(float* out, const float* in) {
  float acc[48];
#pragma unroll
  for (int i = 0; i < 48; ++i) acc[i] = in[threadIdx.x * 48 + i];
#pragma unroll
  for (int k = 0; k < 16; ++k)
#pragma unroll
    for (int i = 0; i < 48; ++i) acc[i] = acc[i] * acc[(i + k) % 48] + 1.0f;
  float sum = 0;
#pragma unroll
  for (int i = 0; i < 48; ++i) sum += acc[i];
  out[threadIdx.x] = sum;
}

// An unmangled name.
extern "C" __global__ void vector_add(float* c, const float* a, const float* b, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

#ifdef ADAEXPLORE_PARAMETER_OVERFLOW
struct Huge { float v[9000]; };  // 36000 bytes of parameters, over the 32764-byte limit
__global__ void huge_parameter(Huge h, float* out) { out[threadIdx.x] = h.v[threadIdx.x]; }
#endif

#ifdef ADAEXPLORE_CONSTANT_OVERFLOW
__constant__ float table[20000];  // 80000 bytes of constant memory, over the 64 KiB bank
__global__ void read_table(float* out) { out[threadIdx.x] = table[threadIdx.x]; }
#endif
