# distsim_module(NAME SOURCES... DEPS ...) declares one static library per src/ module; the
# dependency list is the layering: a module may link only the modules below it.
function(distsim_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion)
  if(DISTSIM_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

function(distsim_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(distsim_${name} STATIC ${ARG_SOURCES})
  add_library(distsim::${name} ALIAS distsim_${name})
  target_include_directories(distsim_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_compile_features(distsim_${name} PUBLIC cxx_std_20)
  # The Python module is a shared object that links these libraries.
  if(DISTSIM_PYTHON)
    set_target_properties(distsim_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  endif()
  target_link_libraries(distsim_${name} PUBLIC ${ARG_DEPS})
  distsim_set_warnings(distsim_${name})
endfunction()
