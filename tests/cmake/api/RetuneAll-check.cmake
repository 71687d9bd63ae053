file(STRINGS "${BUILD_DIR}/CMakeCache.txt" entry REGEX "^ADAEXPLORE_RETUNE:")
if(NOT entry STREQUAL "ADAEXPLORE_RETUNE:STRING=")
  set(failed "after the configure that retuned, the cache holds '${entry}', expected ADAEXPLORE_RETUNE:STRING=")
endif()
