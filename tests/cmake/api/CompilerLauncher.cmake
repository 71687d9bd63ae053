# COMPILER_LAUNCHER reaches the spec as compiler.launcher (tuner/src/model/spec.hpp). Without it,
# ADAEXPLORE_COMPILER_LAUNCHER applies, else CMAKE_CUDA_COMPILER_LAUNCHER (cuda) or
# CMAKE_CXX_COMPILER_LAUNCHER (host); with none of them the spec has no launcher.
set(ADAEXPLORE_MODE DEFAULTS)
set(args TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)

# expect_launcher(<kernel> <entry>...): the spec's compiler.launcher is exactly these entries.
function(expect_launcher kernel)
  read_spec(spec ${kernel})
  string(JSON n LENGTH "${spec}" compiler launcher)
  list(LENGTH ARGN expected)
  expect_equal("${n}" "${expected}" "${kernel}: number of launcher entries")
  set(i 0)
  foreach(entry IN LISTS ARGN)
    expect_json("${spec}" "${entry}" compiler launcher ${i})
    math(EXPR i "${i} + 1")
  endforeach()
endfunction()

adaexplore_tune_kernel(none ${args})
read_spec(spec none)
expect_no_json("${spec}" compiler launcher)

set(CMAKE_CUDA_COMPILER_LAUNCHER ccache)
set(CMAKE_CXX_COMPILER_LAUNCHER sccache)
adaexplore_tune_kernel(given ${args} COMPILER_LAUNCHER env CCACHE_SLOPPINESS=time_macros ccache)
expect_launcher(given env CCACHE_SLOPPINESS=time_macros ccache)
adaexplore_tune_kernel(cuda_default ${args})
expect_launcher(cuda_default ccache)
adaexplore_tune_kernel(host_default ${args} BACKEND host)
expect_launcher(host_default sccache)

set(ADAEXPLORE_COMPILER_LAUNCHER distcc --fast)
adaexplore_tune_kernel(global_cuda ${args})
expect_launcher(global_cuda distcc --fast)
adaexplore_tune_kernel(global_host ${args} BACKEND host)
expect_launcher(global_host distcc --fast)
adaexplore_tune_kernel(keyword_wins ${args} COMPILER_LAUNCHER ccache)
expect_launcher(keyword_wins ccache)
