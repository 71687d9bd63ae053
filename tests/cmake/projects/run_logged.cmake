# Runs one command with its stdout and stderr in a file, exiting with its failure:
#   cmake -DLOG=<file> "-DCOMMAND=<command;arg;...>" -P run_logged.cmake
# (test_database_concurrent.cmake starts two at once as one execute_process pipeline).
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE rc OUTPUT_FILE "${LOG}" ERROR_FILE "${LOG}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "exit code ${rc}: ${COMMAND} (output in ${LOG})")
endif()
