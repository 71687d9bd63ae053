execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BUILD_DIR}" --target adaexplore-pin
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
string(REGEX REPLACE "[ \t\r\n]+" " " out "${out}")
if(rc EQUAL 0 OR EXISTS "${BUILD_DIR}/pins/gemm.hpp"
   OR NOT out MATCHES "adaexplore-pin: no kernel was tuned in this build tree \\(gemm: DEFAULTS\\), so nothing was pinned\\. Configure it where the kernels tune")
  set(failed "building adaexplore-pin without a tuned kernel gave exit code ${rc}:\n${out}")
endif()
