if(stderr MATCHES "older than this AdaExplore")
  set(failed "the error blames the tuner's version although the tuner has the configure command")
endif()
