# neml2_find_nlohmann_json([PYTHON <exe>])
#
# Defines the header-only imported target neml2::nlohmann_json: nlohmann_json, the JSON library
# libneml2.so reads artifact metadata with (build-time only; no header of it is installed).
#
# Search order (first hit wins):
#   1. an installed CMake package: find_package(nlohmann_json 3.11 CONFIG)
#   2. the `nlohmann-json` Python package (a build requirement of neml2-aoti), located with
#      PYTHON, else with the Python3 interpreter CMake finds; it is not imported, only found
function(neml2_find_nlohmann_json)
  cmake_parse_arguments(ARG "" "PYTHON" "" ${ARGN})
  if(TARGET neml2::nlohmann_json)
    return()
  endif()
  find_package(nlohmann_json 3.11 CONFIG QUIET)
  if(nlohmann_json_FOUND)
    add_library(neml2::nlohmann_json INTERFACE IMPORTED GLOBAL)
    target_link_libraries(neml2::nlohmann_json INTERFACE nlohmann_json::nlohmann_json)
    message(STATUS "neml2: nlohmann_json ${nlohmann_json_VERSION} (CMake package)")
    return()
  endif()
  set(python "${ARG_PYTHON}")
  if(NOT python)
    find_package(Python3 QUIET COMPONENTS Interpreter)
    set(python "${Python3_EXECUTABLE}")
  endif()
  if(python)
    execute_process(
      COMMAND "${python}" -c
              "import importlib.util as u, pathlib as p; s = u.find_spec('nlohmann_json'); print(p.Path(s.origin).parent / 'include' if s and s.origin else '')"
      OUTPUT_VARIABLE include_dir
      RESULT_VARIABLE rc
      OUTPUT_STRIP_TRAILING_WHITESPACE)
  endif()
  if(NOT python OR NOT rc EQUAL 0 OR NOT EXISTS "${include_dir}/nlohmann/json.hpp")
    message(FATAL_ERROR "neml2: nlohmann_json not found: pip install nlohmann-json (a build "
                        "requirement of neml2-aoti), or set nlohmann_json_DIR to its CMake package")
  endif()
  add_library(neml2::nlohmann_json INTERFACE IMPORTED GLOBAL)
  target_include_directories(neml2::nlohmann_json SYSTEM INTERFACE "${include_dir}")
  message(STATUS "neml2: nlohmann_json headers at ${include_dir} (Python package)")
endfunction()
