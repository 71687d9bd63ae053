# Assertions for the API cases. A failed one is a FATAL_ERROR, so a case expecting exit code 0 fails.

function(expect_equal actual expected what)
  if(NOT "${actual}" STREQUAL "${expected}")
    message(FATAL_ERROR "${what}: expected '${expected}', got '${actual}'")
  endif()
endfunction()

# expect_json(<json> <expected> <member path>...): the member's value (JSON text for arrays/objects).
function(expect_json json expected)
  string(JSON value ERROR_VARIABLE error GET "${json}" ${ARGN})
  if(error)
    message(FATAL_ERROR "spec member '${ARGN}': ${error}\nspec:\n${json}")
  endif()
  expect_equal("${value}" "${expected}" "spec member '${ARGN}'")
endfunction()

function(expect_no_json json)
  string(JSON value ERROR_VARIABLE error GET "${json}" ${ARGN})
  if(NOT error)
    message(FATAL_ERROR "spec member '${ARGN}' should be absent, is '${value}'")
  endif()
endfunction()

function(expect_file_matches file regex)
  if(NOT EXISTS "${file}")
    message(FATAL_ERROR "${file} does not exist")
  endif()
  file(READ "${file}" text)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "${file} does not match '${regex}':\n${text}")
  endif()
endfunction()

# The fake tuner's calls so far, one list element per call ("" when it was never called).
function(fake_tuner_calls out)
  set(calls "")
  if(EXISTS "$ENV{FAKE_TUNER_LOG}")
    file(STRINGS "$ENV{FAKE_TUNER_LOG}" calls)
  endif()
  set(${out} "${calls}" PARENT_SCOPE)
endfunction()

# How many calls start with `command` (device, tune, defaults).
function(expect_fake_tuner_calls command count)
  fake_tuner_calls(calls)
  list(FILTER calls INCLUDE REGEX "^${command}( |$)")
  list(LENGTH calls n)
  expect_equal("${n}" "${count}" "calls of `adaexplore-tuner ${command}`")
endfunction()

function(read_spec out name)
  file(READ "${CMAKE_BINARY_DIR}/_adaexplore/kernels/${name}/spec.json" spec)
  set(${out} "${spec}" PARENT_SCOPE)
endfunction()
