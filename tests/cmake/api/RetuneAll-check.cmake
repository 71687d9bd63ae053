# `fourth` was not tuned (DEFAULTS mode), so not retuned: ADAEXPLORE_RETUNE keeps its name alone for
# the next configure that tunes it; the three retuned kernels are out of it.
file(STRINGS "${BUILD_DIR}/CMakeCache.txt" entry REGEX "^ADAEXPLORE_RETUNE:")
if(NOT entry STREQUAL "ADAEXPLORE_RETUNE:STRING=fourth")
  set(failed "after the configure that retuned three of four kernels, the cache holds '${entry}', expected ADAEXPLORE_RETUNE:STRING=fourth")
endif()
