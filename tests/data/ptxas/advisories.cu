// A kernel that compiles (exit 0) with ptxas performance advisories, for sm_90a only
// (regenerate.sh: sm_90a_advisories.txt): two wgmma.mma_async with an ordinary instruction
// between them that writes their accumulator, so ptxas injects warpgroup.arrive/wait (C7519,
// C7517) and serializes them (C7511 "Potential Performance Loss"). Never run: the descriptor and
// the A fragment are garbage. nvcc -arch=sm_90a also makes compute_90 PTX for a whole program,
// where wgmma does not exist: the body is for sm_90a's features alone.
__global__ void wgmma_serialized(float* out, unsigned long long desc, unsigned a) {
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
  asm volatile(
      "wgmma.fence.sync.aligned;\n"
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, {%4, %4, %4, %4}, %5, 1, 1, 1, 1;\n"
      "wgmma.commit_group.sync.aligned;\n"
      : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
      : "r"(a), "l"(desc));
  d0 += 1.0f;
  asm volatile(
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, {%4, %4, %4, %4}, %5, 1, 1, 1, 1;\n"
      "wgmma.commit_group.sync.aligned;\n"
      "wgmma.wait_group.sync.aligned 0;\n"
      : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
      : "r"(a), "l"(desc));
#endif
  out[threadIdx.x] = d0 + d1 + d2 + d3;
}
