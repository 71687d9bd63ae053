#!/usr/bin/env bash
# Whether Nsight Compute reads the counters the report's profiling stage asks for on a Hopper GPU
# (the probe is built for sm_90 and the metrics queried for the gh100 chip: H100, H200): ncu's
# version, which of the metrics exist (--query-metrics), and the raw CSV page of one small kernel
# profiled with them (--clock-control none). Output under $OUT (default ./ncu-probe-out).
#   usage: OUT=dir bash tools/ncu-probe.sh
set -u
OUT=${OUT:-./ncu-probe-out}; mkdir -p "$OUT"
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
"$NCU" --version > "$OUT/ncu-version.txt" 2>&1
cat > "$OUT/probe.cu" <<'CU'
#include <cstdio>
__global__ void saxpy(int n, float a, const float* x, float* y) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? x[i] : 0.f;
  __syncthreads();
  if (i < n) y[i] = a * s[(threadIdx.x * 2) % 256] + y[i];
}
int main() {
  int n = 1 << 26; float *x, *y;
  cudaMalloc(&x, n * 4); cudaMalloc(&y, n * 4);
  for (int r = 0; r < 3; ++r) saxpy<<<n / 256, 256>>>(n, 2.f, x, y);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("probe: %s\n", cudaGetErrorString(e));
  return e != cudaSuccess;
}
CU
nvcc -O3 -arch=sm_90 -o "$OUT/probe" "$OUT/probe.cu" > "$OUT/nvcc.log" 2>&1
METRICS=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes.sum.per_second,sm__warps_active.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,lts__t_sector_hit_rate.pct,launch__occupancy_limit_registers,sm__maximum_warps_per_active_cycle_pct
for r in long_scoreboard short_scoreboard barrier mio_throttle math_pipe_throttle wait not_selected lg_throttle membar dispatch_stall no_instruction branch_resolving tex_throttle drain imc_miss sleeping selected; do
  METRICS+=",smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"
done
echo "$METRICS" > "$OUT/metrics.txt"
"$NCU" --query-metrics --chip gh100 > "$OUT/query-metrics.txt" 2>&1
for m in ${METRICS//,/ }; do base=${m%%.*}; grep -q "^$base " "$OUT/query-metrics.txt" && echo "have $m" || echo "MISSING $m"; done > "$OUT/metrics-check.txt"
time "$NCU" --clock-control none --metrics "$METRICS" --kernel-name regex:saxpy --launch-skip 1 --launch-count 1 \
  --export "$OUT/probe" --force-overwrite "$OUT/probe" > "$OUT/ncu-run.log" 2>&1
echo "rc=$?" >> "$OUT/ncu-run.log"
"$NCU" --import "$OUT/probe.ncu-rep" --csv --page raw > "$OUT/raw.csv" 2> "$OUT/import.err"
"$NCU" --import "$OUT/probe.ncu-rep" --csv --page raw --print-units base > "$OUT/raw-base.csv" 2>> "$OUT/import.err"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt" 2>&1
ls -la "$OUT"
