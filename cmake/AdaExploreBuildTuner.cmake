# AdaExploreBuildTuner.cmake: the configure-time build of adaexplore-tuner from a source tree (beside
# AdaExplore.cmake, which includes it; see docs/cmake-reference.md). _adaexplore_build_tuner() is
# called by the module's _adaexplore_tuner_command() when no tuner is given or installed.

# An initial-cache script for the tuner's own configure: Release, the same C++ compiler, and the
# package locations this project was given.
function(_adaexplore_tuner_init_cache out build_dir)
  set(init "")
  _adaexplore_append_cache_entry(init CMAKE_BUILD_TYPE "Release")
  _adaexplore_append_cache_entry(init CMAKE_RUNTIME_OUTPUT_DIRECTORY "${build_dir}/bin")
  _adaexplore_append_cache_entry(init CMAKE_RUNTIME_OUTPUT_DIRECTORY_RELEASE "${build_dir}/bin")
  # A configure tunes on its own machine: the configure-time tuner needs no MPI (tune --mpi is the
  # installed tuner's, docs/cluster.md), and does not look for it.
  _adaexplore_append_cache_entry(init ADAEXPLORE_MPI "OFF")
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if("CXX" IN_LIST languages AND NOT CMAKE_CROSSCOMPILING)
    _adaexplore_append_cache_entry(init CMAKE_CXX_COMPILER "${CMAKE_CXX_COMPILER}")
  endif()
  if("CUDA" IN_LIST languages AND CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA" AND NOT DEFINED CUDAToolkit_ROOT)
    get_filename_component(cuda_root "${CMAKE_CUDA_COMPILER}" DIRECTORY)  # <root>/bin
    get_filename_component(cuda_root "${cuda_root}" DIRECTORY)
    _adaexplore_append_cache_entry(init CUDAToolkit_ROOT "${cuda_root}")
  endif()
  foreach(var CMAKE_PREFIX_PATH CMAKE_CXX_COMPILER_LAUNCHER CMAKE_MAKE_PROGRAM CUDAToolkit_ROOT
              nlohmann_json_DIR CLI11_DIR Boost_DIR BOOST_ROOT Boost_ROOT)
    if(DEFINED ${var} AND NOT "${${var}}" STREQUAL "")
      _adaexplore_append_cache_entry(init ${var} "${${var}}")
    endif()
  endforeach()
  set(${out} "${init}" PARENT_SCOPE)
endfunction()

function(_adaexplore_append_cache_entry init_var var value)
  string(REPLACE "\\" "/" value "${value}")
  string(REPLACE "\"" "\\\"" value "${value}")
  set(${init_var} "${${init_var}}set(${var} \"${value}\" CACHE STRING \"\")\n" PARENT_SCOPE)
endfunction()

function(_adaexplore_tree_hash out dir)
  file(GLOB_RECURSE files LIST_DIRECTORIES false RELATIVE "${dir}" "${dir}/*")
  list(SORT files)
  set(all "")
  foreach(file IN LISTS files)
    file(SHA256 "${dir}/${file}" hash)
    string(APPEND all "${file} ${hash}\n")
  endforeach()
  string(SHA256 hash "${all}")
  set(${out} "${hash}" PARENT_SCOPE)
endfunction()

# Builds the tuner unless the build folder holds one built with the same setup (generator,
# initial cache) from the same sources (hash of every file under tuner/).
function(_adaexplore_build_tuner out name)
  get_property(source_dir GLOBAL PROPERTY _ADAEXPLORE_TUNER_SOURCE_DIR)
  set(build_dir "${CMAKE_BINARY_DIR}/_adaexplore/tuner")
  set(tuner "${build_dir}/bin/adaexplore-tuner${CMAKE_EXECUTABLE_SUFFIX}")
  set(${out} "${tuner}" PARENT_SCOPE)

  _adaexplore_tuner_init_cache(init "${build_dir}")
  set(generator -G "${CMAKE_GENERATOR}")
  if(CMAKE_GENERATOR_PLATFORM)
    list(APPEND generator -A "${CMAKE_GENERATOR_PLATFORM}")
  endif()
  if(CMAKE_GENERATOR_TOOLSET)
    list(APPEND generator -T "${CMAKE_GENERATOR_TOOLSET}")
  endif()
  set(setup "# AdaExplore: initial cache of the tuner's build; source ${source_dir}, generator ${generator}\n${init}")
  _adaexplore_tree_hash(sources "${source_dir}")
  set(setup_file "${build_dir}/adaexplore-init.cmake")
  set(stamp_file "${build_dir}/adaexplore-tuner.stamp")
  set(log_file "${build_dir}/adaexplore-tuner-build.log")
  if(EXISTS "${setup_file}")
    file(READ "${setup_file}" old_setup)
    if(NOT old_setup STREQUAL setup)
      file(REMOVE_RECURSE "${build_dir}")  # another generator, compiler or source tree: start over
    elseif(EXISTS "${stamp_file}" AND EXISTS "${tuner}")
      file(READ "${stamp_file}" old_sources)
      if(old_sources STREQUAL sources)
        return()
      endif()
    endif()
  endif()

  message(STATUS "AdaExplore: building the tuner from ${source_dir} in ${build_dir} "
                 "(once per build tree; a minute or two; the build's progress follows, its log goes to ${log_file})")
  string(TIMESTAMP started "%s")
  file(REMOVE "${stamp_file}")
  file(WRITE "${setup_file}" "${setup}")
  message(STATUS "AdaExplore: configuring the tuner's build")
  execute_process(COMMAND "${CMAKE_COMMAND}" ${generator} -C "${setup_file}" -S "${source_dir}" -B "${build_dir}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE log ERROR_VARIABLE log)
  set(step "configure")
  if(rc EQUAL 0)
    set(parallel --parallel)
    set(jobs "$ENV{CMAKE_BUILD_PARALLEL_LEVEL}")
    if(NOT DEFINED ENV{CMAKE_BUILD_PARALLEL_LEVEL})
      cmake_host_system_information(RESULT cores QUERY NUMBER_OF_LOGICAL_CORES)
      list(APPEND parallel ${cores})
      set(jobs ${cores})
    endif()
    message(STATUS "AdaExplore: compiling the tuner (${jobs} jobs; the build tool's progress lines follow)")
    # The build tool's lines ([12/54] Building CXX object ..., [ 40%] ...) as they come, so a configure
    # that builds the tuner (FetchContent, add_subdirectory) shows it working.
    execute_process(COMMAND "${CMAKE_COMMAND}" --build "${build_dir}" --config Release --target adaexplore-tuner
                            ${parallel}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE build_log ERROR_VARIABLE build_log
                    ECHO_OUTPUT_VARIABLE ECHO_ERROR_VARIABLE)
    string(APPEND log "${build_log}")
    set(step "build")
  endif()
  file(WRITE "${log_file}" "${log}")
  string(TIMESTAMP finished "%s")
  math(EXPR took "${finished} - ${started}")
  if(NOT rc EQUAL 0 OR NOT EXISTS "${tuner}")
    if(step STREQUAL "build")  # its output is above, as it came
      set(tail "  (the build's output is above)")
    else()
      _adaexplore_tail(tail "${log}" 6000)
    endif()
    _adaexplore_fail("${name}" "building the tuner failed at its ${step} step (exit code ${rc}).\n"
                     "Full log: ${log_file}\nEnd of the log:\n${tail}\n"
                     "The tuner needs a C++17 compiler, nlohmann_json >= 3.10, CLI11 and Boost >= 1.74 "
                     "(Debian/Ubuntu: apt-get install g++ nlohmann-json3-dev libcli11-dev libboost-dev "
                     "libboost-filesystem-dev) and, for GPU detection, the CUDA toolkit. Install what the log "
                     "says is missing (pass its location with CMAKE_PREFIX_PATH) and reconfigure, or set "
                     "ADAEXPLORE_TUNER_EXECUTABLE to an adaexplore-tuner built elsewhere.")
  endif()
  file(WRITE "${stamp_file}" "${sources}")
  message(STATUS "AdaExplore: built the tuner in ${took} s")
endfunction()
