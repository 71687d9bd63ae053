# cmake.project.host_*: configures and builds host_saxpy/, a C++ library whose kernel the host
# backend tunes for real, then reconfigures with nothing changed: the tuning database answers and
# the header keeps its timestamp.
#   cmake -DPROJECT_DIR=<host_saxpy> -DWORK_DIR=<dir> -DGENERATOR=<generator>
#         -DHOW=FetchContent|add_subdirectory -DADAEXPLORE_SOURCE_DIR=<repository> -DTUNER=<adaexplore-tuner>
#      or -DHOW=find_package -DMAIN_BUILD_DIR=<AdaExplore build> [-DCONFIG=<config>]
#         -P test_host_project.cmake
# find_package installs MAIN_BUILD_DIR into ${WORK_DIR}/prefix first and checks that the
# installed tuner and harness are the ones used.
include("${CMAKE_CURRENT_LIST_DIR}/steps.cmake")
set(build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${build}")
set(configure "${CMAKE_COMMAND}" -G "${GENERATOR}" -S "${PROJECT_DIR}" -B "${build}" "-DHOW=${HOW}"
              -DCMAKE_BUILD_TYPE=Release)
if(HOW STREQUAL "find_package")
  set(prefix "${WORK_DIR}/prefix")
  file(REMOVE_RECURSE "${prefix}")
  set(config "")
  if(CONFIG)
    set(config --config "${CONFIG}")
  endif()
  run_step(install "${CMAKE_COMMAND}" --install "${MAIN_BUILD_DIR}" --prefix "${prefix}" ${config})
  list(APPEND configure "-DCMAKE_PREFIX_PATH=${prefix}")
else()
  list(APPEND configure "-DADAEXPLORE_SOURCE_DIR=${ADAEXPLORE_SOURCE_DIR}" "-DADAEXPLORE_TUNER_EXECUTABLE=${TUNER}")
endif()
set(header "${build}/adaexplore/include/adaexplore/saxpy.hpp")

run_step(configure ${configure})
expect_match("${configure_OUTPUT}" "-- AdaExplore: saxpy: TUNED, header" "configure")
expect_count("${configure_OUTPUT}" "CMake Warning" 0 "configure")
if(HOW STREQUAL "find_package")
  expect_match("${configure_OUTPUT}" "-- AdaExplore: tuner ${prefix}/bin/adaexplore-tuner" "configure")
  expect_match("${configure_OUTPUT}" "-- host_saxpy: harness include folder ${prefix}/include" "configure")
else()
  expect_match("${configure_OUTPUT}" "-- host_saxpy: harness include folder ${ADAEXPLORE_SOURCE_DIR}/templates" "configure")
endif()
expect_file_matches("${header}" "kTuned = true;")
expect_file_matches("${header}" "// Winner: +UNROLL=")
file(GLOB results "${build}/_adaexplore/database/saxpy/*.jsonl")  # the default ADAEXPLORE_DATABASE
list(LENGTH results n)
expect_equal("${n}" 1 "saxpy's results files in ${build}/_adaexplore/database/saxpy")
expect_file_matches("${results}" "\"status\"")
run_step(build "${CMAKE_COMMAND}" --build "${build}" --config Release)  # saxpy.cpp static_asserts kTuned

mtimes(before "${header}" "${build}/_adaexplore/kernels/saxpy/spec.json")
wait_a_second()
run_step(reconfigure ${configure})
expect_match("${reconfigure_OUTPUT}" "evaluations already measured" "reconfigure (tuning database)")
expect_match("${reconfigure_OUTPUT}" "header [^ ]*/saxpy.hpp unchanged" "reconfigure")
mtimes(after "${header}" "${build}/_adaexplore/kernels/saxpy/spec.json")
expect_unchanged("${before}" "${after}" "the header or spec")

# The headers the template includes (kernels/saxpy_kernel.hpp, listed by the tuner's compiler scan
# and part of the results' key) are configure dependencies: editing one reconfigures, and retunes.
expect_file_matches("${build}/_adaexplore/kernels/saxpy/work/dependencies.txt" "/kernels/saxpy_kernel.hpp")
if(EXISTS "${build}/build.ninja")
  expect_file_matches("${build}/build.ninja" "kernels/saxpy_kernel.hpp")
elseif(EXISTS "${build}/CMakeFiles/Makefile.cmake")
  expect_file_matches("${build}/CMakeFiles/Makefile.cmake" "kernels/saxpy_kernel.hpp")
endif()
