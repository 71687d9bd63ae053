# cmake.project.database: the tuning database, ADAEXPLORE_RETUNE, adaexplore-pin and the CACHED
# and PINNED modes with the real tuner, on host_kernels/ (three kernels the host backend tunes on
# any machine; each tuning: 3 evaluations):
#   1. configure: the three kernels are tuned; records in the default database
#      ${build}/_adaexplore/database/<kernel>/<key>.jsonl
#   2. reconfigure, nothing changed: a cache hit: no record added, "(0 new)" thrice, headers and
#      specs not rewritten
#   3. an edit of scale's template: scale alone is tuned (a new key, a second file); saxpy and add
#      add no record
#   4. -DADAEXPLORE_RETUNE=ALL: each kernel's key file is set aside and tuned again; the cache
#      entry is cleared (one-shot), so 5. a reconfigure is a cache hit again
#   6. build; the adaexplore-pin target copies the three headers to ADAEXPLORE_PINNED_DIR
#   7. a second tree, ADAEXPLORE_MODE=CACHED: with an empty database and no pinned header, the
#      defaults with a warning each and nothing evaluated; with the pinned headers, those; with
#      the first tree's database, its stored winners, byte for byte, nothing evaluated
#   8. a third tree, ADAEXPLORE_MODE=PINNED (no GPU needed): configures and builds from the pins
#   cmake -DPROJECT_DIR=<host_kernels> -DWORK_DIR=<dir> -DGENERATOR=<generator>
#         -DADAEXPLORE_SOURCE_DIR=<repository> -DTUNER=<adaexplore-tuner> -P test_database.cmake
include("${CMAKE_CURRENT_LIST_DIR}/steps.cmake")
expect_database_interface("${TUNER}")
set(kernels saxpy scale add)
set(source "${WORK_DIR}/src")  # a copy: step 3 edits a template
set(build "${WORK_DIR}/build")
set(pins "${WORK_DIR}/pins")
file(REMOVE_RECURSE "${source}" "${build}" "${WORK_DIR}/cached" "${WORK_DIR}/pinned" "${pins}"
     "${WORK_DIR}/empty-db" "${WORK_DIR}/no-pins")
file(COPY "${PROJECT_DIR}/" DESTINATION "${source}")
set(common -G "${GENERATOR}" "-DADAEXPLORE_SOURCE_DIR=${ADAEXPLORE_SOURCE_DIR}"
           "-DADAEXPLORE_TUNER_EXECUTABLE=${TUNER}" -DCMAKE_BUILD_TYPE=Release)
set(configure "${CMAKE_COMMAND}" -S "${source}" -B "${build}" ${common} "-DADAEXPLORE_PINNED_DIR=${pins}")
set(database "${build}/_adaexplore/database")
set(include "${build}/adaexplore/include/adaexplore")

# records(<out>): "<kernel>=<records>" per kernel in the first tree's database.
function(records out)
  set(result "")
  foreach(kernel IN LISTS kernels)
    kernel_records(n "${database}" "${kernel}")
    list(APPEND result "${kernel}=${n}")
  endforeach()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

# 1. Tuned, into the default database.
run_step(configure ${configure})
expect_count("${configure_OUTPUT}" "-- AdaExplore: (saxpy|scale|add): TUNED, header" 3 "configure")
expect_count("${configure_OUTPUT}" "CMake Warning" 0 "configure")
records(first)
foreach(kernel IN LISTS kernels)
  expect_match("${configure_OUTPUT}" "-- AdaExplore: ${kernel}: tuning on the CPU \\(database ${database}\\)" "configure")
  expect_match("${first}" "${kernel}=[1-9]" "records after the first configure (${first})")
  file(GLOB files "${database}/${kernel}/*.jsonl")
  list(LENGTH files n)
  expect_equal("${n}" 1 "${kernel}'s results files in ${database}")
endforeach()

# 2. Nothing changed: a cache hit.
mtimes(before "${include}/saxpy.hpp" "${include}/scale.hpp" "${include}/add.hpp"
       "${build}/_adaexplore/kernels/scale/spec.json")
wait_a_second()
run_step(reconfigure ${configure})
expect_count("${reconfigure_OUTPUT}" "evaluations \\(0 new\\)" 3 "reconfigure (cache hit)")
records(second)
expect_unchanged("${first}" "${second}" "record counts (a reconfigure evaluated something)")
mtimes(after "${include}/saxpy.hpp" "${include}/scale.hpp" "${include}/add.hpp"
       "${build}/_adaexplore/kernels/scale/spec.json")
expect_unchanged("${before}" "${after}" "headers or spec")

# 3. A template edit retunes that kernel alone.
file(APPEND "${source}/kernels/scale.hpp.in" "// edited by the test: a new key for scale\n")
run_step(edit ${configure})
new_evaluations(scale_new "${edit_OUTPUT}" scale)
expect_match("${scale_new}" "^[1-9]" "scale's new evaluations after its template changed")
expect_count("${edit_OUTPUT}" "evaluations \\(0 new\\)" 2 "saxpy and add after scale's template changed")
file(GLOB files "${database}/scale/*.jsonl")
list(LENGTH files n)
expect_equal("${n}" 2 "scale's results files (one per key) after its template changed")
records(third)
list(GET first 0 saxpy_first)
list(GET first 2 add_first)
expect_match("${third}" "^${saxpy_first};scale=[0-9]+;${add_first}$" "record counts after the edit (${third})")

# 4. ADAEXPLORE_RETUNE=ALL retunes every kernel, once.
run_step(retune ${configure} -DADAEXPLORE_RETUNE=ALL)
expect_count("${retune_OUTPUT}" "-- AdaExplore: (saxpy|scale|add): RETUNING from scratch" 3 "retune")
expect_count("${retune_OUTPUT}" "evaluations \\(0 new\\)" 0 "retune")
expect_match("${retune_OUTPUT}" "ADAEXPLORE_RETUNE 'ALL' retuned saxpy, scale, add; cleared ADAEXPLORE_RETUNE" "retune")
cache_entry(retune_entry "${build}" ADAEXPLORE_RETUNE)
expect_equal("${retune_entry}" "" "ADAEXPLORE_RETUNE in the cache after the retune")
foreach(kernel IN LISTS kernels)
  file(GLOB aside "${database}/${kernel}/*.jsonl.*")
  list(FILTER aside EXCLUDE REGEX "\\.lock$")
  expect_match("${aside}" "." "${kernel}'s results set aside by --retune in ${database}/${kernel}")
endforeach()
records(fourth)

# 5. One-shot: the next configure answers from the database.
run_step(after_retune ${configure})
expect_count("${after_retune_OUTPUT}" "evaluations \\(0 new\\)" 3 "the configure after the retune")
expect_count("${after_retune_OUTPUT}" "RETUNING" 0 "the configure after the retune")
records(fifth)
expect_unchanged("${fourth}" "${fifth}" "record counts (the configure after the retune evaluated something)")

# 6. Build, then pin.
run_step(build "${CMAKE_COMMAND}" --build "${build}" --config Release)
run_step(pin "${CMAKE_COMMAND}" --build "${build}" --target adaexplore-pin)
foreach(kernel IN LISTS kernels)
  expect_match("${pin_OUTPUT}" "AdaExplore: pinned ${kernel}: ${include}/${kernel}.hpp -> ${pins}/${kernel}.hpp \\(copied\\)" "pin")
  expect_files_equal("${include}/${kernel}.hpp" "${pins}/${kernel}.hpp")
  expect_file_matches("${pins}/${kernel}.hpp" "// Device: ")
endforeach()

# 7. CACHED: evaluates nothing; falls back to the pinned header, else the defaults, saying so.
set(cached "${WORK_DIR}/cached")
set(configure_cached "${CMAKE_COMMAND}" -S "${source}" -B "${cached}" ${common} -DADAEXPLORE_MODE=CACHED)
run_step(cached_empty ${configure_cached} "-DADAEXPLORE_DATABASE=${WORK_DIR}/empty-db"
         "-DADAEXPLORE_PINNED_DIR=${WORK_DIR}/no-pins")
expect_count("${cached_empty_OUTPUT}" "CMake Warning" 3 "CACHED, empty database")
expect_count("${cached_empty_OUTPUT}" "AdaExplore: (saxpy|scale|add): NOT TUNED, using the DEFAULTS \\(kTuned = false\\): ADAEXPLORE_MODE is CACHED and the tuning database \\(ADAEXPLORE_DATABASE\\) holds no tuning" 3 "CACHED, empty database")
file(GLOB_RECURSE stored "${WORK_DIR}/empty-db/*.jsonl")
expect_equal("${stored}" "" "results files written by a CACHED configure")
expect_file_matches("${cached}/adaexplore/include/adaexplore/add.hpp" "kTuned = false;")

run_step(cached_pinned ${configure_cached} "-DADAEXPLORE_PINNED_DIR=${pins}")
expect_count("${cached_pinned_OUTPUT}" "CMake Warning" 0 "CACHED, pinned headers")
# (a match holding ";" would count twice: expect_count counts a list)
expect_count("${cached_pinned_OUTPUT}" "-- AdaExplore: (saxpy|scale|add): NOT TUNED here, using the pinned header [^ ]*/pins/(saxpy|scale|add)\\.hpp \\(tuned on [^;]*\\)" 3 "CACHED, pinned headers")
expect_count("${cached_pinned_OUTPUT}" "the tuning database has no stored tuning of its current key" 3 "CACHED, pinned headers")

run_step(cached_stored ${configure_cached} "-DADAEXPLORE_DATABASE=${database}")
expect_count("${cached_stored_OUTPUT}" "-- AdaExplore: (saxpy|scale|add): TUNED \\(the tuning database's stored winner" 3 "CACHED, the first tree's database")
foreach(kernel IN LISTS kernels)
  expect_files_equal("${include}/${kernel}.hpp" "${cached}/adaexplore/include/adaexplore/${kernel}.hpp")
endforeach()
records(sixth)
expect_unchanged("${fifth}" "${sixth}" "record counts (a CACHED configure evaluated something)")

# 8. PINNED: configures and builds from the pinned headers alone.
set(pinned "${WORK_DIR}/pinned")
run_step(pinned_configure "${CMAKE_COMMAND}" -S "${source}" -B "${pinned}" ${common} -DADAEXPLORE_MODE=PINNED
         "-DADAEXPLORE_PINNED_DIR=${pins}")
expect_count("${pinned_configure_OUTPUT}" "NOT TUNED here, using the pinned header" 3 "PINNED")
expect_count("${pinned_configure_OUTPUT}" "CMake Warning" 0 "PINNED")
run_step(pinned_build "${CMAKE_COMMAND}" --build "${pinned}" --config Release)
foreach(kernel IN LISTS kernels)
  expect_files_equal("${pins}/${kernel}.hpp" "${pinned}/adaexplore/include/adaexplore/${kernel}.hpp")
endforeach()
