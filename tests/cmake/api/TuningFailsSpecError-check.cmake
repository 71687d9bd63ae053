if(stderr MATCHES "-DADAEXPLORE_MODE=DEFAULTS")
  set(failed "the error suggests DEFAULTS mode after a spec error, which DEFAULTS mode fails on too")
endif()
