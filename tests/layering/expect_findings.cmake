# Runs check_layering.cmake on a fixture tree and passes only when it fails with every finding
# of EXPECTED (one a line) in its output and no other.
#   cmake -DFIXTURE=<dir with layers.txt, link_graph.txt, src/, expected_findings.txt> -P expect_findings.cmake
cmake_minimum_required(VERSION 3.25)
execute_process(
  COMMAND ${CMAKE_COMMAND} -DLAYERS=${FIXTURE}/layers.txt -DGRAPH=${FIXTURE}/link_graph.txt
          -DSOURCE_DIR=${FIXTURE}/src -P ${CMAKE_CURRENT_LIST_DIR}/check_layering.cmake
  RESULT_VARIABLE result
  OUTPUT_VARIABLE output
  ERROR_VARIABLE output)
message(NOTICE "${output}")
if(result EQUAL 0)
  message(FATAL_ERROR "check_layering.cmake passed a tree with upward dependencies")
endif()
file(STRINGS ${FIXTURE}/expected_findings.txt expected)
string(REPLACE "\n" ";" output_lines "${output}")
set(findings "")
foreach(line IN LISTS output_lines)
  if(line MATCHES "^(upward dependency|core module|module '|[a-z_]+/[a-z_/]+\\.[a-z]+ includes)")
    list(APPEND findings "${line}")
  endif()
endforeach()
foreach(line IN LISTS expected)
  if(NOT line IN_LIST findings)
    message(FATAL_ERROR "missing finding: ${line}")
  endif()
endforeach()
foreach(line IN LISTS findings)
  if(NOT line IN_LIST expected)
    message(FATAL_ERROR "unexpected finding: ${line}")
  endif()
endforeach()
