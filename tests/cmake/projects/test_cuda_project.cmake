# cmake.project.cuda_*: configures and builds cuda_scale/, a CUDA library that adds AdaExplore as
# a subdirectory, then reconfigures and rebuilds with nothing changed.
#   cmake -DPROJECT_DIR=<cuda_scale> -DWORK_DIR=<dir> -DGENERATOR=<generator>
#         -DADAEXPLORE_SOURCE_DIR=<repository> [-DGPU=ON -DTUNER=<adaexplore-tuner>] -P test_cuda_project.cmake
# Without GPU (cuda_no_gpu): CUDA_VISIBLE_DEVICES is emptied, so the configure sees no GPU on any
# machine; the tuner is built at configure time from the sources; the headers must be the
# DEFAULTS and the pinned one, with one warning. With GPU=ON (cuda_gpu, skipped where the tuner
# sees no GPU): both kernels are tuned for real.
include("${CMAKE_CURRENT_LIST_DIR}/steps.cmake")
find_program(nvcc NAMES nvcc HINTS "$ENV{CUDA_PATH}/bin" /usr/local/cuda/bin)
if(NOT nvcc)
  message(STATUS "ADAEXPLORE_TEST_SKIPPED: no CUDA compiler (nvcc on PATH or in /usr/local/cuda/bin)")
  return()
endif()
if(GPU)
  execute_process(COMMAND "${TUNER}" device RESULT_VARIABLE rc OUTPUT_VARIABLE device)
  if(NOT rc EQUAL 0)
    message(STATUS "ADAEXPLORE_TEST_SKIPPED: no GPU: ${device}")
    return()
  endif()
  set(env "")
  set(options -DEXPECT_TUNED=1 "-DADAEXPLORE_TUNER_EXECUTABLE=${TUNER}" -DCMAKE_CUDA_ARCHITECTURES=native)
else()
  set(env "${CMAKE_COMMAND}" -E env CUDA_VISIBLE_DEVICES=)
  set(options -DEXPECT_TUNED=0)
endif()

set(build "${WORK_DIR}/build")
clean_build_keeping_tuner("${build}")
set(configure ${env} "${CMAKE_COMMAND}" -G "${GENERATOR}" -S "${PROJECT_DIR}" -B "${build}"
              "-DADAEXPLORE_SOURCE_DIR=${ADAEXPLORE_SOURCE_DIR}" "-DCMAKE_CUDA_COMPILER=${nvcc}" ${options})
set(headers "${build}/adaexplore/include/adaexplore/scale.hpp" "${build}/adaexplore/include/adaexplore/scale_pinned.hpp")
list(GET headers 0 header)

run_step(configure ${configure})
if(GPU)
  expect_match("${configure_OUTPUT}" "-- AdaExplore: CUDA GPU 0 \\(ADAEXPLORE_DEVICE\\): " "configure")
  expect_count("${configure_OUTPUT}" "-- AdaExplore: (scale|scale_pinned|saxpy): TUNED, header" 3 "configure")
  expect_file_matches("${header}" "kTuned = true")
  expect_file_matches("${header}" "// Winner: ")
else()
  expect_count("${configure_OUTPUT}" "CMake Warning" 3 "configure")  # no GPU; scale's and saxpy's defaults
  # The reason: no driver at all (this CI machine), or a driver that sees no GPU.
  expect_count("${configure_OUTPUT}" "AdaExplore: no CUDA GPU at configure time \\((no NVIDIA driver or GPU|cudaGetDeviceCount: )" 1 "configure")
  expect_match("${configure_OUTPUT}" "AdaExplore: scale: NOT TUNED, using the DEFAULTS \\(kTuned = false\\): No CUDA GPU at configure time: .*; and there is no pinned header [^ ]*/cuda_scale/pinned/scale\\.hpp\\." "configure")
  expect_match("${configure_OUTPUT}" "-- AdaExplore: scale_pinned: NOT TUNED here, using the pinned header [^ ]*/pinned/scale_pinned.hpp" "configure")
  expect_file_matches("${header}" "NOT TUNED: +these are the defaults\\. No CUDA GPU at configure time")
  expect_file_matches("${header}" "kTuned = false;\ninline constexpr int BLOCK = 128;\ninline constexpr int ITEMS = 2;")
  # saxpy: a macro-configured kernel checked without a GPU: its source configured with the defaults,
  # the benchmark the module wrote from ARGS, and the reference configuration compiled; the header
  # carries the machine line DEFINE_PARAMS reads and the #define lines.
  expect_match("${configure_OUTPUT}" "AdaExplore: saxpy: NOT TUNED, using the DEFAULTS" "configure")
  set(saxpy "${build}/adaexplore/include/adaexplore/saxpy.hpp")
  expect_file_matches("${saxpy}" "// adaexplore: {\"backend\":\"cuda\",\"config\":{\"block_size_x\":128,\"tile\":1},\"kernel\":\"saxpy\",\"macro_prefix\":\"SAXPY_\",\"namespace\":\"adaexplore::saxpy\",\"parameters\":\\[\"block_size_x\",\"tile\"\\],\"sizes\":")
  expect_file_matches("${saxpy}" "#define SAXPY_block_size_x 128\n#define SAXPY_tile 1\n")
  file(GLOB_RECURSE generated "${build}/_adaexplore/kernels/saxpy/work/saxpy_bench.cu")
  if(NOT generated)
    message(FATAL_ERROR "no generated benchmark for saxpy under ${build}/_adaexplore/kernels/saxpy/work")
  endif()
  list(GET generated 0 generated)
  expect_file_matches("${generated}" "bench\\.launch\\(kernel, arg_y, arg_x, static_cast<int>\\(bench\\.value\\(\"n\"\\)\\)\\)")
  expect_file_matches("${generated}" "bench\\.global<float>\\(\"factor\", ")
  file(READ "${PROJECT_DIR}/pinned/scale_pinned.hpp" pinned)
  file(READ "${build}/adaexplore/include/adaexplore/scale_pinned.hpp" copied)
  if(NOT copied STREQUAL pinned)
    message(FATAL_ERROR "scale_pinned.hpp is not a copy of the pinned header:\n${copied}")
  endif()
endif()
run_step(build "${CMAKE_COMMAND}" --build "${build}")  # scale.cu static_asserts the headers' values
file(GLOB library "${build}/*scale.*")
list(FILTER library INCLUDE REGEX "/(lib)?scale\\.(a|lib)$")
if(NOT library)
  message(FATAL_ERROR "the scale library was not built in ${build}")
endif()

# Nothing changed: no tuner rebuild, no header, spec or library rewritten.
set(tuner_exe "${build}/_adaexplore/tuner/bin/adaexplore-tuner")
set(files ${headers} "${build}/adaexplore/include/adaexplore/saxpy.hpp" "${build}/_adaexplore/kernels/scale/spec.json"
          "${build}/_adaexplore/kernels/saxpy/spec.json" ${library})
if(NOT GPU)
  list(APPEND files "${tuner_exe}")
endif()
mtimes(before ${files})
wait_a_second()
run_step(reconfigure ${configure})
expect_count("${reconfigure_OUTPUT}" "building the tuner" 0 "reconfigure")
if(GPU)
  expect_count("${reconfigure_OUTPUT}" "evaluations already measured" 2 "reconfigure (tuning database)")
  # saxpy has SIZES: each size says what it took from the database.
  expect_match("${reconfigure_OUTPUT}" "saxpy \\[N=1000000\\]: done \\(budget\\), [0-9]+ evaluations \\(0 new\\)" "reconfigure")
else()
  expect_count("${reconfigure_OUTPUT}" "AdaExplore: no CUDA GPU at configure time" 1 "reconfigure")
endif()
run_step(rebuild "${CMAKE_COMMAND}" --build "${build}")
mtimes(after ${files})
expect_unchanged("${before}" "${after}" "headers, spec, library or tuner")
