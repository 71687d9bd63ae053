# Every keyword reaches the spec (tuner/src/model/spec.hpp) with its JSON type; PINNED mode copies the
# pinned header, running the tuner only to check it (`check --config`, the tuner being at hand); TARGET gets the include folder; the template, the
# benchmark and the pinned header become configure dependencies.
set(ADAEXPLORE_MODE PINNED)
add_library(blas INTERFACE)
adaexplore_tune_kernel(pinned_kernel
  TEMPLATE kernel.cu.in
  BENCHMARK bench.cu
  PARAMS TILE 16 32 64 0.5 -1 1e-3  UNROLL RANGE 1 8 2  SHIFT RANGE -4 4
  CONSTRAINTS "TILE * UNROLL <= 1024" "NAME == \"a\\b\""
  DEFAULTS TILE=32 UNROLL=3
  BUDGET 10
  TIME_LIMIT 2.5
  SEED 0
  JOBS 2
  IN_FLIGHT 6
  STRATEGY random
  NAMESPACE blas::tuning
  PINNED_HEADER pinned/spec_content.hpp
  ARCH 90
  COMPILE_OPTIONS -O3 "-DLABEL=\"a b\""
  INCLUDE_DIRECTORIES include
  RUN_ARGS --size 4096
  RUN_TIMEOUT 5
  RUN_TIMEOUT_FACTOR 8
  RUN_TIMEOUT_FLOOR 0.5
  COMPILE_TIMEOUT 60.5
  COMPILE_UNIT PROGRAM
  THREADS_PER_BLOCK "TILE * UNROLL"
  DYNAMIC_SHARED_BYTES "4 * (TILE + 1) * 2"
  TARGET blas)

set(here "${CMAKE_CURRENT_SOURCE_DIR}")
read_spec(spec pinned_kernel)
expect_json("${spec}" "pinned_kernel" name)
expect_json("${spec}" "cuda" backend)
expect_json("${spec}" "${here}/kernel.cu.in" template)
expect_json("${spec}" "${here}/bench.cu" benchmark)
expect_json("${spec}" "TILE" parameters 0 name)
string(JSON values GET "${spec}" parameters 0 values)
string(REGEX REPLACE "[ \n]" "" values "${values}")
expect_equal("${values}" "[16,32,64,0.5,-1,0.001]" "TILE values")
expect_json("${spec}" "1" parameters 1 range from)
expect_json("${spec}" "8" parameters 1 range to)
expect_json("${spec}" "2" parameters 1 range step)
expect_json("${spec}" "-4" parameters 2 range from)
expect_json("${spec}" "1" parameters 2 range step)
expect_no_json("${spec}" parameters 2 values)
expect_json("${spec}" "TILE * UNROLL <= 1024" constraints 0)
expect_json("${spec}" "NAME == \"a\\b\"" constraints 1)
expect_json("${spec}" "32" defaults TILE)
expect_json("${spec}" "3" defaults UNROLL)
expect_json("${spec}" "10" budget evaluations)
expect_json("${spec}" "2.5" budget seconds)
expect_json("${spec}" "0" seed)
expect_json("${spec}" "2" jobs)
expect_json("${spec}" "6" in_flight)
expect_json("${spec}" "program" compiler unit)
expect_json("${spec}" "random" strategy)
expect_json("${spec}" "blas::tuning" namespace)
expect_json("${spec}" "90" compiler arch)
expect_json("${spec}" "-O3" compiler flags 0)
expect_json("${spec}" "-DLABEL=\"a b\"" compiler flags 1)
expect_json("${spec}" "${here}/include" compiler include_dirs 0)
string(JSON n LENGTH "${spec}" compiler include_dirs)
expect_equal("${n}" "1" "number of include folders")
expect_json("${spec}" "60.5" compiler timeout_s)
expect_json("${spec}" "--size" run args 0)
expect_json("${spec}" "4096" run args 1)
expect_json("${spec}" "5" run timeout_s)
expect_json("${spec}" "8" run timeout_factor)
expect_json("${spec}" "0.5" run timeout_floor_s)
expect_json("${spec}" "TILE * UNROLL" launch threads_per_block)
expect_json("${spec}" "4 * (TILE + 1) * 2" launch dynamic_shared_bytes)
expect_no_json("${spec}" launch dynamic_shared_opt_in)
expect_json("${spec}" "work" work_dir)

expect_equal("${ADAEXPLORE_pinned_kernel_ORIGIN}" "PINNED" "ADAEXPLORE_pinned_kernel_ORIGIN")
set(header "${CMAKE_BINARY_DIR}/adaexplore/include/adaexplore/pinned_kernel.hpp")
expect_equal("${ADAEXPLORE_pinned_kernel_HEADER}" "${header}" "ADAEXPLORE_pinned_kernel_HEADER")
expect_equal("${ADAEXPLORE_GENERATED_INCLUDE_DIR}" "${CMAKE_BINARY_DIR}/adaexplore/include"
             "ADAEXPLORE_GENERATED_INCLUDE_DIR")
file(READ "${here}/pinned/spec_content.hpp" pinned)
file(READ "${header}" copied)
expect_equal("${copied}" "${pinned}" "the header copied from the pinned one")
get_target_property(includes blas INTERFACE_INCLUDE_DIRECTORIES)
expect_equal("${includes}" "$<BUILD_INTERFACE:${CMAKE_BINARY_DIR}/adaexplore/include>" "blas's include folders")
get_property(depends DIRECTORY PROPERTY CMAKE_CONFIGURE_DEPENDS)
foreach(file "${here}/kernel.cu.in" "${here}/bench.cu")
  if(NOT file IN_LIST depends)
    message(FATAL_ERROR "${file} is not in CMAKE_CONFIGURE_DEPENDS (${depends})")
  endif()
endforeach()
fake_tuner_calls(calls)
# The module's one call per kernel (the decision, in the real tuner), then its one step: the check.
list(FILTER calls EXCLUDE REGEX "^configure --request [^ ]*/pinned_kernel/configure-request\\.json --answer ")
list(FILTER calls EXCLUDE REGEX "^check --spec [^ ]*/pinned_kernel/spec.json --arch sm_90 --config TILE=0.001,UNROLL=3,SHIFT=-2 --config-from the pinned header [^ ]*/pinned/spec_content.hpp harness")
expect_equal("${calls}" "" "tuner calls in PINNED mode but the check of the pinned header")

# The harness for users' own benchmark builds.
expect_file_matches("${ADAEXPLORE_HARNESS_INCLUDE_DIR}/adaexplore/harness.cuh" "AdaExplore")
get_target_property(harness AdaExplore::harness INTERFACE_INCLUDE_DIRECTORIES)
expect_equal("${harness}" "${ADAEXPLORE_HARNESS_INCLUDE_DIR}" "AdaExplore::harness include folder")
