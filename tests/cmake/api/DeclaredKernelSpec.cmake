# Issue 36's keywords reach the spec: a macro-configured source (KERNEL_SOURCE instead of
# TEMPLATE), the kernel's name, the launch shape, declared arguments (ARGS instead of BENCHMARK),
# the reference and tolerance, and the macro prefix ("" allowed). REFERENCE DEFAULTS is the
# reference's value, not the DEFAULTS keyword: the DEFAULTS given after it stay the defaults.
set(ADAEXPLORE_MODE DEFAULTS)
adaexplore_tune_kernel(stencil
  KERNEL_SOURCE kernel.cu.in
  KERNEL_NAME   stencil_kernel
  PARAMS        block_size_x 32 64  block_size_y 1 2
  REFERENCE     DEFAULTS
  DEFAULTS      block_size_x=64 block_size_y=2
  SIZES         "W=4096 H=2048"
  BLOCK_DIM     block_size_x block_size_y
  GRID_DIM      "ceil(W / block_size_x)" "ceil(H / block_size_y)"
  ARGS          "inout float x_new[W * H]" "input float x_old[W * H]" "scalar int w = W"
  TOLERANCE     REL 0 ABS "4 * sqrt(W) * 2**-24"
  MACRO_PREFIX  "")
read_spec(spec stencil)
set(here "${CMAKE_CURRENT_SOURCE_DIR}")
expect_json("${spec}" "${here}/kernel.cu.in" kernel_source)
expect_no_json("${spec}" template)
expect_no_json("${spec}" benchmark)
expect_json("${spec}" "stencil_kernel" kernel)
expect_json("${spec}" "block_size_x" launch block 0)
expect_json("${spec}" "ceil(H / block_size_y)" launch grid 1)
expect_json("${spec}" "inout float x_new[W * H]" arguments 0)
expect_json("${spec}" "scalar int w = W" arguments 2)
expect_json("${spec}" "defaults" reference)
expect_json("${spec}" "64" defaults block_size_x)
expect_json("${spec}" "2" defaults block_size_y)
expect_json("${spec}" "0" tolerance rel)
expect_json("${spec}" "4 * sqrt(W) * 2**-24" tolerance abs)
expect_json("${spec}" "" macro_prefix)

# REFERENCE with a configuration of its own.
adaexplore_tune_kernel(stencil2 KERNEL_SOURCE kernel.cu.in KERNEL_NAME stencil_kernel
  PARAMS block_size_x 32 64 ARGS "output float y[64]" BLOCK_DIM block_size_x GRID_DIM 1
  REFERENCE block_size_x=32)
read_spec(spec stencil2)
expect_json("${spec}" "32" reference config block_size_x)
expect_no_json("${spec}" defaults)
