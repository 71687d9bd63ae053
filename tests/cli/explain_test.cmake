# `adaexplore-tuner explain` run as a user runs it, on a checked-in recorded tuning
# (tests/data/explain: spec.json, results.jsonl with 24 evaluations of a 6 x 4 space: TILE >= 128 is
# resource_limit, TILE * UNROLL < 32 compile_error, UNROLL = 8 slow; half the records carry the
# per-run values_ms, half are in the older form without them).
#   cmake -DTUNER=<adaexplore-tuner> -DDATA=<tests/data/explain> -DWORK=<scratch folder> -P explain_test.cmake
# Checks the printed learned rules with their evaluation counts, the --json form, and that a results
# file of another space is refused naming the file and line. (Since 2026-12-01 (status test) TILE=128 is a value
# rule: its 4 failures are all resource_limit among compile errors too, learned_rules.hpp (a), the
# status test; the decision tree then learns from the evaluations no hard rule explains.)
foreach(var TUNER DATA WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "explain_test.cmake: -D${var}=... is required")
  endif()
endforeach()

set(failed "")
function(expect_match what text regex)
  if(NOT text MATCHES "${regex}")
    set(failed "${failed}${what} does not match\n  ${regex}\n" PARENT_SCOPE)
  endif()
endfunction()

# The text form: one line per learned rule, each with the evaluations behind it.
execute_process(COMMAND "${TUNER}" explain --spec "${DATA}/spec.json" --results "${DATA}/results.jsonl"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  string(APPEND failed "explain exited with ${rc}\n")
endif()
foreach(line
    "^tile_scale \\([^\n]*results\\.jsonl\\):\n"
    "\n  knowledge base: 24 evaluations \\(ok 9, slow 4, compile_error 3, resource_limit 8\\)\n"
    "\n  hard: TILE=128 always fails: 4 of 4 evaluations resource_limit, no success\n"
    "\n  hard: resource_limit is monotone in TILE: [^\n]* \\(4 groups, 24 evaluations, no contradiction[^\n]*\n"
    "\n  model: TILE >= 128: 4 of 4 failed \\(resource_limit 4\\)[^\n]*\n"
    "\n  model: logistic regression of failure on parameter values and log2 sizes, 24 evaluations; raising P\\(fail\\) most \\(log-odds weights\\): TILE=128 \\+[^\n]*\n"
    "\n  model: TILE = 8 and UNROLL <= 2: 2 of 2 failed \\(compile_error 2\\)[^\n]*\n"
    "\n  soft: sample less where UNROLL=8: 4 of 4 successes slow[^\n]*\n"
    "\n  failures: every TILE=128 configuration is resource_limit \\(4 of 4\\)\n"
    "\n  failures: every TILE=256 configuration is resource_limit \\(4 of 4\\)\n")
  expect_match("stdout" "${out}" "${line}")
endforeach()
if(NOT err STREQUAL "")
  string(APPEND failed "unexpected stderr: ${err}\n")
endif()

# --json: the knowledge base's observations and the same explanation.
execute_process(COMMAND "${TUNER}" explain --spec "${DATA}/spec.json" --results "${DATA}/results.jsonl" --json
                RESULT_VARIABLE rc OUTPUT_VARIABLE json ERROR_VARIABLE err)
string(JSON observations ERROR_VARIABLE json_error LENGTH "${json}" observations)
if(NOT rc EQUAL 0 OR json_error)
  string(APPEND failed "explain --json: exit ${rc}, ${json_error}\n${json}\n")
elseif(NOT observations EQUAL 24)
  string(APPEND failed "explain --json: ${observations} observations, expected 24\n")
else()
  string(JSON first GET "${json}" explanation 0)
  expect_match("explain --json explanation[0]" "${first}" "^knowledge base: 24 evaluations")
endif()

# A results file of another space (TILE=512 is not a value of the spec) is refused, naming the line.
file(MAKE_DIRECTORY "${WORK}")
file(READ "${DATA}/results.jsonl" results)
string(REPLACE "\"TILE\": 256, \"UNROLL\": 8}" "\"TILE\": 512, \"UNROLL\": 8}" results "${results}")
file(WRITE "${WORK}/other_space.jsonl" "${results}")
execute_process(COMMAND "${TUNER}" explain --spec "${DATA}/spec.json" --results "${WORK}/other_space.jsonl"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  string(APPEND failed "explain accepted a results file of another space\n")
endif()
expect_match("stderr (other space)" "${err}" "other_space\\.jsonl:25: bad record \\([^\n]*512")

if(NOT failed STREQUAL "")
  message(FATAL_ERROR "explain CLI test failed:\n${failed}--- stdout ---\n${out}\n--- stderr ---\n${err}")
endif()
message(STATUS "explain CLI test passed")
