# The configure-time build of the tuner from its sources, with a stand-in source tree (no compiler
# needed): built on the first configure, reused while its sources are unchanged, rebuilt when one
# changes (see TunerBuild-check.cmake).
set(source "${CMAKE_BINARY_DIR}/tuner-source")
if(NOT EXISTS "${source}")
  file(COPY "${CMAKE_CURRENT_SOURCE_DIR}/tuner-source" DESTINATION "${CMAKE_BINARY_DIR}")
  file(WRITE "${source}/fake-tuner-path.txt" "${ADAEXPLORE_TUNER_EXECUTABLE}")
endif()
set_property(GLOBAL PROPERTY _ADAEXPLORE_TUNER_SOURCE_DIR "${source}")
set(ADAEXPLORE_TUNER_EXECUTABLE "")  # neither given nor installed: built from source
set(ADAEXPLORE_MODE DEFAULTS)
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)

expect_file_matches("${ADAEXPLORE_gemm_HEADER}" "kTuned = false")
expect_fake_tuner_calls(defaults 1)
expect_file_matches("${CMAKE_BINARY_DIR}/_adaexplore/tuner/adaexplore-init.cmake"
                    "set\\(CMAKE_BUILD_TYPE \"Release\" CACHE STRING \"\"\\)")
