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

# json_records(<out> <file>): the evaluation records of a results file (JSON Lines), its header
# line (the one with "format") not counted; a line that is not JSON stops the test.
function(json_records out file)
  file(READ "${file}" text)
  set(n 0)
  set(line_number 0)
  while(NOT text STREQUAL "")
    string(FIND "${text}" "\n" end)
    if(end EQUAL -1)
      set(line "${text}")
      set(text "")
    else()
      string(SUBSTRING "${text}" 0 ${end} line)
      math(EXPR next "${end} + 1")
      string(SUBSTRING "${text}" ${next} -1 text)
    endif()
    math(EXPR line_number "${line_number} + 1")
    string(JSON type ERROR_VARIABLE error TYPE "${line}")
    if(error OR NOT type STREQUAL "OBJECT")
      message(FATAL_ERROR "${file}:${line_number} is not a JSON object (${error}):\n${line}")
    endif()
    string(JSON format ERROR_VARIABLE no_format GET "${line}" format)
    if(no_format)
      math(EXPR n "${n} + 1")
    endif()
  endwhile()
  set(${out} ${n} PARENT_SCOPE)
endfunction()

# kernel_records(<out> <database> <kernel>): the records in the kernel's results files in a tuning
# database (<database>/<kernel>/*.jsonl: one per key; files set aside by --retune end otherwise).
function(kernel_records out database kernel)
  file(GLOB files "${database}/${kernel}/*.jsonl")
  set(n 0)
  foreach(file IN LISTS files)
    json_records(count "${file}")
    math(EXPR n "${n} + ${count}")
  endforeach()
  set(${out} ${n} PARENT_SCOPE)
endfunction()

# new_evaluations(<out> <output> <kernel>): the "(K new)" of the tuner's "done" line for the kernel.
function(new_evaluations out output kernel)
  if(NOT output MATCHES "\\[adaexplore\\] ${kernel}: done \\([a-z ]+\\), [0-9]+ evaluations \\(([0-9]+) new\\)")
    message(FATAL_ERROR "no \"[adaexplore] ${kernel}: done (...), N evaluations (K new)\" line in:\n${output}")
  endif()
  set(${out} ${CMAKE_MATCH_1} PARENT_SCOPE)
endfunction()

# expect_database_interface(<tuner>): the tuner has `tune --database` (the tuning database).
function(expect_database_interface tuner)
  execute_process(COMMAND "${tuner}" tune --help OUTPUT_VARIABLE help ERROR_VARIABLE help)
  if(NOT help MATCHES "--database")
    message(FATAL_ERROR "${tuner} has no `tune --database` (the tuning database's command line, "
                        "/work/notes/db5-interface.md); this test needs it. `tune --help` says:\n${help}")
  endif()
endfunction()

# expect_files_equal(<a> <b>): byte-identical files.
function(expect_files_equal a b)
  file(SHA256 "${a}" hash_a)
  file(SHA256 "${b}" hash_b)
  if(NOT hash_a STREQUAL hash_b)
    file(READ "${a}" text_a)
    file(READ "${b}" text_b)
    message(FATAL_ERROR "${a} and ${b} differ:\n${text_a}\n---\n${text_b}")
  endif()
endfunction()

# cache_entry(<out> <build> <name>): a cache entry's value, from CMakeCache.txt.
function(cache_entry out build name)
  file(STRINGS "${build}/CMakeCache.txt" entry REGEX "^${name}:[A-Z]+=")
  string(REGEX REPLACE "^${name}:[A-Z]+=" "" value "${entry}")
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

function(expect_equal actual expected what)
  if(NOT "${actual}" STREQUAL "${expected}")
    message(FATAL_ERROR "${what}: expected '${expected}', got '${actual}'")
  endif()
endfunction()
