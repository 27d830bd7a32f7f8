# hwt_add_coverage_target(NAME [COMMAND cmd args...] [INCLUDE glob...]
#                         [EXCLUDE glob...] [FAIL_UNDER_LINES N]
#                         [OPTIONS hwt-cov-option...])
#
# Adds a target NAME that runs the project's tests (COMMAND; ctest by
# default, in the top build directory) under hwt-cov and writes into
# <build dir>/NAME/:
#   coverage.info   lcov (genhtml, Codecov)
#   coverage.xml    Cobertura (GitLab, Jenkins, Azure DevOps)
#   html/           genhtml's report (when genhtml is installed)
# INCLUDE: the source files reported (hwt-cov --include; default: those
# under the project's source and build directories); EXCLUDE: left out.
# FAIL_UNDER_LINES N: the target fails (hwt-cov exits with 4) when fewer
# than N% of the lines ran; OPTIONS: more hwt-cov options (--fail-under-
# branches 50, --diff origin/main, ...). The target fails when the tests
# fail. It depends on every target the project builds by default, so
# `cmake --build . --target NAME` alone builds what the tests need first.

function(hwt_add_coverage_target NAME)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "FAIL_UNDER_LINES"
                        "COMMAND;INCLUDE;EXCLUDE;OPTIONS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "hwt_add_coverage_target(${NAME}): unknown arguments: "
                        "${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_COMMAND)
    set(ARG_COMMAND ${CMAKE_CTEST_COMMAND} --output-on-failure)
  endif()
  if(NOT ARG_INCLUDE)
    set(ARG_INCLUDE "${PROJECT_SOURCE_DIR}/*" "${PROJECT_BINARY_DIR}/*")
  endif()
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/${NAME})
  set(args -o ${dir}/coverage.info -o ${dir}/coverage.xml)
  find_program(HWT_GENHTML genhtml)
  if(HWT_GENHTML)
    list(APPEND args --html ${dir}/html)
  else()
    message(STATUS "hwt_add_coverage_target(${NAME}): no genhtml (Debian: lcov), no HTML")
  endif()
  foreach(glob IN LISTS ARG_INCLUDE)
    list(APPEND args --include ${glob})
  endforeach()
  foreach(glob IN LISTS ARG_EXCLUDE)
    list(APPEND args --exclude ${glob})
  endforeach()
  if(DEFINED ARG_FAIL_UNDER_LINES)
    list(APPEND args --fail-under-lines ${ARG_FAIL_UNDER_LINES})
  endif()
  list(APPEND args ${ARG_OPTIONS})
  add_custom_target(${NAME}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
    COMMAND $<TARGET_FILE:hwt::hwt-cov> ${args} -- ${ARG_COMMAND}
    WORKING_DIRECTORY ${CMAKE_BINARY_DIR}
    BYPRODUCTS ${dir}/coverage.info ${dir}/coverage.xml
    COMMENT "Coverage of the tests under hwt-cov: ${dir}"
    USES_TERMINAL
    VERBATIM)
  # Targets defined after this call count too: look at the end of the
  # project (a deferred call's arguments are read when it runs: NAME now).
  cmake_language(EVAL CODE
    "cmake_language(DEFER DIRECTORY [[${CMAKE_SOURCE_DIR}]] CALL _hwt_coverage_depend [[${NAME}]])")
endfunction()

# NAME depends on every target of the build that is built by default.
function(_hwt_coverage_depend NAME)
  set(dirs ${CMAKE_SOURCE_DIR})
  set(deps)
  while(dirs)
    list(POP_FRONT dirs d)
    get_property(sub DIRECTORY ${d} PROPERTY SUBDIRECTORIES)
    list(APPEND dirs ${sub})
    get_property(targets DIRECTORY ${d} PROPERTY BUILDSYSTEM_TARGETS)
    foreach(t IN LISTS targets)
      get_target_property(type ${t} TYPE)
      get_target_property(excluded ${t} EXCLUDE_FROM_ALL)
      if(NOT t STREQUAL NAME AND NOT excluded AND
         type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$")
        list(APPEND deps ${t})
      endif()
    endforeach()
  endwhile()
  if(deps)
    add_dependencies(${NAME} ${deps})
  endif()
endfunction()
