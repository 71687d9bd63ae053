# Helpers for the project tests (scripts run with cmake -P). A step runs a command, keeps its
# output in ${WORK_DIR}/<step>.log and stops the test with that output when the command fails.

# run_step(<name> <command>...): sets <name>_OUTPUT to the command's stdout and stderr, with
# whitespace runs collapsed to one space (CMake re-wraps warning text).
function(run_step name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE output ERROR_VARIABLE output)
  file(WRITE "${WORK_DIR}/${name}.log" "${output}")
  string(JOIN " " command ${ARGN})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "step '${name}' failed (exit code ${rc}): ${command}\n${output}")
  endif()
  message(STATUS "step '${name}' done: ${command}")
  string(REGEX REPLACE "[ \t\r\n]+" " " output "${output}")
  set(${name}_OUTPUT "${output}" PARENT_SCOPE)
endfunction()

# expect_count(<text> <regex> <count> <what>): how often the regex matches.
function(expect_count text regex count what)
  string(REGEX MATCHALL "${regex}" matches "${text}")
  list(LENGTH matches n)
  if(NOT n EQUAL count)
    message(FATAL_ERROR "${what}: '${regex}' found ${n} times, expected ${count}, in:\n${text}")
  endif()
endfunction()

function(expect_match text regex what)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "${what}: '${regex}' not found in:\n${text}")
  endif()
endfunction()

function(expect_file_matches file regex)
  if(NOT EXISTS "${file}")
    message(FATAL_ERROR "${file} does not exist")
  endif()
  file(READ "${file}" text)
  expect_match("${text}" "${regex}" "${file}")
endfunction()

# mtimes(<out> <file>...): "<file> <seconds since the epoch>" per file.
function(mtimes out)
  set(result "")
  foreach(file IN LISTS ARGN)
    if(NOT EXISTS "${file}")
      message(FATAL_ERROR "${file} does not exist")
    endif()
    file(TIMESTAMP "${file}" t "%s" UTC)
    list(APPEND result "${file} ${t}")
  endforeach()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

function(expect_unchanged before after what)
  if(NOT before STREQUAL after)
    string(REPLACE ";" "\n  " before "${before}")
    string(REPLACE ";" "\n  " after "${after}")
    message(FATAL_ERROR "${what} were rewritten:\n  ${before}\nbecame\n  ${after}")
  endif()
endfunction()

# Leaves one second between writes, so that a rewrite shows in a timestamp of whole seconds.
function(wait_a_second)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E sleep 1.2)
endfunction()

# Removes a build folder's content except the tuner built at configure time (_adaexplore/tuner),
# which a developer's build tree keeps too: each run configures the project afresh without
# building the tuner again.
function(clean_build_keeping_tuner build)
  file(GLOB entries LIST_DIRECTORIES true "${build}/*" "${build}/_adaexplore/*")
  list(FILTER entries EXCLUDE REGEX "/_adaexplore(/tuner)?$")
  if(entries)
    file(REMOVE_RECURSE ${entries})
  endif()
endfunction()
