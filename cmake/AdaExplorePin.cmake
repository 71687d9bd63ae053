# AdaExplorePin.cmake: the adaexplore-pin target's functions (beside AdaExplore.cmake, installed
# with it). The module writes ${CMAKE_BINARY_DIR}/_adaexplore/pin.cmake at configure time, which
# includes this file, calls adaexplore_pin() once per kernel, then adaexplore_pin_end() (cmake -P).
set(pinned_count 0)
set(skipped "")
function(adaexplore_pin name origin header pin)
  if(NOT origin STREQUAL "TUNED")
    message(STATUS "AdaExplore: ${name}: not pinned: its header in this build tree holds ${origin} values, "
                   "not a tuning (pin location ${pin})")
    set(skipped ${skipped} "${name}: ${origin}" PARENT_SCOPE)
    return()
  endif()
  if(NOT EXISTS "${header}")
    message(FATAL_ERROR "AdaExplore: ${name}: its header ${header} is missing; reconfigure this build tree, "
                        "then build adaexplore-pin again.")
  endif()
  set(state "copied")
  if(EXISTS "${pin}")
    file(SHA256 "${header}" new)
    file(SHA256 "${pin}" old)
    if(new STREQUAL old)
      set(state "unchanged")
    endif()
  endif()
  if(state STREQUAL "copied")
    configure_file("${header}" "${pin}" COPYONLY)
  endif()
  message(STATUS "AdaExplore: pinned ${name}: ${header} -> ${pin} (${state})")
  math(EXPR n "${pinned_count} + 1")
  set(pinned_count ${n} PARENT_SCOPE)
endfunction()

# The summary: how many headers were pinned; an error when none was.
function(adaexplore_pin_end)
  string(JOIN ", " skipped ${skipped})
  if(pinned_count EQUAL 0)
    message(FATAL_ERROR "AdaExplore: adaexplore-pin: no kernel was tuned in this build tree (${skipped}), so "
                        "nothing was pinned. Configure it where the kernels tune (a GPU for cuda kernels; "
                        "ADAEXPLORE_MODE AUTO, TUNE or CACHED), then build adaexplore-pin again.")
  endif()
  message(STATUS "AdaExplore: adaexplore-pin: ${pinned_count} header(s) at their pin locations; commit them.")
endfunction()
