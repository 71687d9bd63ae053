file(STRINGS "${BUILD_DIR}/CMakeCache.txt" entry REGEX "^ADAEXPLORE_RETUNE:")
if(NOT entry MATCHES "^ADAEXPLORE_RETUNE:STRING=gemm.;gemmm$")
  set(failed "a configure that retuned nothing cleared ADAEXPLORE_RETUNE: the cache holds '${entry}'")
endif()
