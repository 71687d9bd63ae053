if(stderr MATCHES "other_kernel: the pinned header")
  set(failed "a warning for other_kernel, whose pinned header was tuned on this configure's GPU")
endif()
