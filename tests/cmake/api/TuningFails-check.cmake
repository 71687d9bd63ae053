# The tuner's messages (stderr) appear once, inside the CMake error, not echoed before it too; its
# progress lines (stdout) as they came.
string(REGEX MATCHALL "fake: no configuration compiled, ran and verified" copies "${stderr}")
list(LENGTH copies n)
if(NOT n EQUAL 1 OR NOT stdout MATCHES "\\[adaexplore\\] fake: evaluation 1/1 ok")
  set(failed "the tuner's failure message appears ${n} times in stderr (expected once), or its progress line is missing from stdout")
endif()
