# cmake.project.database_concurrent: two build trees of host_kernels/ sharing one tuning database
# (ADAEXPLORE_DATABASE) configure at the same time, with the real tuner. Every record is kept:
# per kernel, the records in the database's files equal the new evaluations the two configures
# report, each line is whole JSON, and a reconfigure of either tree is then a cache hit.
#   cmake -DPROJECT_DIR=<host_kernels> -DWORK_DIR=<dir> -DGENERATOR=<generator>
#         -DADAEXPLORE_SOURCE_DIR=<repository> -DTUNER=<adaexplore-tuner> -P test_database_concurrent.cmake
include("${CMAKE_CURRENT_LIST_DIR}/steps.cmake")
expect_database_interface("${TUNER}")
set(kernels saxpy scale add)
set(database "${WORK_DIR}/shared-db")
file(REMOVE_RECURSE "${database}" "${WORK_DIR}/a" "${WORK_DIR}/b")
file(MAKE_DIRECTORY "${WORK_DIR}")
foreach(tree a b)
  set(configure_${tree} "${CMAKE_COMMAND}" -G "${GENERATOR}" -S "${PROJECT_DIR}" -B "${WORK_DIR}/${tree}"
      "-DADAEXPLORE_SOURCE_DIR=${ADAEXPLORE_SOURCE_DIR}" "-DADAEXPLORE_TUNER_EXECUTABLE=${TUNER}"
      -DCMAKE_BUILD_TYPE=Release "-DADAEXPLORE_DATABASE=${database}")
endforeach()

# The two configures as one pipeline: both start at once (the first's stdout, a few status lines
# of run_logged.cmake, goes to the second's stdin, which it never reads).
execute_process(COMMAND "${CMAKE_COMMAND}" "-DLOG=${WORK_DIR}/a.log" "-DCOMMAND=${configure_a}"
                        -P "${CMAKE_CURRENT_LIST_DIR}/run_logged.cmake"
                COMMAND "${CMAKE_COMMAND}" "-DLOG=${WORK_DIR}/b.log" "-DCOMMAND=${configure_b}"
                        -P "${CMAKE_CURRENT_LIST_DIR}/run_logged.cmake"
                RESULTS_VARIABLE results)
foreach(tree a b)
  file(READ "${WORK_DIR}/${tree}.log" log_${tree})
endforeach()
if(NOT results STREQUAL "0;0")
  message(FATAL_ERROR "the concurrent configures exited with ${results}:\n--- a ---\n${log_a}\n--- b ---\n${log_b}")
endif()
message(STATUS "step 'concurrent configures' done: logs in ${WORK_DIR}/a.log, b.log")

foreach(kernel IN LISTS kernels)
  new_evaluations(new_a "${log_a}" ${kernel})
  new_evaluations(new_b "${log_b}" ${kernel})
  math(EXPR reported "${new_a} + ${new_b}")
  kernel_records(stored "${database}" ${kernel})
  expect_equal("${stored}" "${reported}"
               "${kernel}: records in ${database}/${kernel} (a reported ${new_a} new evaluations, b ${new_b})")
  if(stored LESS 3)
    message(FATAL_ERROR "${kernel}: ${stored} records, fewer than its budget of 3")
  endif()
  foreach(tree a b)
    expect_file_matches("${WORK_DIR}/${tree}/adaexplore/include/adaexplore/${kernel}.hpp" "kTuned = true;")
  endforeach()
  message(STATUS "${kernel}: ${stored} records = ${new_a} new in a + ${new_b} new in b")
endforeach()

run_step(reconfigure_b ${configure_b})
expect_count("${reconfigure_b_OUTPUT}" "evaluations \\(0 new\\)" 3 "reconfigure of b after both configured")
