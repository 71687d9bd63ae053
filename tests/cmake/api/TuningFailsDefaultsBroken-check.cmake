if(stderr MATCHES "To build without tuning meanwhile")
  set(failed "the error suggests a mode that fails on the same defaults")
endif()
