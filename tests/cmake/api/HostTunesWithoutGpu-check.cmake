if(stderr MATCHES "Warning")
  set(failed "no warning expected for a host kernel")
endif()
