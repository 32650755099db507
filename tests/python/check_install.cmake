# `cmake --install` puts the package where the interpreter looks: installs the build into a
# staging directory (DESTDIR) under the configured prefix, then checks that the package's folder,
# with the staging directory taken off, is on the interpreter's sys.path, and that the staged
# copy imports and simulates.
#   cmake -DBUILD_DIR=<build> -DPYTHON=<python3> -DSTAGE=<dir> -P check_install.cmake
file(REMOVE_RECURSE ${STAGE})
set(ENV{DESTDIR} ${STAGE})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} RESULT_VARIABLE code OUTPUT_QUIET ERROR_VARIABLE errors)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "cmake --install failed: ${errors}")
endif()
file(GLOB_RECURSE inits ${STAGE}/__init__.py)
list(LENGTH inits count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "expected one installed distsim/__init__.py under ${STAGE}, found: ${inits}")
endif()
get_filename_component(package ${inits} DIRECTORY)
get_filename_component(site ${package} DIRECTORY)
string(LENGTH ${STAGE} stage_length)
string(SUBSTRING ${site} ${stage_length} -1 installed_site)
execute_process(COMMAND ${PYTHON} -c "import sys; sys.exit(0 if sys.argv[1] in sys.path else 1)" ${installed_site}
                RESULT_VARIABLE on_path)
if(NOT on_path EQUAL 0)
  message(FATAL_ERROR "the package is installed in ${installed_site}, which ${PYTHON} does not search")
endif()
set(ENV{PYTHONPATH} ${site})
execute_process(COMMAND ${PYTHON} -c "import distsim; assert distsim.__file__.startswith('${site}'); print(distsim.simulate(distsim.Job(gpus_per_node=1, tp=1, pp=1, dp=1)).iteration_time_s)"
                RESULT_VARIABLE imported OUTPUT_VARIABLE output ERROR_VARIABLE errors)
if(NOT imported EQUAL 0)
  message(FATAL_ERROR "the installed package does not import: ${errors}")
endif()
message(STATUS "installed in ${installed_site}; a simulation from it took ${output}")
