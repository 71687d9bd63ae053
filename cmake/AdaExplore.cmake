# AdaExplore.cmake: adaexplore_tune_kernel(<name> ...) tunes a kernel while CMake configures a
# project and writes a header of its winning parameters. The reference of every keyword, default,
# cache variable and result variable: docs/cmake-reference.md in the source tree.
# The decisions (where a header's values come from: tune, the tuning database, the pinned header,
# the defaults) are the tuner's: `adaexplore-tuner configure` (tuner/src/configure/origin.hpp),
# called once per kernel; this module checks the call, writes the spec and prints the answer.


if(CMAKE_VERSION VERSION_LESS 3.20)
  message(FATAL_ERROR "AdaExplore.cmake needs CMake 3.20 or newer; this is ${CMAKE_VERSION}.")
endif()

# Runs on every include (each find_package() call sets its variables in its own scope).
if(NOT DEFINED _ADAEXPLORE_INSTALLED_TUNER AND EXISTS "${CMAKE_CURRENT_LIST_DIR}/../tuner/CMakeLists.txt")
  get_filename_component(_adaexplore_source_dir "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
  set(ADAEXPLORE_HARNESS_INCLUDE_DIR "${_adaexplore_source_dir}/templates")
  set_property(GLOBAL PROPERTY _ADAEXPLORE_TUNER_SOURCE_DIR "${_adaexplore_source_dir}/tuner")
  set_property(GLOBAL PROPERTY _ADAEXPLORE_RESERVED_NAMES_FILE "${_adaexplore_source_dir}/tuner/src/model/reserved_names.inc")
  unset(_adaexplore_source_dir)
elseif(DEFINED _ADAEXPLORE_INSTALLED_TUNER)
  set_property(GLOBAL PROPERTY _ADAEXPLORE_INSTALLED_TUNER "${_ADAEXPLORE_INSTALLED_TUNER}")
  set_property(GLOBAL PROPERTY _ADAEXPLORE_RESERVED_NAMES_FILE "${CMAKE_CURRENT_LIST_DIR}/AdaExploreReservedNames.inc")
else()
  message(FATAL_ERROR "AdaExplore.cmake: neither the tuner's sources (${CMAKE_CURRENT_LIST_DIR}/../tuner) "
                      "nor an installed tuner were found. Load the module through find_package(AdaExplore) "
                      "from an installation, or from an AdaExplore source tree.")
endif()
set_property(GLOBAL PROPERTY _ADAEXPLORE_HARNESS_INCLUDE_DIR "${ADAEXPLORE_HARNESS_INCLUDE_DIR}")
# Also visible in the directories above this one (add_subdirectory(), FetchContent).
set(ADAEXPLORE_HARNESS_INCLUDE_DIR "${ADAEXPLORE_HARNESS_INCLUDE_DIR}" CACHE INTERNAL
    "AdaExplore: the folder that holds adaexplore/harness.cuh and adaexplore/harness_host.hpp")

include_guard(GLOBAL)
cmake_policy(VERSION 3.20...4.1)  # include() gives this file its own policy scope
set_property(GLOBAL PROPERTY _ADAEXPLORE_MODULE_DIR "${CMAKE_CURRENT_LIST_DIR}")  # AdaExplorePin.cmake beside it
include("${CMAKE_CURRENT_LIST_DIR}/AdaExploreBuildTuner.cmake")  # the tuner built from a source tree

set(ADAEXPLORE_MODE "AUTO" CACHE STRING
    "AdaExplore: AUTO (tune when possible), TUNE (always; error without a GPU), CACHED (tuning database only, this machine's key), PINNED (pinned headers only), DEFAULTS or OFF (never tune)")
set_property(CACHE ADAEXPLORE_MODE PROPERTY STRINGS AUTO TUNE CACHED PINNED DEFAULTS OFF)
set(ADAEXPLORE_DATABASE "${CMAKE_BINARY_DIR}/_adaexplore/database" CACHE PATH
    "AdaExplore: the tuning database folder (tune --database); a shared folder shares results across build trees")
set(ADAEXPLORE_RETUNE "" CACHE STRING
    "AdaExplore: ALL or a ;-list of kernel names to tune again from scratch; a name leaves it once its kernel was retuned")
set(ADAEXPLORE_DEVICE "0" CACHE STRING "AdaExplore: the CUDA device index to tune on")
set(ADAEXPLORE_PROFILE "" CACHE STRING
    "AdaExplore: ALL or a ;-list of CUDA kernel names whose finalists Nsight Compute (ncu) profiles after the search (tune --profile)")
set(ADAEXPLORE_COMPILER_LAUNCHER "" CACHE STRING
    "AdaExplore: launcher (e.g. ccache) in front of the tuner's compiles, for kernels without COMPILER_LAUNCHER")
set(ADAEXPLORE_PINNED_DIR "" CACHE PATH
    "AdaExplore: folder of pinned headers <name>.hpp (default: pinned/ beside each calling CMakeLists.txt)")
set(ADAEXPLORE_TUNER_EXECUTABLE "" CACHE FILEPATH
    "AdaExplore: adaexplore-tuner to use instead of the installed one or the one built from source")

if(NOT TARGET AdaExplore::harness)
  add_library(AdaExplore::harness INTERFACE IMPORTED GLOBAL)
  set_target_properties(AdaExplore::harness PROPERTIES
                        INTERFACE_INCLUDE_DIRECTORIES "${ADAEXPLORE_HARNESS_INCLUDE_DIR}")
endif()

function(adaexplore_tune_kernel)
  set(one TEMPLATE KERNEL_SOURCE BENCHMARK KERNEL_NAME BUDGET TIME_LIMIT TARGET BACKEND STRATEGY SEED NAMESPACE
          PINNED_HEADER ARCH RUN_TIMEOUT RUN_TIMEOUT_FACTOR RUN_TIMEOUT_FLOOR COMPILE_TIMEOUT THREADS_PER_BLOCK
          DYNAMIC_SHARED_BYTES JOBS IN_FLIGHT RUNNER COMPILE_UNIT SIZE_BUDGET MACRO_PREFIX DEFINE_PARAMS)
  set(multi PARAMS CONSTRAINTS DEFAULTS COMPILE_OPTIONS INCLUDE_DIRECTORIES RUN_ARGS COMPILER_LAUNCHER SIZES
            BLOCK_DIM GRID_DIM ARGS REFERENCE TOLERANCE)
  if(ARGC EQUAL 0)
    set(name "")
  else()
    set(name "${ARGV0}")
  endif()
  set_property(GLOBAL PROPERTY _ADAEXPLORE_CALL_ARGUMENTS "${ARGV}")  # finds the call in errors (_adaexplore_call_site)
  _adaexplore_check_name("${name}" "${one};${multi}")
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "${one}" "${multi}")
  set(i 2)
  while(i LESS ARGC)  # a keyword followed by "": cmake_parse_arguments drops it before CMake 3.31
    math(EXPR previous "${i} - 1")
    if("${ARGV${previous}}" STREQUAL "MACRO_PREFIX")  # "" is a prefix: #define <PARAM> itself
      set(arg_MACRO_PREFIX "${ARGV${i}}")
      list(REMOVE_ITEM arg_KEYWORDS_MISSING_VALUES MACRO_PREFIX)  # CMake 3.31 lists a keyword given ""
    elseif("${ARGV${i}}" STREQUAL "" AND "${ARGV${previous}}" IN_LIST one)
      list(APPEND arg_KEYWORDS_MISSING_VALUES "${ARGV${previous}}")
    elseif("${ARGV${previous}}" STREQUAL "REFERENCE" AND "${ARGV${i}}" STREQUAL "DEFAULTS")
      # REFERENCE DEFAULTS: the word is also the DEFAULTS keyword, which cmake_parse_arguments took
      # (with no values there); unless values follow it, it is REFERENCE's value.
      math(EXPR next "${i} + 1")
      if(next EQUAL ARGC OR "${ARGV${next}}" IN_LIST one OR "${ARGV${next}}" IN_LIST multi)
        set(arg_REFERENCE DEFAULTS)
        foreach(taken REFERENCE DEFAULTS)  # the one "missing value" each this pair left
          list(FIND arg_KEYWORDS_MISSING_VALUES ${taken} at)
          if(at GREATER -1)
            list(REMOVE_AT arg_KEYWORDS_MISSING_VALUES ${at})
          endif()
        endforeach()
      endif()
    endif()
    math(EXPR i "${i} + 1")
  endwhile()
  if(NOT DEFINED arg_BACKEND)
    set(arg_BACKEND cuda)
  endif()
  _adaexplore_backend_is_gpu(arg_GPU "${arg_BACKEND}")  # which keywords apply
  _adaexplore_check_arguments("${name}" arg "${one}" "${multi}")
  _adaexplore_check_settings("${name}")

  set(kernel_dir "${CMAKE_BINARY_DIR}/_adaexplore/kernels/${name}")
  set(include_dir "${CMAKE_BINARY_DIR}/adaexplore/include")
  set(header "${include_dir}/adaexplore/${name}.hpp")
  if(DEFINED arg_KERNEL_SOURCE)
    _adaexplore_abs(template "${arg_KERNEL_SOURCE}")
  else()
    _adaexplore_abs(template "${arg_TEMPLATE}")
  endif()
  set(benchmark "")
  if(DEFINED arg_BENCHMARK)
    _adaexplore_abs(benchmark "${arg_BENCHMARK}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${template}" ${benchmark})

  _adaexplore_spec_json(spec "${name}" arg "${template}" "${benchmark}")
  _adaexplore_write_if_changed("${kernel_dir}/spec.json" "${spec}")
  set(archs "")
  if(arg_GPU)
    _adaexplore_target_archs(archs arch_source "${arg_ARCH}" "${arg_TARGET}")
    _adaexplore_check_archs("${name}" "${archs}" "${arch_source}")
  endif()
  _adaexplore_pinned_file(pinned "${name}" "${arg_PINNED_HEADER}")
  _adaexplore_configure_kernel(origin NAME "${name}" BACKEND "${arg_BACKEND}" KERNEL_DIR "${kernel_dir}"
                               HEADER "${header}" PINNED "${pinned}" ARCHS ${archs})
  # The headers the template and the benchmark include (the tuner's compiler scan, part of the
  # results' key): editing one reconfigures, and so tunes its new key.
  if(EXISTS "${kernel_dir}/work/dependencies.txt")
    file(STRINGS "${kernel_dir}/work/dependencies.txt" included)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${included})
  endif()
  _adaexplore_record_kernel("${name}" "${origin}" "${header}" "${pinned}")

  if(arg_TARGET)
    _adaexplore_add_include_dir("${arg_TARGET}" "${include_dir}")
  endif()
  if(DEFINED arg_DEFINE_PARAMS)
    _adaexplore_define_params("${name}" "${arg_TARGET}" "${arg_DEFINE_PARAMS}" "${header}")
  endif()
  set(ADAEXPLORE_${name}_HEADER "${header}" PARENT_SCOPE)
  set(ADAEXPLORE_${name}_ORIGIN "${origin}" PARENT_SCOPE)
  set(ADAEXPLORE_GENERATED_INCLUDE_DIR "${include_dir}" PARENT_SCOPE)
endfunction()

# ---------------------------------------------------------------------------------------------
# Argument checking. Every error names the function and kernel, the keyword, the value and a fix.

function(_adaexplore_fail name)
  set(text "")
  math(EXPR last "${ARGC} - 1")
  foreach(i RANGE 1 ${last})  # ARGV<i>, not ARGN: keeps the semicolons inside each part
    string(APPEND text "${ARGV${i}}")
  endforeach()
  _adaexplore_call_site(site "${name}")
  message(FATAL_ERROR "${site}adaexplore_tune_kernel(${name}): ${text}")
endfunction()

# "<file>:<line>: " of the user's adaexplore_tune_kernel(<name> ...) call, for the first line of an
# error (CMake's own "CMake Error at" names this module's line, the user's call only at the bottom
# of the call stack). Inside a function CMAKE_CURRENT_LIST_FILE is the calling list file, but no
# variable holds the calling line: the line is that of the call there naming the kernel whose
# literal arguments (those without a variable reference) are all arguments of the call that runs
# (_ADAEXPLORE_CALL_ARGUMENTS, set as the call starts), so that of two calls of one kernel in the
# branches of an if() the one that ran is named. Several such calls (written alike): the last one
# when the error is about the name's repetition (_adaexplore_site_last), else "<file>: (the call at
# line <a> or <b>) ". "<file>: " when no call in the file names the kernel (a call through a wrapper
# function or a variable name).
function(_adaexplore_call_site out name)
  set(file "${CMAKE_CURRENT_LIST_FILE}")
  set(${out} "" PARENT_SCOPE)
  if(file STREQUAL "" OR NOT EXISTS "${file}")
    return()
  endif()
  file(READ "${file}" text)
  get_property(arguments GLOBAL PROPERTY _ADAEXPLORE_CALL_ARGUMENTS)
  set(start "(^|\n)[ \t]*adaexplore_tune_kernel[ \t]*\\([ \t\r\n]*${name}([ \t\r\n)#]|$)")
  set(rest "${text}")
  set(offset 0)
  set(named "")     # lines of the calls naming the kernel
  set(matching "")  # those whose literal arguments the running call has
  while(TRUE)
    string(REGEX MATCH "${start}" call "${rest}")
    if(call STREQUAL "")
      break()
    endif()
    string(FIND "${rest}" "${call}" at)
    string(LENGTH "${CMAKE_MATCH_1}" lead)
    math(EXPR at_call "${offset} + ${at} + ${lead}")
    string(SUBSTRING "${text}" 0 ${at_call} before)
    string(REGEX MATCHALL "\n" breaks "${before}")
    list(LENGTH breaks line)
    math(EXPR line "${line} + 1")
    list(APPEND named ${line})
    # The call's tokens up to its closing parenthesis: quoted arguments, comments, parentheses, words.
    string(SUBSTRING "${text}" ${at_call} -1 from_call)
    string(REGEX MATCHALL "\"([^\"\\]|\\.)*\"|#[^\n]*|[()]|[^ \t\r\n()\"#]+" tokens "${from_call}")
    set(depth 0)
    set(same TRUE)
    foreach(token IN LISTS tokens)
      if(token STREQUAL "(")
        math(EXPR depth "${depth} + 1")
      elseif(token STREQUAL ")")
        math(EXPR depth "${depth} - 1")
        if(depth EQUAL 0)
          break()
        endif()
      elseif(depth GREATER 0 AND NOT token MATCHES "^#" AND NOT token MATCHES "[$\\;]")
        string(REGEX REPLACE "^\"(.*)\"$" "\\1" value "${token}")
        if(NOT value IN_LIST arguments)
          set(same FALSE)
        endif()
      endif()
    endforeach()
    if(same)
      list(APPEND matching ${line})
    endif()
    string(LENGTH "${call}" length)
    math(EXPR skip "${at} + ${length}")
    string(SUBSTRING "${rest}" ${skip} -1 rest)
    math(EXPR offset "${offset} + ${skip}")
  endwhile()
  if(matching STREQUAL "")
    set(matching "${named}")
  endif()
  list(LENGTH matching count)
  if(count EQUAL 0)
    set(${out} "${file}: " PARENT_SCOPE)
  elseif(count EQUAL 1 OR _adaexplore_site_last)
    list(GET matching -1 line)
    set(${out} "${file}:${line}: " PARENT_SCOPE)
  else()
    string(REPLACE ";" " or " lines "${matching}")
    set(${out} "${file}: (the call at line ${lines}) " PARENT_SCOPE)
  endif()
endfunction()

function(_adaexplore_check_name name keywords)
  if(name STREQUAL "" OR name IN_LIST keywords)
    message(FATAL_ERROR "adaexplore_tune_kernel(${name}): the first argument must be the kernel's name, "
                        "got '${name}'. Call it as adaexplore_tune_kernel(<name> TEMPLATE <file> "
                        "BENCHMARK <file> PARAMS ...) with an identifier such as gemm.")
  endif()
  if(NOT name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    _adaexplore_fail("${name}" "the kernel name '${name}' is not a C++ identifier (letters, digits and _, "
                     "not starting with a digit); it names the header <name>.hpp and the namespace "
                     "adaexplore::<name>. Rename it, e.g. '${name}' -> gemm_f32.")
  endif()
  get_property(seen GLOBAL PROPERTY _ADAEXPLORE_KERNELS)
  if(name IN_LIST seen)
    set(_adaexplore_site_last TRUE)  # the call that repeats the name
    _adaexplore_fail("${name}" "a kernel named '${name}' was already declared in this configure; names "
                     "must be unique (they name the header adaexplore/${name}.hpp). Rename one of them.")
  endif()
  set_property(GLOBAL APPEND PROPERTY _ADAEXPLORE_KERNELS "${name}")
endfunction()

# Why `name` cannot be written into the generated header as a `use` (kernel, namespace, parameter,
# size), as the tuner says it (tuner/src/model/identifier.cpp), or "": the list of names is the
# tuner's own reserved_names.inc (installed beside this module as AdaExploreReservedNames.inc).
function(_adaexplore_reserved_name out name use)
  get_property(loaded GLOBAL PROPERTY _ADAEXPLORE_RESERVED_NAMES_LOADED)
  if(NOT loaded)
    get_property(file GLOBAL PROPERTY _ADAEXPLORE_RESERVED_NAMES_FILE)
    if(NOT EXISTS "${file}")
      message(FATAL_ERROR "AdaExplore.cmake: the list of reserved names ${file} is missing; reinstall AdaExplore.")
    endif()
    file(STRINGS "${file}" lines REGEX "^\\{\"")
    foreach(line IN LISTS lines)
      string(REGEX MATCHALL "\\{\"[A-Za-z0-9_]+\", k[A-Za-z]+\\}" entries "${line}")
      foreach(entry IN LISTS entries)
        string(REGEX REPLACE "^\\{\"([A-Za-z0-9_]+)\", k([A-Za-z]+)\\}$" "\\1;\\2" pair "${entry}")
        list(GET pair 0 word)
        list(GET pair 1 group)
        set_property(GLOBAL APPEND PROPERTY _ADAEXPLORE_RESERVED_${group} "${word}")
      endforeach()
    endforeach()
    set_property(GLOBAL PROPERTY _ADAEXPLORE_RESERVED_NAMES_LOADED TRUE)
  endif()
  get_property(keywords GLOBAL PROPERTY _ADAEXPLORE_RESERVED_Keyword)
  get_property(macros GLOBAL PROPERTY _ADAEXPLORE_RESERVED_Macro)
  get_property(std GLOBAL PROPERTY _ADAEXPLORE_RESERVED_Std)
  get_property(header GLOBAL PROPERTY _ADAEXPLORE_RESERVED_Header)
  set(why "")
  if(name IN_LIST keywords)
    set(why "a C++ keyword")
  elseif(name IN_LIST macros)
    set(why "a macro of the C and C++ standard libraries, the compiler or the CUDA runtime")
  elseif(name IN_LIST std)
    set(why "the standard library's namespace, which the header names in std::size_t")
  elseif(name IN_LIST header AND use MATCHES "^(parameter|size)$")
    set(why "a name the generated header declares or uses itself")
  elseif(name MATCHES "__" OR name MATCHES "^_[A-Z]")
    set(why "reserved to the compiler and the standard library: a double underscore, or _ and a capital letter")
  elseif(name MATCHES "^kSm[0-9]+$" AND use MATCHES "^(parameter|size)$")
    set(why "a constant of the header for several GPUs (kSm<compute capability>)")
  endif()
  if(why STREQUAL "")
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  string(REGEX REPLACE "^_+" "" suggestion "${name}")
  string(REGEX REPLACE "__+" "_" suggestion "${suggestion}")
  string(REGEX REPLACE "_+$" "" suggestion "${suggestion}")
  if(suggestion STREQUAL "")
    set(suggestion name)
  endif()
  if(suggestion STREQUAL name OR suggestion IN_LIST keywords OR suggestion IN_LIST macros OR suggestion IN_LIST std
     OR suggestion IN_LIST header)
    string(APPEND suggestion "_value")
  endif()
  if(use STREQUAL "kernel")
    set(fix "rename the kernel, e.g. ${suggestion}")
  elseif(use STREQUAL "namespace")
    set(fix "choose another namespace part, e.g. ${suggestion}")
  elseif(use STREQUAL "parameter")
    set(fix "rename the parameter, e.g. ${suggestion} (and its \${${name}} placeholders in the template)")
  else()
    set(fix "rename the size, e.g. ${suggestion}")
  endif()
  set(${out} "'${name}' is a C++ keyword or a name reserved in the generated header (${why}); ${fix}" PARENT_SCOPE)
endfunction()

# The form of each keyword, for messages.
function(_adaexplore_usage out keyword)
  set(table
      "TEMPLATE|TEMPLATE <file>, the kernel source with \${PARAM} placeholders, e.g. TEMPLATE kernels/gemm.cu.in (or KERNEL_SOURCE <file>, a kernel configured by macros)"
      "KERNEL_SOURCE|KERNEL_SOURCE <file>, a kernel source whose parameters are preprocessor macros, e.g. KERNEL_SOURCE kernels/matmul.cu"
      "BENCHMARK|BENCHMARK <file>, the benchmark program, e.g. BENCHMARK kernels/gemm_bench.cu (or ARGS: the kernel's arguments, and the module writes it)"
      "KERNEL_NAME|KERNEL_NAME <name>, the kernel's name, e.g. KERNEL_NAME matmul_kernel"
      "BLOCK_DIM|BLOCK_DIM <x> [<y> [<z>]], expressions over PARAMS and SIZES, e.g. BLOCK_DIM block_size_x block_size_y"
      "GRID_DIM|GRID_DIM <x> [<y> [<z>]], expressions over PARAMS and SIZES, e.g. GRID_DIM \"ceil(N / block_size_x)\""
      "ARGS|ARGS <argument>..., each one string: \"<input|output|inout|global> <type> <name>[<length>] [= <init>]\" or \"scalar <type> <name> = <value>\", e.g. ARGS \"output float c[N]\" \"input float a[N]\" \"scalar int n = N\""
      "REFERENCE|REFERENCE DEFAULTS, or REFERENCE <name>=<value>... (a configuration whose outputs are the reference)"
      "TOLERANCE|TOLERANCE REL <expression> ABS <expression>, e.g. TOLERANCE REL 1e-5 ABS \"4 * sqrt(K) * 2**-24\""
      "MACRO_PREFIX|MACRO_PREFIX <prefix>, the header's #define <prefix><PARAM> lines (\"\" for the parameters' own names), e.g. MACRO_PREFIX MATMUL_"
      "DEFINE_PARAMS|DEFINE_PARAMS PUBLIC, PRIVATE or INTERFACE (with TARGET)"
      "PARAMS|PARAMS <name> <value>... or PARAMS <name> RANGE <from> <to> [<step>], e.g. PARAMS TILE 16 32 64 UNROLL RANGE 1 8"
      "CONSTRAINTS|CONSTRAINTS <expression>..., e.g. CONSTRAINTS \"TILE * TILE <= 1024\""
      "DEFAULTS|DEFAULTS <name>=<value>..., e.g. DEFAULTS TILE=32 UNROLL=4"
      "BUDGET|BUDGET <evaluations>, a positive integer, e.g. BUDGET 100"
      "TIME_LIMIT|TIME_LIMIT <seconds>, 0 or more, e.g. TIME_LIMIT 600"
      "TARGET|TARGET <target>, an existing target, e.g. TARGET blas"
      "BACKEND|BACKEND cuda or BACKEND host"
      "STRATEGY|STRATEGY <name>, e.g. STRATEGY ga (adaexplore-tuner strategies lists them)"
      "SEED|SEED <n>, a non-negative integer, e.g. SEED 1"
      "NAMESPACE|NAMESPACE <namespace>, e.g. NAMESPACE blas::tuning"
      "PINNED_HEADER|PINNED_HEADER <file>, e.g. PINNED_HEADER kernels/pinned/gemm.hpp"
      "ARCH|ARCH <sm_XX>, e.g. ARCH sm_90"
      "COMPILE_OPTIONS|COMPILE_OPTIONS <flag>..., e.g. COMPILE_OPTIONS --use_fast_math"
      "INCLUDE_DIRECTORIES|INCLUDE_DIRECTORIES <dir>..., e.g. INCLUDE_DIRECTORIES include"
      "RUN_ARGS|RUN_ARGS <arg>..., e.g. RUN_ARGS --size 4096"
      "SIZES|SIZES <size>..., each size one argument of NAME=VALUE pairs, e.g. SIZES \"M=512 N=512 K=512\" \"M=4096 N=4096 K=4096\""
      "SIZE_BUDGET|SIZE_BUDGET <evaluations>, a positive integer (with SIZES), e.g. SIZE_BUDGET 50"
      "RUN_TIMEOUT|RUN_TIMEOUT <seconds>, more than 0, e.g. RUN_TIMEOUT 30"
      "COMPILE_TIMEOUT|COMPILE_TIMEOUT <seconds>, more than 0, e.g. COMPILE_TIMEOUT 120"
      "COMPILER_LAUNCHER|COMPILER_LAUNCHER <launcher> [<arg>...], e.g. COMPILER_LAUNCHER ccache"
      "RUN_TIMEOUT_FACTOR|RUN_TIMEOUT_FACTOR <factor>, 1 or more (0: RUN_TIMEOUT alone), e.g. RUN_TIMEOUT_FACTOR 10"
      "RUN_TIMEOUT_FLOOR|RUN_TIMEOUT_FLOOR <seconds>, 0 or more, e.g. RUN_TIMEOUT_FLOOR 5"
      "RUNNER|RUNNER ON or RUNNER OFF"
      "COMPILE_UNIT|COMPILE_UNIT AUTO, KERNEL or PROGRAM"
      "THREADS_PER_BLOCK|THREADS_PER_BLOCK <expression over PARAMS>, e.g. THREADS_PER_BLOCK \"BLOCK_X * BLOCK_Y\""
      "DYNAMIC_SHARED_BYTES|DYNAMIC_SHARED_BYTES <expression over PARAMS>, bytes, e.g. DYNAMIC_SHARED_BYTES \"4 * TILE * TILE\""
      "JOBS|JOBS <n>, parallel compiles, 0 for one per core, e.g. JOBS 8"
      "IN_FLIGHT|IN_FLIGHT <n>, configurations in flight at most, 0 for automatic, e.g. IN_FLIGHT 6")
  foreach(row IN LISTS table)
    if(row MATCHES "^${keyword}\\|(.*)$")
      set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()

function(_adaexplore_check_arguments name prefix one multi)
  if(DEFINED ${prefix}_UNPARSED_ARGUMENTS)
    list(GET ${prefix}_UNPARSED_ARGUMENTS 0 first)
    string(REPLACE ";" ", " keywords "${one};${multi}")
    _adaexplore_fail("${name}" "unknown argument '${first}'. The keywords are ${keywords}; check the "
                     "spelling, and that each value follows its keyword.")
  endif()
  # SIZES followed by nothing (SIZES ${LIST} of an empty list) is no SIZES: a project's sizes can be
  # a cache variable that may be empty. SIZES "" (an empty size) stays an error.
  list(REMOVE_ITEM ${prefix}_KEYWORDS_MISSING_VALUES SIZES)
  foreach(keyword IN LISTS ${prefix}_KEYWORDS_MISSING_VALUES one)
    if(keyword STREQUAL "MACRO_PREFIX")  # "" is a prefix (the parameters' own names)
      continue()
    endif()
    if(keyword IN_LIST ${prefix}_KEYWORDS_MISSING_VALUES
       OR (DEFINED ${prefix}_${keyword} AND "${${prefix}_${keyword}}" STREQUAL ""))  # CMP0174 NEW
      _adaexplore_usage(usage ${keyword})
      if(keyword MATCHES "^(TEMPLATE|KERNEL_SOURCE|BENCHMARK|PARAMS)$")  # required: leaving it out is no fix
        _adaexplore_fail("${name}" "${keyword} is given without a value; write ${usage} (${keyword} is required).")
      endif()
      _adaexplore_fail("${name}" "${keyword} is given without a value; write ${usage}, or leave the keyword out.")
    endif()
  endforeach()
  foreach(keyword TEMPLATE BENCHMARK PARAMS)
    set(instead "")
    if(keyword STREQUAL "TEMPLATE")
      set(instead KERNEL_SOURCE)
    elseif(keyword STREQUAL "BENCHMARK")
      set(instead ARGS)
    endif()
    if(NOT DEFINED ${prefix}_${keyword} AND (instead STREQUAL "" OR NOT DEFINED ${prefix}_${instead}))
      _adaexplore_usage(usage ${keyword})
      _adaexplore_fail("${name}" "${keyword} is required; add ${usage}.")
    endif()
    if(NOT instead STREQUAL "" AND DEFINED ${prefix}_${keyword} AND DEFINED ${prefix}_${instead})
      _adaexplore_fail("${name}" "${keyword} and ${instead} are both given; they are two ways of saying one thing: "
                       "keep one.")
    endif()
  endforeach()
  foreach(keyword TEMPLATE KERNEL_SOURCE BENCHMARK)
    if(DEFINED ${prefix}_${keyword})
      _adaexplore_check_file("${name}" ${keyword} "${${prefix}_${keyword}}")
    endif()
  endforeach()
  _adaexplore_check_value("${name}" ${prefix} DEFINE_PARAMS "^(PUBLIC|PRIVATE|INTERFACE)$"
                          "is none of PUBLIC, PRIVATE, INTERFACE")
  if(DEFINED ${prefix}_DEFINE_PARAMS AND NOT DEFINED ${prefix}_TARGET)
    _adaexplore_fail("${name}" "DEFINE_PARAMS ${${prefix}_DEFINE_PARAMS} adds the winning values as compile "
                     "definitions to TARGET, and no TARGET is given; add TARGET <target>, or remove DEFINE_PARAMS.")
  endif()
  set(integer "^(0|[1-9][0-9]*)$")
  set(seconds "^(0|[1-9][0-9]*)(\\.[0-9]+)?$")
  _adaexplore_check_value("${name}" ${prefix} BUDGET "^[1-9][0-9]*$" "is not a positive integer")
  _adaexplore_check_value("${name}" ${prefix} SIZE_BUDGET "^[1-9][0-9]*$" "is not a positive integer")
  if(DEFINED ${prefix}_SIZE_BUDGET AND NOT DEFINED ${prefix}_SIZES)
    _adaexplore_usage(usage SIZES)
    _adaexplore_fail("${name}" "SIZE_BUDGET ${${prefix}_SIZE_BUDGET} is given without SIZES; it is the budget of "
                     "each problem size tuned after the first, so it needs the sizes: add ${usage}, or remove "
                     "SIZE_BUDGET (BUDGET is the budget of a kernel tuned at one size).")
  endif()
  _adaexplore_check_value("${name}" ${prefix} SEED "${integer}" "is not a non-negative integer")
  _adaexplore_check_value("${name}" ${prefix} JOBS "${integer}" "is not a non-negative integer")
  _adaexplore_check_value("${name}" ${prefix} IN_FLIGHT "${integer}" "is not a non-negative integer")
  _adaexplore_check_value("${name}" ${prefix} TIME_LIMIT "${seconds}" "is not a number of seconds (0 or more)")
  _adaexplore_check_value("${name}" ${prefix} BACKEND "^(cuda|host)$" "is not a backend (cuda or host)")
  _adaexplore_check_value("${name}" ${prefix} NAMESPACE "^[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*$"
                          "is not a C++ namespace name")
  if(DEFINED ${prefix}_NAMESPACE)
    string(REPLACE "::" ";" parts "${${prefix}_NAMESPACE}")
    foreach(part IN LISTS parts)
      _adaexplore_reserved_name(problem "${part}" namespace)
      if(NOT problem STREQUAL "")
        _adaexplore_fail("${name}" "NAMESPACE '${${prefix}_NAMESPACE}': ${problem}.")
      endif()
    endforeach()
  else()
    _adaexplore_reserved_name(problem "${name}" kernel)
    if(NOT problem STREQUAL "")
      _adaexplore_fail("${name}" "the kernel name ${problem} (it makes the namespace adaexplore::${name}), or give "
                       "NAMESPACE <namespace>.")
    endif()
  endif()
  _adaexplore_check_value("${name}" ${prefix} ARCH "^(sm_)?[0-9]+[a-z]?$" "is not a CUDA architecture")
  _adaexplore_check_value("${name}" ${prefix} STRATEGY "^[A-Za-z0-9_-]+$" "is not a strategy name")
  foreach(keyword RUN_TIMEOUT COMPILE_TIMEOUT)
    _adaexplore_check_value("${name}" ${prefix} ${keyword} "${seconds}" "is not a number of seconds")
    if(DEFINED ${prefix}_${keyword} AND "${${prefix}_${keyword}}" MATCHES "^0(\\.0*)?$")
      _adaexplore_fail("${name}" "${keyword} '${${prefix}_${keyword}}' is not more than 0 seconds; give a "
                       "positive limit, e.g. ${keyword} 60.")
    endif()
  endforeach()
  _adaexplore_check_value("${name}" ${prefix} RUN_TIMEOUT_FLOOR "${seconds}" "is not a number of seconds (0 or more)")
  _adaexplore_check_value("${name}" ${prefix} RUNNER "^(ON|OFF)$" "is neither ON nor OFF")
  _adaexplore_check_value("${name}" ${prefix} COMPILE_UNIT "^(AUTO|KERNEL|PROGRAM)$" "is none of AUTO, KERNEL, PROGRAM")
  _adaexplore_check_value("${name}" ${prefix} RUN_TIMEOUT_FACTOR "${seconds}" "is not a number (1 or more, or 0)")
  if(DEFINED ${prefix}_RUN_TIMEOUT_FACTOR AND ${prefix}_RUN_TIMEOUT_FACTOR GREATER 0
     AND ${prefix}_RUN_TIMEOUT_FACTOR LESS 1)
    _adaexplore_fail("${name}" "RUN_TIMEOUT_FACTOR '${${prefix}_RUN_TIMEOUT_FACTOR}' is less than 1: later runs would "
                     "get less time than the defaults took; give 1 or more (e.g. RUN_TIMEOUT_FACTOR 10), or 0 for "
                     "RUN_TIMEOUT alone.")
  endif()
  foreach(keyword THREADS_PER_BLOCK DYNAMIC_SHARED_BYTES BLOCK_DIM GRID_DIM KERNEL_SOURCE ARGS REFERENCE)
    if(DEFINED ${prefix}_${keyword} AND NOT ${prefix}_GPU)
      _adaexplore_fail("${name}" "${keyword} describes a CUDA kernel and its launch; BACKEND host launches none. "
                       "Remove ${keyword}, or use BACKEND cuda.")
    endif()
  endforeach()
  foreach(expression IN LISTS ${prefix}_CONSTRAINTS)
    if(expression MATCHES "^[ \t]*$")
      _adaexplore_fail("${name}" "CONSTRAINTS has an empty expression; remove the empty string or write one, "
                       "e.g. CONSTRAINTS \"TILE * TILE <= 1024\".")
    endif()
  endforeach()
  if(DEFINED ${prefix}_TARGET AND NOT TARGET "${${prefix}_TARGET}")
    _adaexplore_fail("${name}" "TARGET '${${prefix}_TARGET}' is not a target; create it before this call "
                     "(add_library(${${prefix}_TARGET} ...)) or fix the name.")
  endif()
endfunction()

# The cache variables (or normal variables of the same names) this call reads.
function(_adaexplore_check_settings name)
  _adaexplore_mode(mode)
  if(NOT mode MATCHES "^(AUTO|TUNE|CACHED|PINNED|DEFAULTS)$")
    _adaexplore_fail("${name}" "ADAEXPLORE_MODE '${ADAEXPLORE_MODE}' is not one of AUTO, TUNE, CACHED, PINNED, "
                     "DEFAULTS, OFF; configure with -DADAEXPLORE_MODE=AUTO (tune when possible).")
  endif()
  if(EXISTS "${ADAEXPLORE_DATABASE}" AND NOT IS_DIRECTORY "${ADAEXPLORE_DATABASE}")
    _adaexplore_fail("${name}" "ADAEXPLORE_DATABASE '${ADAEXPLORE_DATABASE}' is a file, not a folder: the tuning "
                     "database is a folder of results files. Configure with -DADAEXPLORE_DATABASE=<folder> (created "
                     "when missing), or move the file aside.")
  endif()
  if(NOT "${ADAEXPLORE_DEVICE}" MATCHES "^(|0|[1-9][0-9]*)$")
    _adaexplore_fail("${name}" "ADAEXPLORE_DEVICE '${ADAEXPLORE_DEVICE}' is not a CUDA device index (0, 1, ...); "
                     "configure with -DADAEXPLORE_DEVICE=0 for the first GPU (nvidia-smi lists them).")
  endif()
endfunction()

# ADAEXPLORE_MODE in upper case, "" as AUTO and OFF as DEFAULTS.
function(_adaexplore_mode out)
  string(TOUPPER "${ADAEXPLORE_MODE}" mode)
  if(mode STREQUAL "")
    set(mode AUTO)
  elseif(mode STREQUAL "OFF")
    set(mode DEFAULTS)
  endif()
  set(${out} "${mode}" PARENT_SCOPE)
endfunction()


function(_adaexplore_check_value name prefix keyword regex problem)
  if(DEFINED ${prefix}_${keyword} AND NOT "${${prefix}_${keyword}}" MATCHES "${regex}")
    _adaexplore_usage(usage ${keyword})
    _adaexplore_fail("${name}" "${keyword} '${${prefix}_${keyword}}' ${problem}; write ${usage}.")
  endif()
endfunction()

function(_adaexplore_check_file name keyword path)
  _adaexplore_abs(full "${path}")
  if(NOT EXISTS "${full}" OR IS_DIRECTORY "${full}")
    _adaexplore_fail("${name}" "${keyword} '${path}' is not a file (looked for ${full}); paths are relative "
                     "to ${CMAKE_CURRENT_SOURCE_DIR}. Fix the path or create the file.")
  endif()
endfunction()

function(_adaexplore_abs out path)
  cmake_path(ABSOLUTE_PATH path BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE OUTPUT_VARIABLE full)
  set(${out} "${full}" PARENT_SCOPE)
endfunction()

# ---------------------------------------------------------------------------------------------
# The spec (format: tuner/src/model/spec.hpp). Keys the call leaves out are left out, so the tuner's
# defaults apply.

function(_adaexplore_json_string out value)
  string(REPLACE "\\" "\\\\" value "${value}")
  string(REPLACE "\"" "\\\"" value "${value}")
  string(REPLACE "\n" "\\n" value "${value}")
  string(REPLACE "\r" "\\r" value "${value}")
  string(REPLACE "\t" "\\t" value "${value}")
  set(${out} "\"${value}\"" PARENT_SCOPE)
endfunction()

function(_adaexplore_json_strings out)
  set(items "")
  foreach(value IN LISTS ARGN)
    _adaexplore_json_string(quoted "${value}")
    list(APPEND items "${quoted}")
  endforeach()
  string(JOIN ", " joined ${items})
  set(${out} "[${joined}]" PARENT_SCOPE)
endfunction()

# A launch expression (THREADS_PER_BLOCK, DYNAMIC_SHARED_BYTES): arithmetic over the parameter
# `names`; the tuner parses and evaluates it (expr.hpp), this catches typos at the call.
function(_adaexplore_check_launch_expression name keyword expression names)
  string(REPLACE ";" ", " known "${names}")
  _adaexplore_usage(usage ${keyword})
  string(REGEX REPLACE "[A-Za-z0-9_. \t+*/%()-]" "" stray "${expression}")
  if(NOT stray STREQUAL "")
    _adaexplore_fail("${name}" "${keyword} '${expression}' has characters an arithmetic expression does not use "
                     "('${stray}'); use numbers, the parameters (${known}), + - * / // % ** and parentheses: "
                     "write ${usage}.")
  endif()
  string(REGEX MATCHALL "[A-Za-z0-9_.]+" tokens "${expression}")
  foreach(token IN LISTS tokens)
    if(token MATCHES "^[A-Za-z_]" AND NOT token IN_LIST names)
      _adaexplore_fail("${name}" "${keyword} '${expression}' names '${token}', which is not a parameter of PARAMS "
                       "(${known}); fix the name or add the parameter: write ${usage}.")
    endif()
  endforeach()
endfunction()

# Levenshtein distance of two short strings (insertions, deletions, substitutions).
function(_adaexplore_edit_distance out a b)
  string(LENGTH "${a}" la)
  string(LENGTH "${b}" lb)
  set(previous "")
  foreach(j RANGE 0 ${lb})
    list(APPEND previous ${j})
  endforeach()
  if(la GREATER 0)
    foreach(i RANGE 1 ${la})
      math(EXPR ai "${i} - 1")
      string(SUBSTRING "${a}" ${ai} 1 ca)
      set(current ${i})
      if(lb GREATER 0)
        foreach(j RANGE 1 ${lb})
          math(EXPR bj "${j} - 1")
          string(SUBSTRING "${b}" ${bj} 1 cb)
          list(GET previous ${j} deletion)
          list(GET previous ${bj} substitution)
          list(GET current ${bj} insertion)
          math(EXPR deletion "${deletion} + 1")
          math(EXPR insertion "${insertion} + 1")
          if(NOT ca STREQUAL cb)
            math(EXPR substitution "${substitution} + 1")
          endif()
          set(best ${deletion})
          foreach(candidate ${insertion} ${substitution})
            if(candidate LESS best)
              set(best ${candidate})
            endif()
          endforeach()
          list(APPEND current ${best})
        endforeach()
      endif()
      set(previous ${current})
    endforeach()
  endif()
  list(GET previous ${lb} distance)
  set(${out} ${distance} PARENT_SCOPE)
endfunction()

# The keyword of adaexplore_tune_kernel() that `word` (4 letters or more) is probably a misspelling
# of (case aside: at most 2 edits, and at most a third of the keyword's letters), or "".
function(_adaexplore_near_keyword out word)
  set(${out} "" PARENT_SCOPE)
  string(TOUPPER "${word}" upper)
  string(LENGTH "${upper}" length)
  if(length LESS 4)
    return()
  endif()
  set(keywords TEMPLATE BENCHMARK PARAMS CONSTRAINTS DEFAULTS BUDGET TIME_LIMIT TARGET BACKEND STRATEGY SEED
               NAMESPACE PINNED_HEADER ARCH COMPILE_OPTIONS INCLUDE_DIRECTORIES RUN_ARGS RUN_TIMEOUT
               RUN_TIMEOUT_FACTOR RUN_TIMEOUT_FLOOR RUNNER COMPILE_UNIT COMPILE_TIMEOUT COMPILER_LAUNCHER
               THREADS_PER_BLOCK DYNAMIC_SHARED_BYTES JOBS IN_FLIGHT SIZES SIZE_BUDGET)
  foreach(keyword IN LISTS keywords)
    string(LENGTH "${keyword}" kl)
    math(EXPR difference "${kl} - ${length}")
    if(difference GREATER 2 OR difference LESS -2)
      continue()
    endif()
    _adaexplore_edit_distance(distance "${upper}" "${keyword}")
    math(EXPR scaled "${distance} * 3")
    if(distance LESS_EQUAL 2 AND scaled LESS_EQUAL kl)
      set(${out} "${keyword}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()

# "'<word>' after PARAMS looks like the keyword <K> misspelled (keywords are upper case, spelled as
# in the reference); ", or "" when it does not look like one.
function(_adaexplore_misspelled_keyword_hint out word)
  _adaexplore_near_keyword(keyword "${word}")
  if(keyword STREQUAL "")
    set(${out} "" PARENT_SCOPE)
  else()
    string(CONCAT _adaexplore_text "'${word}' after PARAMS looks like the keyword ${keyword} misspelled, so it was "
                                   "read as a parameter "
                                   "name; write ${keyword}. (")
    set(${out} "${_adaexplore_text}" PARENT_SCOPE)
  endif()
endfunction()

# PARAMS tokens -> JSON "parameters" array; `names_out` gets the parameter names.
function(_adaexplore_params_json out names_out name)
  set(params "")
  set(names "")
  set(current "")
  set(values "")
  set(range "")
  foreach(token IN LISTS ARGN)
    if(token MATCHES "^[A-Za-z_][A-Za-z0-9_]*$" AND NOT token STREQUAL "RANGE")
      _adaexplore_param_json(param "${name}" "${current}" "${values}" "${range}")
      list(APPEND params "${param}")
      if(token IN_LIST names)
        _adaexplore_fail("${name}" "PARAMS names '${token}' twice; give each parameter once, with all its values.")
      endif()
      _adaexplore_reserved_name(problem "${token}" parameter)
      if(NOT problem STREQUAL "")
        _adaexplore_fail("${name}" "PARAMS: ${problem}.")
      endif()
      list(APPEND names "${token}")
      set(current "${token}")
      set(values "")
      set(range "")
    elseif(current STREQUAL "")
      _adaexplore_fail("${name}" "PARAMS value '${token}' comes before any parameter name; start with a name, "
                       "e.g. PARAMS TILE 16 32 64.")
    elseif(token STREQUAL "RANGE")
      if(NOT values STREQUAL "" OR NOT range STREQUAL "")
        _adaexplore_fail("${name}" "PARAMS ${current}: RANGE must directly follow the name, without values "
                         "before it; write ${current} RANGE <from> <to> [<step>].")
      endif()
      set(range "RANGE")
    elseif(NOT range STREQUAL "")
      list(APPEND range "${token}")
    elseif(token MATCHES "^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?$")
      list(APPEND values "${token}")
    else()
      _adaexplore_misspelled_keyword_hint(hint "${current}")
      set(close "")
      if(NOT hint STREQUAL "")
        set(close ")")
      endif()
      _adaexplore_fail("${name}" "${hint}PARAMS ${current}: value '${token}' is not a number; values are numbers as "
                       "JSON writes them (16, -1, 0.5, 1e-3), and an identifier starts a new parameter.${close}")
    endif()
  endforeach()
  _adaexplore_param_json(param "${name}" "${current}" "${values}" "${range}")
  list(APPEND params "${param}")
  string(JOIN ", " joined ${params})
  set(${out} "[${joined}]" PARENT_SCOPE)
  set(${names_out} "${names}" PARENT_SCOPE)
endfunction()

# A parameter named like a misspelled keyword (PARAMS TILE 16 32 BUDGTE 50) whose placeholder the
# template lacks is the keyword misspelled: the tuner would report it as a parameter never used.
function(_adaexplore_check_keyword_like_params name template names macro_kernel)
  foreach(param IN LISTS names)
    _adaexplore_near_keyword(keyword "${param}")
    if(keyword STREQUAL "")
      continue()
    endif()
    file(READ "${template}" text)
    string(FIND "${text}" "\${${param}}" at)
    if(macro_kernel AND text MATCHES "(^|[^A-Za-z0-9_])${param}([^A-Za-z0-9_]|$)")
      set(at 0)  # KERNEL_SOURCE: the macro is used
    endif()
    if(at EQUAL -1)
      _adaexplore_fail("${name}" "'${param}' after PARAMS looks like the keyword ${keyword} misspelled, and TEMPLATE "
                       "has no \${${param}} placeholder, so it is no parameter; write ${keyword}.")
    endif()
  endforeach()
endfunction()

function(_adaexplore_param_json out name param values range)
  set(${out} "" PARENT_SCOPE)
  if(param STREQUAL "")
    return()
  endif()
  _adaexplore_json_string(quoted "${param}")
  if(NOT range STREQUAL "")
    _adaexplore_range_json(json "${name}" "${param}" ${range})
    set(${out} "{\"name\": ${quoted}, \"range\": ${json}}" PARENT_SCOPE)
  elseif(NOT values STREQUAL "")
    string(JOIN ", " joined ${values})
    set(${out} "{\"name\": ${quoted}, \"values\": [${joined}]}" PARENT_SCOPE)
  else()
    _adaexplore_near_keyword(keyword "${param}")
    if(NOT keyword STREQUAL "")
      _adaexplore_fail("${name}" "'${param}' after PARAMS looks like the keyword ${keyword} misspelled (read as a "
                       "parameter, it has no values); write ${keyword}.")
    endif()
    _adaexplore_fail("${name}" "PARAMS ${param} has no values; follow it with numbers (${param} 16 32 64) "
                     "or a range (${param} RANGE 1 8). Values cannot be words: an identifier starts a new "
                     "parameter. If '${param}' is meant as a keyword, check its spelling.")
  endif()
endfunction()

function(_adaexplore_range_json out name param)
  set(bounds ${ARGN})
  list(REMOVE_AT bounds 0)  # the word RANGE
  list(LENGTH bounds count)
  set(fix "write ${param} RANGE <from> <to> [<step>] with integers, from <= to and step > 0, e.g. ${param} RANGE 1 8 1")
  if(count LESS 2 OR count GREATER 3)
    string(JOIN " " given ${bounds})
    _adaexplore_fail("${name}" "PARAMS ${param} RANGE '${given}' needs 2 or 3 integers; ${fix}.")
  endif()
  foreach(bound IN LISTS bounds)
    if(NOT bound MATCHES "^-?[0-9]+$")
      _adaexplore_fail("${name}" "PARAMS ${param} RANGE bound '${bound}' is not an integer; ${fix}.")
    endif()
  endforeach()
  list(GET bounds 0 from)
  list(GET bounds 1 to)
  set(step 1)
  if(count EQUAL 3)
    list(GET bounds 2 step)
  endif()
  if(from GREATER to OR step LESS_EQUAL 0)
    _adaexplore_fail("${name}" "PARAMS ${param} RANGE ${from} ${to} ${step} is empty or has a step <= 0; ${fix}.")
  endif()
  set(${out} "{\"from\": ${from}, \"to\": ${to}, \"step\": ${step}}" PARENT_SCOPE)
endfunction()

function(_adaexplore_defaults_json out name names)
  set(items "")
  set(seen "")
  foreach(assignment IN LISTS ARGN)
    if(NOT assignment MATCHES "^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
      _adaexplore_fail("${name}" "DEFAULTS '${assignment}' is not NAME=VALUE; write each default as one "
                       "argument without spaces, e.g. DEFAULTS TILE=32 UNROLL=4.")
    endif()
    set(param "${CMAKE_MATCH_1}")
    set(value "${CMAKE_MATCH_2}")
    if(NOT param IN_LIST names)
      string(REPLACE ";" ", " known "${names}")
      _adaexplore_fail("${name}" "DEFAULTS '${assignment}' names no parameter of PARAMS (${known}); fix the "
                       "name or add the parameter to PARAMS.")
    endif()
    if(param IN_LIST seen)
      _adaexplore_fail("${name}" "DEFAULTS gives ${param} twice; give each parameter's default once.")
    endif()
    if(NOT value MATCHES "^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?$")
      _adaexplore_fail("${name}" "DEFAULTS '${assignment}': '${value}' is not a number; give one of the values "
                       "PARAMS lists for ${param}, e.g. ${param}=32.")
    endif()
    list(APPEND seen "${param}")
    list(APPEND items "\"${param}\": ${value}")
  endforeach()
  string(JOIN ", " joined ${items})
  set(${out} "{${joined}}" PARENT_SCOPE)
endfunction()

# SIZES -> the spec's "sizes" object {"names": [...], "values": [[...], ...]} (tuner/src/model/sizes.hpp).
# Each element of the list `sizes_var` is one size, NAME=VALUE pairs separated by spaces or commas
# ("M=512 N=512 K=512"); every size names the same names in the same order, each value a positive
# integer, no size twice, no name a parameter's (`names`: the PARAMS names).
function(_adaexplore_sizes_json out name names sizes_var)
  _adaexplore_usage(usage SIZES)
  set(example "SIZES \"M=512 N=512 K=512\" \"M=4096 N=4096 K=4096\"")
  set(size_names "")
  set(first "")
  set(labels "")
  set(rows "")
  foreach(size IN LISTS ${sizes_var})
    string(REGEX REPLACE "[ \t\r\n,]+" ";" pairs "${size}")
    list(FILTER pairs EXCLUDE REGEX "^$")
    if(pairs STREQUAL "")
      _adaexplore_fail("${name}" "SIZES has an empty size ('${size}'); remove it or write one as NAME=VALUE pairs, "
                       "e.g. ${example}.")
    endif()
    set(these "")
    set(values "")
    foreach(pair IN LISTS pairs)
      if(NOT pair MATCHES "^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
        _adaexplore_near_keyword(keyword "${pair}")
        if(NOT keyword STREQUAL "" AND size STREQUAL pair)
          _adaexplore_fail("${name}" "'${pair}' after SIZES looks like the keyword ${keyword} misspelled, so it was "
                           "read as a size; write ${keyword}.")
        endif()
        _adaexplore_fail("${name}" "SIZES '${size}': '${pair}' is not NAME=VALUE (NAME an identifier); write each "
                         "size as one argument of NAME=VALUE pairs separated by spaces, e.g. ${example}.")
      endif()
      set(dimension "${CMAKE_MATCH_1}")
      set(value "${CMAKE_MATCH_2}")
      string(LENGTH "${value}" digits)
      if(NOT value MATCHES "^[1-9][0-9]*$" OR digits GREATER 18)
        _adaexplore_fail("${name}" "SIZES '${size}': '${value}' (${dimension}) is not a positive integer; a size's "
                         "values are whole numbers of 1 or more (at most 18 digits), e.g. ${dimension}=512.")
      endif()
      if(dimension IN_LIST these)
        _adaexplore_fail("${name}" "SIZES '${size}' gives ${dimension} twice; give each name once per size, e.g. "
                         "${example}.")
      endif()
      _adaexplore_reserved_name(problem "${dimension}" size)
      if(NOT problem STREQUAL "")
        _adaexplore_fail("${name}" "SIZES '${size}': ${problem}.")
      endif()
      if(dimension IN_LIST names)
        string(REPLACE ";" ", " known "${names}")
        _adaexplore_fail("${name}" "SIZES '${size}' names ${dimension}, which is also a parameter of PARAMS "
                         "(${known}); the header declares both, so rename the size's ${dimension} (or the "
                         "parameter).")
      endif()
      list(APPEND these "${dimension}")
      list(APPEND values "${value}")
    endforeach()
    if(first STREQUAL "")
      set(first "${size}")
      set(size_names "${these}")
    elseif(NOT these STREQUAL size_names)
      string(REPLACE ";" ", " have "${these}")
      string(REPLACE ";" ", " want "${size_names}")
      _adaexplore_fail("${name}" "SIZES '${size}' names ${have}, but the first size '${first}' names ${want}: every "
                       "size names the same names in the same order. Each argument of SIZES is one whole size, "
                       "so quote it: ${example}.")
    endif()
    set(pieces "")
    foreach(dimension value IN ZIP_LISTS these values)
      list(APPEND pieces "${dimension}=${value}")
    endforeach()
    string(JOIN " " label ${pieces})
    list(FIND labels "${label}" seen)
    if(NOT seen EQUAL -1)
      list(GET ${sizes_var} ${seen} earlier)
      _adaexplore_fail("${name}" "SIZES gives the size ${label} twice ('${earlier}' and '${size}'); give each "
                       "size once.")
    endif()
    list(APPEND labels "${label}")
    string(JOIN ", " joined ${values})
    list(APPEND rows "[${joined}]")
  endforeach()
  if(rows STREQUAL "")
    _adaexplore_fail("${name}" "SIZES is given without a size; write ${usage}, or leave the keyword out.")
  endif()
  _adaexplore_json_strings(json_names ${size_names})
  string(JOIN ", " joined ${rows})
  set(${out} "{\"names\": ${json_names}, \"values\": [${joined}]}" PARENT_SCOPE)
endfunction()

# The one place the module tells the backends apart: `out` TRUE for one that builds a CUDA kernel
# for a GPU (cuda), FALSE for C++ tuned on the CPU (host). BACKEND's values are checked against the
# list in _adaexplore_check_arguments; every other decision about a backend is the tuner's.
function(_adaexplore_backend_is_gpu out backend)
  if(backend STREQUAL "cuda")
    set(${out} TRUE PARENT_SCOPE)
  else()
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()

# The compiler the tuner should use for a GPU (`gpu` TRUE) or CPU backend: the project's own when
# its language is enabled.
function(_adaexplore_compiler out gpu)
  set(${out} "" PARENT_SCOPE)
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(gpu AND "CUDA" IN_LIST languages AND CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA")
    set(${out} "${CMAKE_CUDA_COMPILER}" PARENT_SCOPE)
  elseif(NOT gpu AND "CXX" IN_LIST languages)
    set(${out} "${CMAKE_CXX_COMPILER}" PARENT_SCOPE)
  endif()
endfunction()

# ARCH, else the first concrete entry of the target's CUDA_ARCHITECTURES or CMAKE_CUDA_ARCHITECTURES.
function(_adaexplore_arch out arch target)
  if(NOT arch STREQUAL "")
    set(${out} "${arch}" PARENT_SCOPE)
    return()
  endif()
  set(architectures "${CMAKE_CUDA_ARCHITECTURES}")
  if(NOT target STREQUAL "")
    get_target_property(target_architectures "${target}" CUDA_ARCHITECTURES)
    if(target_architectures)
      set(architectures "${target_architectures}")
    endif()
  endif()
  set(${out} "" PARENT_SCOPE)
  list(POP_FRONT architectures first)
  if("${first}" MATCHES "^([0-9]+[a-z]?)(-real|-virtual)?$")
    set(${out} "sm_${CMAKE_MATCH_1}" PARENT_SCOPE)
  endif()
endfunction()

# The architectures the kernel is built for, as sm_XX: ARCH, else every concrete entry of the
# TARGET's CUDA_ARCHITECTURES or of CMAKE_CUDA_ARCHITECTURES (native, all, all-major skipped).
# `source_out`: where they come from, for messages.
function(_adaexplore_target_archs out source_out arch target)
  set(${out} "" PARENT_SCOPE)
  if(NOT arch STREQUAL "")
    set(normalized "${arch}")
    if(NOT arch MATCHES "^sm_")
      set(normalized "sm_${arch}")
    endif()
    set(${out} "${normalized}" PARENT_SCOPE)
    set(${source_out} "ARCH '${arch}'" PARENT_SCOPE)
    return()
  endif()
  set(architectures "${CMAKE_CUDA_ARCHITECTURES}")
  set(source "CMAKE_CUDA_ARCHITECTURES '${CMAKE_CUDA_ARCHITECTURES}'")
  if(NOT target STREQUAL "")
    get_target_property(target_architectures "${target}" CUDA_ARCHITECTURES)
    if(target_architectures)
      set(architectures "${target_architectures}")
      set(source "the CUDA_ARCHITECTURES '${target_architectures}' of TARGET ${target}")
    endif()
  endif()
  set(archs "")
  foreach(entry IN LISTS architectures)
    if(entry MATCHES "^([0-9]+[a-z]?)(-real|-virtual)?$")
      list(APPEND archs "sm_${CMAKE_MATCH_1}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES archs)
  set(${out} "${archs}" PARENT_SCOPE)
  set(${source_out} "${source}" PARENT_SCOPE)
endfunction()

# The real architectures the CUDA compiler can target (`nvcc --list-gpu-code`: sm_75;sm_80;...),
# "" when there is no nvcc to ask or it cannot say. `compiler_out`: the nvcc asked, with its
# release. Asked once per configure, and kept in the cache while the nvcc file is unchanged.
function(_adaexplore_supported_archs out compiler_out)
  get_property(known GLOBAL PROPERTY _ADAEXPLORE_NVCC_ARCHS SET)
  if(NOT known)
    _adaexplore_compiler(nvcc TRUE)
    if(nvcc STREQUAL "")
      get_filename_component(nvcc nvcc PROGRAM)  # the tuner runs nvcc from PATH too
    endif()
    set(codes "")
    set(about "")
    if(NOT nvcc STREQUAL "" AND EXISTS "${nvcc}")
      file(TIMESTAMP "${nvcc}" stamp "%Y%m%dT%H%M%S" UTC)
      set(key "${nvcc}|${stamp}")
      if(DEFINED CACHE{_ADAEXPLORE_NVCC_ARCHS} AND "${_ADAEXPLORE_NVCC_ARCHS}" MATCHES "^([^|]*)\\|([^|]*)\\|(.*)$"
         AND CMAKE_MATCH_1 STREQUAL key)
        set(about "${CMAKE_MATCH_2}")
        set(codes "${CMAKE_MATCH_3}")
      else()
        execute_process(COMMAND "${nvcc}" --list-gpu-code RESULT_VARIABLE rc OUTPUT_VARIABLE listed
                        ERROR_QUIET TIMEOUT 60)
        execute_process(COMMAND "${nvcc}" --version RESULT_VARIABLE version_rc OUTPUT_VARIABLE version
                        ERROR_QUIET TIMEOUT 60)
        if(rc EQUAL 0)
          string(REGEX MATCHALL "sm_[0-9]+[a-z]?" codes "${listed}")
        endif()
        set(about "${nvcc}")
        if(version MATCHES "release ([0-9.]+)")
          set(about "${nvcc} (CUDA ${CMAKE_MATCH_1})")
        endif()
        if(codes)
          set(_ADAEXPLORE_NVCC_ARCHS "${key}|${about}|${codes}" CACHE INTERNAL
              "AdaExplore: nvcc --list-gpu-code of the nvcc named first")
        endif()
      endif()
    endif()
    set_property(GLOBAL PROPERTY _ADAEXPLORE_NVCC_ARCHS "${codes}")
    set_property(GLOBAL PROPERTY _ADAEXPLORE_NVCC_ABOUT "${about}")
  endif()
  get_property(codes GLOBAL PROPERTY _ADAEXPLORE_NVCC_ARCHS)
  get_property(about GLOBAL PROPERTY _ADAEXPLORE_NVCC_ABOUT)
  set(${out} "${codes}" PARENT_SCOPE)
  set(${compiler_out} "${about}" PARENT_SCOPE)
endfunction()

# Fails when an architecture of `archs` (sm_XX, sm_XXa) is none the CUDA compiler can target.
function(_adaexplore_check_archs name archs source)
  if(archs STREQUAL "")
    return()
  endif()
  _adaexplore_supported_archs(codes nvcc)
  if(codes STREQUAL "")
    return()  # no nvcc to ask: the tuner says so when it needs one
  endif()
  foreach(arch IN LISTS archs)
    string(REGEX REPLACE "[a-z]$" "" base "${arch}")  # sm_90a, sm_100f: the family's sm_90, sm_100
    if(NOT arch IN_LIST codes AND NOT base IN_LIST codes)
      string(REPLACE ";" ", " supported "${codes}")
      _adaexplore_fail("${name}" "${source} names ${arch}, an architecture ${nvcc} cannot target; it "
                       "targets ${supported} (nvcc --list-gpu-code). Use one of these (ARCH sm_XX, or "
                       "CMAKE_CUDA_ARCHITECTURES / the TARGET's CUDA_ARCHITECTURES), or a CUDA toolkit that still "
                       "supports ${arch} (CMAKE_CUDA_COMPILER, or its nvcc first in PATH).")
    endif()
  endforeach()
endfunction()

function(_adaexplore_spec_json out name prefix template benchmark)
  set(p ${prefix})
  _adaexplore_params_json(params names "${name}" ${${p}_PARAMS})
  set(macro_kernel FALSE)
  if(DEFINED ${p}_KERNEL_SOURCE)
    set(macro_kernel TRUE)
  endif()
  _adaexplore_check_keyword_like_params("${name}" "${template}" "${names}" ${macro_kernel})
  _adaexplore_defaults_json(defaults "${name}" "${names}" ${${p}_DEFAULTS})
  set(j "{}")
  _adaexplore_json_string(v "Written by adaexplore_tune_kernel() from ${CMAKE_CURRENT_LIST_FILE}; do not edit.")
  string(JSON j SET "${j}" "$comment" "${v}")
  set(template_key template)
  if(macro_kernel)
    set(template_key kernel_source)
  endif()
  foreach(key_value "name|${name}" "backend|${${p}_BACKEND}" "${template_key}|${template}" "benchmark|${benchmark}"
                    "namespace|${${p}_NAMESPACE}" "strategy|${${p}_STRATEGY}" "kernel|${${p}_KERNEL_NAME}")
    string(REGEX MATCH "^([^|]*)\\|(.*)$" _ "${key_value}")
    if(NOT CMAKE_MATCH_2 STREQUAL "")
      _adaexplore_json_string(v "${CMAKE_MATCH_2}")
      string(JSON j SET "${j}" "${CMAKE_MATCH_1}" "${v}")
    endif()
  endforeach()
  string(JSON j SET "${j}" parameters "${params}")
  _adaexplore_json_strings(v ${${p}_CONSTRAINTS})
  string(JSON j SET "${j}" constraints "${v}")
  if(NOT defaults STREQUAL "{}")
    string(JSON j SET "${j}" defaults "${defaults}")
  endif()
  if(DEFINED ${p}_BUDGET OR DEFINED ${p}_TIME_LIMIT)
    string(JSON j SET "${j}" budget "{}")
    _adaexplore_json_set_if(j ${p}_BUDGET budget evaluations)
    _adaexplore_json_set_if(j ${p}_TIME_LIMIT budget seconds)
  endif()
  _adaexplore_json_set_if(j ${p}_SEED seed)
  _adaexplore_json_set_if(j ${p}_JOBS jobs)
  _adaexplore_json_set_if(j ${p}_IN_FLIGHT in_flight)
  _adaexplore_spec_compiler_and_run(j ${p})
  _adaexplore_spec_launch(j ${p} "${name}" "${names}")
  if(DEFINED ${p}_SIZES)
    _adaexplore_sizes_json(sizes "${name}" "${names}" ${p}_SIZES)
    _adaexplore_json_set_if(sizes ${p}_SIZE_BUDGET budget)
    string(JSON j SET "${j}" sizes "${sizes}")
  endif()
  _adaexplore_spec_kernel_parts(j ${p})
  string(JSON j SET "${j}" work_dir "\"work\"")
  set(${out} "${j}\n" PARENT_SCOPE)
endfunction()

# COMPILER_LAUNCHER, else ADAEXPLORE_COMPILER_LAUNCHER, else CMAKE_<LANG>_COMPILER_LAUNCHER of the
# backend's language (CUDA or CXX); "" for none.
function(_adaexplore_launcher out prefix)
  set(p ${prefix})
  if(${p}_GPU)
    set(launcher "${CMAKE_CUDA_COMPILER_LAUNCHER}")
  else()
    set(launcher "${CMAKE_CXX_COMPILER_LAUNCHER}")
  endif()
  if(NOT "${ADAEXPLORE_COMPILER_LAUNCHER}" STREQUAL "")
    set(launcher "${ADAEXPLORE_COMPILER_LAUNCHER}")
  endif()
  if(DEFINED ${p}_COMPILER_LAUNCHER)
    set(launcher "${${p}_COMPILER_LAUNCHER}")
  endif()
  set(${out} "${launcher}" PARENT_SCOPE)
endfunction()

# The spec's "compiler" and "run" objects, added to the JSON in `json_var`.
function(_adaexplore_spec_compiler_and_run json_var prefix)
  set(p ${prefix})
  set(j "${${json_var}}")
  string(JSON j SET "${j}" compiler "{}")
  _adaexplore_compiler(compiler "${${p}_GPU}")
  if(compiler)
    _adaexplore_json_string(v "${compiler}")
    string(JSON j SET "${j}" compiler path "${v}")
  endif()
  if(${p}_GPU)
    _adaexplore_arch(arch "${${p}_ARCH}" "${${p}_TARGET}")
    if(arch)
      _adaexplore_json_string(v "${arch}")
      string(JSON j SET "${j}" compiler arch "${v}")
    endif()
  endif()
  if(DEFINED ${p}_COMPILE_OPTIONS)
    _adaexplore_json_strings(v ${${p}_COMPILE_OPTIONS})
    string(JSON j SET "${j}" compiler flags "${v}")
  endif()
  if(DEFINED ${p}_INCLUDE_DIRECTORIES)
    set(dirs "")
    foreach(dir IN LISTS ${p}_INCLUDE_DIRECTORIES)
      _adaexplore_abs(dir "${dir}")
      list(APPEND dirs "${dir}")
    endforeach()
    _adaexplore_json_strings(v ${dirs})
    string(JSON j SET "${j}" compiler include_dirs "${v}")
  endif()
  _adaexplore_json_set_if(j ${p}_COMPILE_TIMEOUT compiler timeout_s)
  if(DEFINED ${p}_COMPILE_UNIT)
    string(TOLOWER "${${p}_COMPILE_UNIT}" unit)
    string(JSON j SET "${j}" compiler unit "\"${unit}\"")
  endif()
  _adaexplore_launcher(launcher ${p})
  if(NOT "${launcher}" STREQUAL "")
    _adaexplore_json_strings(v ${launcher})
    string(JSON j SET "${j}" compiler launcher "${v}")
  endif()
  string(JSON j SET "${j}" run "{}")
  _adaexplore_json_set_if(j ${p}_RUN_TIMEOUT run timeout_s)
  _adaexplore_json_set_if(j ${p}_RUN_TIMEOUT_FACTOR run timeout_factor)
  _adaexplore_json_set_if(j ${p}_RUN_TIMEOUT_FLOOR run timeout_floor_s)
  if(DEFINED ${p}_RUNNER)
    if(${p}_RUNNER STREQUAL "ON")
      string(JSON j SET "${j}" run runner true)
    else()
      string(JSON j SET "${j}" run runner false)
    endif()
  endif()
  if(DEFINED ${p}_RUN_ARGS)
    _adaexplore_json_strings(v ${${p}_RUN_ARGS})
    string(JSON j SET "${j}" run args "${v}")
  endif()
  set(${json_var} "${j}" PARENT_SCOPE)
endfunction()

# The spec's "launch" object (THREADS_PER_BLOCK, DYNAMIC_SHARED_BYTES as expression strings), added
# to the JSON in `json_var` when either keyword is given.
function(_adaexplore_spec_launch json_var prefix name names)
  set(p ${prefix})
  set(j "${${json_var}}")
  foreach(pair "THREADS_PER_BLOCK|threads_per_block" "DYNAMIC_SHARED_BYTES|dynamic_shared_bytes")
    string(REGEX MATCH "^([^|]*)\\|(.*)$" _ "${pair}")
    set(keyword "${CMAKE_MATCH_1}")
    set(key "${CMAKE_MATCH_2}")
    if(DEFINED ${p}_${keyword})
      _adaexplore_check_launch_expression("${name}" ${keyword} "${${p}_${keyword}}" "${names}")
      string(JSON type ERROR_VARIABLE no_launch TYPE "${j}" launch)
      if(no_launch)
        string(JSON j SET "${j}" launch "{}")
      endif()
      _adaexplore_json_string(v "${${p}_${keyword}}")
      string(JSON j SET "${j}" launch ${key} "${v}")
    endif()
  endforeach()
  foreach(keyword BLOCK_DIM GRID_DIM)  # the tuner checks these (kernel_spec.hpp); lists of strings here
    if(DEFINED ${p}_${keyword})
      string(JSON type ERROR_VARIABLE no_launch TYPE "${j}" launch)
      if(no_launch)
        string(JSON j SET "${j}" launch "{}")
      endif()
      string(REGEX REPLACE "_DIM$" "" key "${keyword}")
      string(TOLOWER "${key}" key)
      _adaexplore_json_strings(v ${${p}_${keyword}})
      string(JSON j SET "${j}" launch ${key} "${v}")
    endif()
  endforeach()
  set(${json_var} "${j}" PARENT_SCOPE)
endfunction()

# The spec's "arguments", "reference", "tolerance" and "macro_prefix" (tuner/src/model/kernel_spec.hpp):
# passed as written; the tuner parses and checks them, and its errors name the keyword's part.
function(_adaexplore_spec_kernel_parts json_var prefix)
  set(p ${prefix})
  set(j "${${json_var}}")
  if(DEFINED ${p}_ARGS)
    _adaexplore_json_strings(v ${${p}_ARGS})
    string(JSON j SET "${j}" arguments "${v}")
  endif()
  if(DEFINED ${p}_REFERENCE)
    if("${${p}_REFERENCE}" STREQUAL "DEFAULTS")
      string(JSON j SET "${j}" reference "\"defaults\"")
    else()
      _adaexplore_defaults_json(config "${name}" "${names}" ${${p}_REFERENCE})
      string(JSON j SET "${j}" reference "{\"config\": ${config}}")
    endif()
  endif()
  if(DEFINED ${p}_TOLERANCE)
    set(tolerance "{}")
    set(part "")
    foreach(item IN LISTS ${p}_TOLERANCE)
      if(item MATCHES "^(REL|ABS)$" AND part STREQUAL "")
        string(TOLOWER "${item}" part)
      elseif(NOT part STREQUAL "")
        _adaexplore_json_string(v "${item}")
        string(JSON tolerance SET "${tolerance}" ${part} "${v}")
        set(part "")
      else()
        _adaexplore_usage(usage TOLERANCE)
        _adaexplore_fail("${name}" "TOLERANCE '${item}': write ${usage}.")
      endif()
    endforeach()
    if(NOT part STREQUAL "" OR tolerance STREQUAL "{}")
      _adaexplore_usage(usage TOLERANCE)
      _adaexplore_fail("${name}" "TOLERANCE needs REL or ABS, each followed by an expression; write ${usage}.")
    endif()
    string(JSON j SET "${j}" tolerance "${tolerance}")
  endif()
  if(DEFINED ${p}_MACRO_PREFIX)
    _adaexplore_json_string(v "${${p}_MACRO_PREFIX}")
    string(JSON j SET "${j}" macro_prefix "${v}")
  endif()
  set(${json_var} "${j}" PARENT_SCOPE)
endfunction()

# DEFINE_PARAMS: the header's values (its machine line, "// adaexplore: {...}": tuned, pinned or
# the defaults) as compile definitions <PARAM>=<value> on `target`, with `scope`, for a kernel
# source configured by macros that the target compiles as it is.
function(_adaexplore_define_params name target scope header)
  set(line "")
  if(EXISTS "${header}")
    file(STRINGS "${header}" line REGEX "^// adaexplore: " LIMIT_COUNT 1)
  endif()
  if(line STREQUAL "")
    _adaexplore_fail("${name}" "DEFINE_PARAMS reads the values from the header's '// adaexplore:' line, and "
                     "${header} has none (a pinned header written before 2026-12-05): pin it again (build "
                     "adaexplore-pin on a machine that tunes), or remove DEFINE_PARAMS.")
  endif()
  string(REGEX REPLACE "^// adaexplore: " "" json "${line}")
  string(JSON devices ERROR_VARIABLE single GET "${json}" devices)
  if(NOT single)  # one header for several GPUs: one set of -D values cannot serve them
    _adaexplore_fail("${name}" "DEFINE_PARAMS gives TARGET one value per parameter, and ${header} holds "
                     "winners for several GPUs (its values differ per compute capability): use its "
                     "#if __CUDA_ARCH__ lines (MACRO_PREFIX) in the sources instead, or remove DEFINE_PARAMS.")
  endif()
  string(JSON count LENGTH "${json}" config)
  set(definitions "")
  if(count GREATER 0)
    math(EXPR last "${count} - 1")
    foreach(i RANGE ${last})
      string(JSON key MEMBER "${json}" config ${i})
      string(JSON value GET "${json}" config "${key}")
      list(APPEND definitions "${key}=${value}")
    endforeach()
  endif()
  target_compile_definitions("${target}" ${scope} ${definitions})
endfunction()

# Sets the number held in `var` at the JSON path ARGN, when `var` is defined.
macro(_adaexplore_json_set_if json var)
  if(DEFINED ${var})
    string(JSON ${json} SET "${${json}}" ${ARGN} "${${var}}")
  endif()
endmacro()

function(_adaexplore_write_if_changed path content)
  if(EXISTS "${path}")
    file(READ "${path}" old)
    if(old STREQUAL content)
      return()
    endif()
  endif()
  file(WRITE "${path}" "${content}")
endfunction()

# ---------------------------------------------------------------------------------------------
# The tuner: ADAEXPLORE_TUNER_EXECUTABLE, else the installed one, else built from the source tree
# into ${CMAKE_BINARY_DIR}/_adaexplore/tuner. Decided once per configure. `out`: the command line
# that runs it (a list).

function(_adaexplore_tuner_command out name)
  get_property(tuner GLOBAL PROPERTY _ADAEXPLORE_TUNER)
  if(NOT tuner)
    get_property(installed GLOBAL PROPERTY _ADAEXPLORE_INSTALLED_TUNER)
    if(ADAEXPLORE_TUNER_EXECUTABLE)
      set(tuner "${ADAEXPLORE_TUNER_EXECUTABLE}")
      if(NOT EXISTS "${tuner}" OR IS_DIRECTORY "${tuner}")
        _adaexplore_fail("${name}" "ADAEXPLORE_TUNER_EXECUTABLE '${tuner}' is not a file; point it at an "
                         "adaexplore-tuner executable, or clear it (-DADAEXPLORE_TUNER_EXECUTABLE=) to use "
                         "the installed or source-built tuner.")
      endif()
    elseif(installed)
      set(tuner "${installed}")
    else()
      _adaexplore_build_tuner(tuner "${name}")
    endif()
    message(STATUS "AdaExplore: tuner ${tuner}")
    set_property(GLOBAL PROPERTY _ADAEXPLORE_TUNER "${tuner}")
  endif()
  # The module says where the harness is (the tuner's built-in default may be a source tree that
  # is gone, or another version's).
  get_property(harness GLOBAL PROPERTY _ADAEXPLORE_HARNESS_INCLUDE_DIR)
  set(${out} "${CMAKE_COMMAND}" -E env "ADAEXPLORE_HARNESS_DIR=${harness}" "${tuner}" PARENT_SCOPE)
endfunction()

# The last `max` characters of `text`, indented.
function(_adaexplore_tail out text max)
  string(LENGTH "${text}" length)
  if(length GREATER max)
    math(EXPR start "${length} - ${max}")
    string(SUBSTRING "${text}" ${start} -1 text)
    set(text "...${text}")
  endif()
  string(STRIP "${text}" text)
  string(REPLACE "\n" "\n  " text "  ${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# ---------------------------------------------------------------------------------------------
# Where the header's values come from: `adaexplore-tuner configure` decides (tune / the tuning
# database's stored winner / the pinned header / the defaults; ADAEXPLORE_MODE, the GPU,
# cross-compiling, the pinned header's check against the call, failures: tuner/src/configure/
# origin.hpp) and writes the header; the module writes its request and prints its answer's
# messages. Without a tuner at hand in PINNED mode (none is built for it), the module reads the
# pinned header's machine line itself (_adaexplore_use_pinned_without_tuner).

# The kernel's pin location, absolute (the file need not exist): PINNED_HEADER, else
# ${ADAEXPLORE_PINNED_DIR}/<name>.hpp, else pinned/<name>.hpp beside the calling CMakeLists.txt.
function(_adaexplore_pinned_file out name pinned_header)
  if(NOT pinned_header STREQUAL "")
    set(file "${pinned_header}")
  elseif(NOT "${ADAEXPLORE_PINNED_DIR}" STREQUAL "")
    set(file "${ADAEXPLORE_PINNED_DIR}/${name}.hpp")
  else()
    set(file "pinned/${name}.hpp")
  endif()
  _adaexplore_abs(file "${file}")
  set(${out} "${file}" PARENT_SCOPE)
endfunction()

# ADAEXPLORE_DATABASE, absolute (relative: to the top build folder); empty means the default.
function(_adaexplore_database out)
  set(database "${ADAEXPLORE_DATABASE}")
  if(database STREQUAL "")
    set(database "${CMAKE_BINARY_DIR}/_adaexplore/database")
  endif()
  cmake_path(ABSOLUTE_PATH database BASE_DIRECTORY "${CMAKE_BINARY_DIR}" NORMALIZE)
  set(${out} "${database}" PARENT_SCOPE)
endfunction()

# TRUE when `list` (a cache variable's value: ALL or a ;-list of kernel names) is ALL or names the kernel.
function(_adaexplore_listed out name list)
  if("ALL" IN_LIST list OR name IN_LIST list)
    set(${out} TRUE PARENT_SCOPE)
  else()
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()

# _adaexplore_configure_kernel(<origin_out> NAME <name> BACKEND <backend> KERNEL_DIR <dir>
#                              HEADER <file> PINNED <file> [ARCHS <sm_XX>...])
# Produces the kernel's header; `origin_out`: TUNED, PINNED or DEFAULTS. One `configure` call; its
# STATUS lines (and a tuning's progress lines) show as they come, its other messages after it,
# a FATAL one as this call's error.
function(_adaexplore_configure_kernel origin_out)
  cmake_parse_arguments(PARSE_ARGV 1 k "" "NAME;BACKEND;KERNEL_DIR;HEADER;PINNED" "ARCHS")
  _adaexplore_mode(mode)
  _adaexplore_tuner_at_hand(at_hand)
  if(mode STREQUAL "PINNED" AND NOT at_hand)
    _adaexplore_use_pinned_without_tuner("${k_NAME}" "${k_KERNEL_DIR}" "${k_HEADER}" "${k_PINNED}")
    set(${origin_out} PINNED PARENT_SCOPE)
    return()
  endif()
  _adaexplore_database(database)
  _adaexplore_listed(retune "${k_NAME}" "${ADAEXPLORE_RETUNE}")
  _adaexplore_listed(profile "${k_NAME}" "${ADAEXPLORE_PROFILE}")
  set(index "${ADAEXPLORE_DEVICE}")
  if(index STREQUAL "")
    set(index 0)
  endif()
  get_filename_component(generated "${k_HEADER}" DIRECTORY)
  set(request "{}")
  foreach(pair "kernel;${k_NAME}" "backend;${k_BACKEND}" "spec;${k_KERNEL_DIR}/spec.json" "kernel_dir;${k_KERNEL_DIR}"
               "header;${k_HEADER}" "generated;${generated}" "database;${database}"
               "database_setting;${ADAEXPLORE_DATABASE}" "mode;${mode}" "mode_setting;${ADAEXPLORE_MODE}"
               "pinned;${k_PINNED}" "pinned_dir_setting;${ADAEXPLORE_PINNED_DIR}" "system_name;${CMAKE_SYSTEM_NAME}"
               "system_processor;${CMAKE_SYSTEM_PROCESSOR}" "host_processor;${CMAKE_HOST_SYSTEM_PROCESSOR}")
    list(GET pair 0 key)
    list(SUBLIST pair 1 -1 value)
    _adaexplore_json_string(value "${value}")
    string(JSON request SET "${request}" ${key} "${value}")
  endforeach()
  set(cross_compiling FALSE)
  if(CMAKE_CROSSCOMPILING)
    set(cross_compiling TRUE)
  endif()
  foreach(flag retune profile cross_compiling)  # JSON true/false
    string(TOLOWER "${${flag}}" value)
    string(JSON request SET "${request}" ${flag} "${value}")
  endforeach()
  get_property(said GLOBAL PROPERTY _ADAEXPLORE_SAID)
  _adaexplore_json_strings(said ${said})
  _adaexplore_json_strings(archs ${k_ARCHS})
  get_property(device GLOBAL PROPERTY _ADAEXPLORE_DEVICE_${index})  # asked by an earlier kernel
  string(JSON request SET "${request}" said "${said}")
  string(JSON request SET "${request}" archs "${archs}")
  string(JSON request SET "${request}" device_index "${index}")
  if(device)
    string(JSON request SET "${request}" device "${device}")
  endif()
  set(request_file "${k_KERNEL_DIR}/configure-request.json")
  set(answer_file "${k_KERNEL_DIR}/configure-answer.json")
  file(WRITE "${request_file}" "${request}\n")
  file(REMOVE "${answer_file}")
  _adaexplore_tuner_command(tuner "${k_NAME}")
  execute_process(COMMAND ${tuner} configure --request "${request_file}" --answer "${answer_file}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE output ERROR_VARIABLE errors ECHO_OUTPUT_VARIABLE)
  if(NOT rc EQUAL 0 OR NOT EXISTS "${answer_file}")
    _adaexplore_tail(tail "${errors}" 3000)
    string(JOIN " " shown ${tuner} configure --request "${request_file}" --answer "${answer_file}")
    # A tuner without the configure command refuses it as CLI11 does an unknown subcommand.
    if(errors MATCHES "A subcommand is required|argument(s were| was) not expected: configure")
      string(CONCAT why "this tuner has no configure command: it is older than this AdaExplore.cmake. Use the "
                        "tuner of the same version (ADAEXPLORE_TUNER_EXECUTABLE; unset, the module builds its own).")
    else()
      string(CONCAT why "it stopped without writing its answer ${answer_file}. Fix what its messages below name, "
                        "then configure again; run the command by hand to see all of its output.")
    endif()
    _adaexplore_fail("${k_NAME}" "`adaexplore-tuner configure` failed (exit code ${rc}): ${why}\nCommand: ${shown}\n"
                     "Its messages:\n${tail}")
  endif()
  file(READ "${answer_file}" answer)
  string(JSON device ERROR_VARIABLE none GET "${answer}" device)
  if(NOT none)
    set_property(GLOBAL PROPERTY _ADAEXPLORE_DEVICE_${index} "${device}")
  endif()
  string(JSON count LENGTH "${answer}" messages)
  set(i 0)
  while(i LESS count)
    string(JSON level GET "${answer}" messages ${i} level)
    string(JSON text GET "${answer}" messages ${i} text)
    string(JSON shown GET "${answer}" messages ${i} shown)
    string(JSON once ERROR_VARIABLE none GET "${answer}" messages ${i} once)
    if(NOT none)
      set_property(GLOBAL APPEND PROPERTY _ADAEXPLORE_SAID "${once}")
    endif()
    if(level STREQUAL "FATAL")
      _adaexplore_fail("${k_NAME}" "${text}")
    elseif(NOT shown)
      message(${level} "${text}")
    endif()
    math(EXPR i "${i} + 1")
  endwhile()
  string(JSON retuned GET "${answer}" retuned)
  if(retuned)
    set_property(GLOBAL APPEND PROPERTY _ADAEXPLORE_RETUNED "${k_NAME}")
  endif()
  string(JSON origin GET "${answer}" origin)
  set(${origin_out} "${origin}" PARENT_SCOPE)
endfunction()

# TRUE when running the tuner needs no build of it first.
function(_adaexplore_tuner_at_hand out)
  get_property(tuner GLOBAL PROPERTY _ADAEXPLORE_TUNER)
  get_property(installed GLOBAL PROPERTY _ADAEXPLORE_INSTALLED_TUNER)
  set(built "${CMAKE_BINARY_DIR}/_adaexplore/tuner/bin/adaexplore-tuner${CMAKE_EXECUTABLE_SUFFIX}")
  if(tuner OR ADAEXPLORE_TUNER_EXECUTABLE OR installed OR EXISTS "${built}")
    set(${out} TRUE PARENT_SCOPE)
  else()
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()

# PINNED mode without a tuner (none is built for it): the pinned header's machine line checked
# against the spec (namespace, kernel, parameters, sizes, values), then the header copied. The
# tuner's `configure` checks the same and more (the constraints, launch limits and compiles, the
# GPU it was tuned on).
function(_adaexplore_use_pinned_without_tuner name kernel_dir header pinned)
  set(where "the pin location: PINNED_HEADER, else ADAEXPLORE_PINNED_DIR/${name}.hpp, else pinned/${name}.hpp beside the calling CMakeLists.txt")
  if(NOT EXISTS "${pinned}")
    _adaexplore_fail("${name}" "ADAEXPLORE_MODE is PINNED but there is no pinned header ${pinned} (the pin "
                     "location: PINNED_HEADER, else ADAEXPLORE_PINNED_DIR '${ADAEXPLORE_PINNED_DIR}'/${name}.hpp, "
                     "else pinned/${name}.hpp beside the calling CMakeLists.txt). Tune ${name} on a machine that "
                     "can, pin it there with `cmake --build <build> --target adaexplore-pin` and commit "
                     "${name}.hpp, or configure with -DADAEXPLORE_MODE=AUTO.")
  endif()
  _adaexplore_pinned_problem(problem "${name}" "${kernel_dir}/spec.json" "${pinned}")
  if(NOT problem STREQUAL "")
    _adaexplore_fail("${name}" "ADAEXPLORE_MODE is PINNED but ${problem}. Pin a tuning of this call (tune it where "
                     "it tunes, then `cmake --build <build> --target adaexplore-pin`), or fix or remove ${pinned} "
                     "(${where}).")
  endif()
  configure_file("${pinned}" "${header}" COPYONLY)
  message(STATUS "AdaExplore: ${name}: NOT TUNED here, using the pinned header ${pinned}")
  message(STATUS "AdaExplore: ${name}: the pinned header's kernel, parameters and values checked against the call; "
                 "its constraints, launch limits and compiles are not (no tuner in this build tree, and PINNED mode "
                 "builds none)")
endfunction()

# What in the pinned header's machine line does not fit the spec ("" when it fits): its namespace,
# kernel, sizes and each parameter's value (tuner/src/configure/pinned_header.cpp checks the same,
# with the sizes and values named, where a tuner is at hand).
function(_adaexplore_pinned_problem out name spec_file pinned)
  set(header "the pinned header ${pinned}")
  file(STRINGS "${pinned}" line REGEX "^// adaexplore: " LIMIT_COUNT 1)
  set(found "${line}")
  string(REGEX REPLACE "^// adaexplore: " "" line "${line}")
  string(JSON line_type ERROR_VARIABLE not_json TYPE "${line}")
  string(JSON config_type ERROR_VARIABLE no_config TYPE "${line}" config)
  string(JSON space ERROR_VARIABLE no_line GET "${line}" namespace)
  string(JSON kernel ERROR_VARIABLE no_kernel GET "${line}" kernel)
  file(READ "${spec_file}" spec)
  string(JSON expected ERROR_VARIABLE none GET "${spec}" namespace)
  if(none)
    set(expected "adaexplore::${name}")
  endif()
  string(JSON sizes ERROR_VARIABLE no_sizes GET "${spec}" sizes)
  string(JSON pinned_sizes ERROR_VARIABLE no_pinned_sizes GET "${line}" sizes)
  set(problem "")
  string(CONCAT fixes "regenerate it with `adaexplore-tuner header --database <its database> --spec "
                      "<build>/_adaexplore/kernels/${name}/spec.json --out ${pinned}`, pin a new tuning (`cmake --build "
                      "<build> --target adaexplore-pin`), or add the line from its own values with "
                      "tools/add-machine-line.py ${pinned}")
  if(found STREQUAL "")
    set(problem "${header} has no machine line ('// adaexplore: {...}', which every header written since 2026-12-06 "
                "carries and which is all that is read of a pinned header): ${fixes}")
  elseif(not_json OR NOT line_type STREQUAL "OBJECT" OR no_config OR NOT config_type STREQUAL "OBJECT")
    set(problem "${header}'s machine line ('// adaexplore: {...}') is malformed (not a JSON object whose \"config\" "
                "is an object {name: value}): it is not a line AdaExplore wrote. To fix it, ${fixes}")
  elseif(no_line)
    set(problem "${header}'s machine line names no namespace: it is not a header AdaExplore wrote")
  elseif(NOT space STREQUAL expected)
    set(problem "${header} is of namespace ${space}, not ${expected}: it is another kernel's header")
  elseif(NOT no_kernel AND NOT kernel STREQUAL name)
    set(problem "${header} was written for the kernel ${kernel} (its // Kernel: line), not ${name}")
  elseif(NOT no_sizes STREQUAL no_pinned_sizes)
    set(problem "${header} was tuned for other problem sizes than this call's SIZES: re-pin it after tuning these sizes")
  else()
    string(JSON count LENGTH "${spec}" parameters)
    math(EXPR last "${count} - 1")
    foreach(i RANGE ${last})
      string(JSON param_name GET "${spec}" parameters ${i} name)
      string(JSON value ERROR_VARIABLE missing GET "${line}" config "${param_name}")
      set(values "")
      string(JSON n ERROR_VARIABLE range GET "${spec}" parameters ${i} values)
      if(range)  # RANGE <from> <to> (its step is not checked here)
        string(JSON from GET "${spec}" parameters ${i} range from)
        string(JSON to GET "${spec}" parameters ${i} range to)
        if(value MATCHES "^-?[0-9]+$" AND NOT value LESS from AND NOT value GREATER to)
          set(values "${value}")
        endif()
      else()
        string(JSON n LENGTH "${spec}" parameters ${i} values)
        math(EXPR n "${n} - 1")
        foreach(j RANGE ${n})
          string(JSON v GET "${spec}" parameters ${i} values ${j})
          list(APPEND values "${v}")
        endforeach()
      endif()
      if(missing)
        set(problem "${header} has no value for the parameter ${param_name}: it was pinned from another parameter set")
      elseif(NOT value IN_LIST values)
        set(problem "${header} sets ${param_name} = ${value}, which is not among the values PARAMS gives ${param_name}")
      endif()
      if(problem)
        break()
      endif()
    endforeach()
  endif()
  string(JOIN "" problem ${problem})
  set(${out} "${problem}" PARENT_SCOPE)
endfunction()

# Remembers the kernel for the end of the configure (adaexplore-pin, ADAEXPLORE_RETUNE), which the
# first kernel schedules.
function(_adaexplore_record_kernel name origin header pinned)
  set_property(GLOBAL PROPERTY _ADAEXPLORE_KERNEL_${name}_ORIGIN "${origin}")
  set_property(GLOBAL PROPERTY _ADAEXPLORE_KERNEL_${name}_HEADER "${header}")
  set_property(GLOBAL PROPERTY _ADAEXPLORE_KERNEL_${name}_PIN "${pinned}")
  get_property(scheduled GLOBAL PROPERTY _ADAEXPLORE_END_SCHEDULED)
  if(scheduled)
    return()
  endif()
  set_property(GLOBAL PROPERTY _ADAEXPLORE_END_SCHEDULED TRUE)
  cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _adaexplore_end_of_configure)
  if(NOT TARGET adaexplore-pin)
    add_custom_target(adaexplore-pin COMMAND "${CMAKE_COMMAND}" -P "${CMAKE_BINARY_DIR}/_adaexplore/pin.cmake"
                      COMMENT "AdaExplore: copying tuned headers to their pin locations" USES_TERMINAL VERBATIM)
  endif()
endfunction()

# Runs once, at the end of the top-level CMakeLists.txt.
function(_adaexplore_end_of_configure)
  _adaexplore_write_pin_script()
  _adaexplore_finish_retune()
endfunction()

# ${CMAKE_BINARY_DIR}/_adaexplore/pin.cmake, which the adaexplore-pin target runs: one
# adaexplore_pin() line per kernel (name, origin, header, pin location; AdaExplorePin.cmake).
function(_adaexplore_write_pin_script)
  set(script "# Written by AdaExplore.cmake at configure time; the adaexplore-pin target runs it (cmake -P).\n")
  get_property(module_dir GLOBAL PROPERTY _ADAEXPLORE_MODULE_DIR)
  string(APPEND script "include([==[${module_dir}/AdaExplorePin.cmake]==])\n")
  get_property(kernels GLOBAL PROPERTY _ADAEXPLORE_KERNELS)
  foreach(name IN LISTS kernels)
    get_property(origin GLOBAL PROPERTY _ADAEXPLORE_KERNEL_${name}_ORIGIN)
    get_property(header GLOBAL PROPERTY _ADAEXPLORE_KERNEL_${name}_HEADER)
    get_property(pin GLOBAL PROPERTY _ADAEXPLORE_KERNEL_${name}_PIN)
    string(APPEND script "adaexplore_pin(${name} ${origin} [==[${header}]==] [==[${pin}]==])\n")
  endforeach()
  string(APPEND script "adaexplore_pin_end()\n")
  _adaexplore_write_if_changed("${CMAKE_BINARY_DIR}/_adaexplore/pin.cmake" "${script}")
endfunction()

# ADAEXPLORE_RETUNE is one-shot per kernel: after a configure that retuned some, only the names
# not retuned yet stay in it (cleared when none is left).
function(_adaexplore_finish_retune)
  set(requested "${ADAEXPLORE_RETUNE}")
  if(requested STREQUAL "")
    return()
  endif()
  get_property(kernels GLOBAL PROPERTY _ADAEXPLORE_KERNELS)
  get_property(retuned GLOBAL PROPERTY _ADAEXPLORE_RETUNED)
  set(unknown "")
  set(wanted "")
  foreach(item IN LISTS requested)
    if(item STREQUAL "ALL")
      list(APPEND wanted ${kernels})
    elseif(item IN_LIST kernels)
      list(APPEND wanted "${item}")
    else()
      list(APPEND unknown "${item}")
    endif()
  endforeach()
  set(unknown_names ${unknown})
  if(unknown)
    string(REPLACE ";" ", " unknown "${unknown}")
    string(REPLACE ";" ", " declared "${kernels}")
    message(WARNING "AdaExplore: ADAEXPLORE_RETUNE names ${unknown}, which no adaexplore_tune_kernel() call of "
                    "this configure declares (declared: ${declared}); check the spelling, or use ALL.")
  endif()
  list(REMOVE_DUPLICATES wanted)
  if(retuned)
    list(REMOVE_ITEM wanted ${retuned})
  endif()
  set(not_retuned "")
  if(wanted)
    string(REPLACE ";" ", " not_retuned "${wanted}")
    set(not_retuned " (not tuned in this configure, so not retuned: ${not_retuned})")
  endif()
  if(retuned)
    string(REPLACE ";" ", " retuned "${retuned}")
    # Kept: the names not retuned yet (kernels not tuned in this configure, names none declares).
    set(keep ${wanted} ${unknown_names})
    get_property(doc CACHE ADAEXPLORE_RETUNE PROPERTY HELPSTRING)
    set(ADAEXPLORE_RETUNE "${keep}" CACHE STRING "${doc}" FORCE)
    if(keep)
      message(STATUS "AdaExplore: ADAEXPLORE_RETUNE '${requested}' retuned ${retuned}${not_retuned}; "
                     "ADAEXPLORE_RETUNE is now '${keep}', the names not retuned yet, for the next configure "
                     "that tunes them; the retuned kernels answer from the tuning database again.")
    else()
      message(STATUS "AdaExplore: ADAEXPLORE_RETUNE '${requested}' retuned ${retuned}${not_retuned}; cleared "
                     "ADAEXPLORE_RETUNE, so the next configure answers from the tuning database again (set it "
                     "again to retune again).")
    endif()
  else()
    message(STATUS "AdaExplore: ADAEXPLORE_RETUNE '${requested}': no kernel it names was tuned in this configure "
                   "(no GPU, cross-compiling, or ADAEXPLORE_MODE ${ADAEXPLORE_MODE}), so nothing was retuned; it "
                   "stays set for the next configure that tunes.")
  endif()
endfunction()

function(_adaexplore_add_include_dir target include_dir)
  get_target_property(aliased "${target}" ALIASED_TARGET)
  if(aliased)
    set(target "${aliased}")
  endif()
  get_target_property(type "${target}" TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    set(scope INTERFACE)
  elseif(type STREQUAL "EXECUTABLE")
    set(scope PRIVATE)
  else()
    set(scope PUBLIC)
  endif()
  target_include_directories("${target}" ${scope} "$<BUILD_INTERFACE:${include_dir}>")
endfunction()
