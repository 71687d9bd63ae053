if(stderr MATCHES "leave the keyword out")
  set(failed "the error suggests leaving out PARAMS, which is required")
endif()
