# Runs one RunCMake-style case of the module's API (see CMakeLists.txt here):
#   cmake -DCASE=<name> -DCASES_DIR=<api dir> -DBUILD_DIR=<dir> -DMODULE=<AdaExplore.cmake>
#         -DFAKE_TUNER=<executable> -DGENERATOR=<generator> -P RunCase.cmake
# (FAKE_TUNER: the tuner the case runs, given as ADAEXPLORE_TUNER_EXECUTABLE: the fake one for api/,
# the real one for check/)
# configures ${CASES_DIR} (which includes the module, then <name>.cmake) in a fresh ${BUILD_DIR}
# and compares with the case's expectations, as CMake's own Tests/RunCMake does:
#   <name>-options.txt extra arguments for the configure, one a line (RunCMake_TEST_OPTIONS)
#   <name>-result.txt  the configure's exit code (default 0)
#   <name>-stderr.txt  a regular expression the stderr must match (whitespace runs collapsed to one
#                      space on both sides, since CMake re-wraps message text)
#   <name>-stdout.txt  the same for stdout
#   <name>-check.cmake included afterwards with `stdout`, `stderr`, `BUILD_DIR`,
#                      `configure_command` (to configure again, options included) and
#                      `reconfigure_command` (cmake -S -B alone: the cache's values) set; it sets
#                      `failed` to a description when something is wrong
foreach(var CASE CASES_DIR BUILD_DIR MODULE FAKE_TUNER GENERATOR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "RunCase.cmake: -D${var}=... is required")
  endif()
endforeach()

file(REMOVE_RECURSE "${BUILD_DIR}")
set(configure_command "${CMAKE_COMMAND}" -G "${GENERATOR}" -S "${CASES_DIR}" -B "${BUILD_DIR}"
                      "-DCASE=${CASE}" "-DADAEXPLORE_MODULE=${MODULE}" "-DADAEXPLORE_TUNER_EXECUTABLE=${FAKE_TUNER}")
if(EXISTS "${CASES_DIR}/${CASE}-options.txt")
  file(STRINGS "${CASES_DIR}/${CASE}-options.txt" options)
  list(APPEND configure_command ${options})
endif()
set(reconfigure_command "${CMAKE_COMMAND}" -S "${CASES_DIR}" -B "${BUILD_DIR}")
execute_process(COMMAND ${configure_command} RESULT_VARIABLE result OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)

function(collapse out text)
  string(REGEX REPLACE "[ \t\r\n]+" " " text "${text}")
  string(STRIP "${text}" text)
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

set(failed "")
set(expected_result 0)
if(EXISTS "${CASES_DIR}/${CASE}-result.txt")
  file(READ "${CASES_DIR}/${CASE}-result.txt" expected_result)
  string(STRIP "${expected_result}" expected_result)
endif()
if(NOT result STREQUAL expected_result)
  string(APPEND failed "exit code ${result}, expected ${expected_result}\n")
endif()
foreach(stream stdout stderr)
  if(EXISTS "${CASES_DIR}/${CASE}-${stream}.txt")
    file(READ "${CASES_DIR}/${CASE}-${stream}.txt" expected)
    collapse(expected "${expected}")
    collapse(actual "${${stream}}")
    if(NOT actual MATCHES "${expected}")
      string(APPEND failed "${stream} does not match the regular expression\n  ${expected}\n")
    endif()
  endif()
endforeach()
if(failed STREQUAL "" AND EXISTS "${CASES_DIR}/${CASE}-check.cmake")
  include("${CASES_DIR}/${CASE}-check.cmake")
endif()

if(NOT failed STREQUAL "")
  message(FATAL_ERROR "Case ${CASE} failed: ${failed}\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}")
endif()
message(STATUS "Case ${CASE} passed (exit code ${result})")
