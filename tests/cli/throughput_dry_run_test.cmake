# `bash tools/device-run.sh throughput` as far as it goes without a GPU (issue 37, item 16): the
# gemm example configured as device-run.sh configures it (ADAEXPLORE_MODE=DEFAULTS: the spec file,
# nothing tuned), then bench/throughput.py run with device-run.sh's arguments and --dry-run: the
# spec at one size (the example declares SIZES), the tuner's `check --no-compile` of it, and every
# option `run` passes to `tune` and `measure` against their --help. Keep the two commands below
# the same as tools/device-run.sh's throughput step.
#   cmake -DTUNER=<adaexplore-tuner> -DSOURCE=<repository> -DWORK=<scratch folder> -DGENERATOR=<generator> -P throughput_dry_run_test.cmake
# Skipped, with the reason, without nvcc (the example is a CUDA project) or python3.
foreach(var TUNER SOURCE WORK GENERATOR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "throughput_dry_run_test.cmake: -D${var}=... is required")
  endif()
endforeach()
find_program(nvcc nvcc HINTS /usr/local/cuda/bin)
find_program(python python3)
if(NOT nvcc OR NOT python)
  message(STATUS "ADAEXPLORE_TEST_SKIPPED: no nvcc or no python3 (the gemm example is a CUDA project)")
  return()
endif()
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE}/examples/gemm" -B "${WORK}/build-throughput" -G "${GENERATOR}"
                        -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_CUDA_COMPILER=${nvcc}"
                        "-DADAEXPLORE_TUNER_EXECUTABLE=${TUNER}" -DADAEXPLORE_MODE=DEFAULTS
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring examples/gemm as tools/device-run.sh throughput does: exit ${rc}\n${out}\n${err}")
endif()
set(spec "${WORK}/build-throughput/_adaexplore/kernels/gemm/spec.json")
execute_process(COMMAND "${python}" "${SOURCE}/bench/throughput.py" run --spec "${spec}" --tuner "${TUNER}"
                        --out "${WORK}/throughput" --budget 100 --time-limit 150 --before --dry-run
                WORKING_DIRECTORY "${SOURCE}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "${out}${err}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "dry run: ok")
  message(FATAL_ERROR "bench/throughput.py run --dry-run, with tools/device-run.sh's arguments: exit ${rc}\n${out}\n${err}")
endif()
# The example declares SIZES; the tuning throughput.py runs is the one size it compares at.
file(READ "${spec}" original)
string(JSON sizes ERROR_VARIABLE none GET "${original}" sizes)
if(NOT none STREQUAL "NOTFOUND")
  message(STATUS "the example's spec has no sizes (GEMM_SIZES empty?)")
elseif(NOT EXISTS "${WORK}/build-throughput/_adaexplore/kernels/gemm/spec-4096.json")
  message(FATAL_ERROR "the example's spec has sizes, and throughput.py wrote no one-size spec-4096.json beside it")
endif()
if(NOT out MATCHES "would run: [^\n]* tune --spec [^\n]*spec-4096\\.json")
  message(FATAL_ERROR "throughput.py would not tune the one-size spec:\n${out}")
endif()
