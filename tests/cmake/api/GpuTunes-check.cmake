if(stderr MATCHES "Warning")
  set(failed "no warning expected with a GPU")
endif()
