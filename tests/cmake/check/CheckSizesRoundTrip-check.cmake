# Pins the defaults header of sizes the first configure wrote, then reconfigures in PINNED mode:
# the same sizes fit (the module reads the tuner's own // Sizes: line and kSizes table); other sizes
# are an error naming both.
set(pin_dir "${BUILD_DIR}/pin")
file(MAKE_DIRECTORY "${pin_dir}")
file(COPY "${BUILD_DIR}/adaexplore/include/adaexplore/scale_sizes.hpp" DESTINATION "${pin_dir}")
execute_process(COMMAND ${reconfigure_command} -DADAEXPLORE_MODE=PINNED "-DADAEXPLORE_PINNED_DIR=${pin_dir}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "scale_sizes: NOT TUNED here, using the pinned header [^\n]*/pin/scale_sizes\\.hpp"
   OR NOT out MATCHES "the pinned header [^\n]*/pin/scale_sizes\\.hpp BLOCK=128,ITEMS=2 in the space")
  set(failed "PINNED mode with the pinned defaults header of the same sizes (exit code ${rc}) should use it:\n${out}\n${err}")
  return()
endif()
execute_process(COMMAND ${reconfigure_command} "-DSIZES_OF_CALL=N=1024;N=1048576"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REGEX REPLACE "[ \t\r\n]+" " " err "${err}")
if(NOT rc EQUAL 1 OR NOT err MATCHES "ADAEXPLORE_MODE is PINNED but the pinned header [^ ]*/pin/scale_sizes\\.hpp was tuned for the sizes N=1048576; N=1024 \\(its // Sizes: line\\), not N=1024; N=1048576: re-pin it after tuning these sizes\\.")
  set(failed "PINNED mode with the sizes in another order (exit code ${rc}) should be an error naming both:\n${out}\n${err}")
endif()
