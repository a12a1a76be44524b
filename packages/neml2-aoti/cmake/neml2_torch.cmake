# neml2_find_torch([PYTHON <exe>] [HINT <site-packages>] [ABI <0|1>])
#
# Locates the torch Python package and defines two imported targets:
#   neml2::torch         c10, torch and torch_cpu with their include folders (never CUDA libraries)
#   neml2::torch_python  libtorch_python (pybind11 modules and embedded-Python code only)
# and sets NEML2_TORCH_ROOT, NEML2_TORCH_LIB_DIR and NEML2_TORCH_CXX11_ABI in the caller's scope.
#
# Search order (first hit wins):
#   1. Torch_DIR (CMake variable or environment; <torch>/share/cmake/Torch)
#   2. TORCH_ROOT (CMake variable or environment; the torch package folder)
#   3. HINT/torch (e.g. the site-packages folder the neml2 package itself lives in)
#   4. `import torch` with PYTHON, else with the Python3 interpreter CMake finds
# The _GLIBCXX_USE_CXX11_ABI value comes from ABI when given (the value libneml2 was built
# with), else from torch._C._GLIBCXX_USE_CXX11_ABI; it is never assumed.
function(neml2_find_torch)
  cmake_parse_arguments(ARG "" "PYTHON;HINT;ABI" "" ${ARGN})
  set(root "")
  if(NOT Torch_DIR AND DEFINED ENV{Torch_DIR})
    set(Torch_DIR "$ENV{Torch_DIR}")
  endif()
  if(NOT TORCH_ROOT AND DEFINED ENV{TORCH_ROOT})
    set(TORCH_ROOT "$ENV{TORCH_ROOT}")
  endif()
  if(Torch_DIR AND EXISTS "${Torch_DIR}/../../../include/torch")
    get_filename_component(root "${Torch_DIR}/../../.." ABSOLUTE)
  elseif(TORCH_ROOT AND EXISTS "${TORCH_ROOT}/include/torch")
    get_filename_component(root "${TORCH_ROOT}" ABSOLUTE)
  elseif(ARG_HINT AND EXISTS "${ARG_HINT}/torch/include/torch")
    get_filename_component(root "${ARG_HINT}/torch" ABSOLUTE)
  endif()

  set(abi "${ARG_ABI}")
  if(root STREQUAL "" OR abi STREQUAL "")
    set(python "${ARG_PYTHON}")
    if(NOT python)
      find_package(Python3 QUIET COMPONENTS Interpreter)
      set(python "${Python3_EXECUTABLE}")
    endif()
    if(NOT python)
      message(FATAL_ERROR "neml2: cannot locate torch: set Torch_DIR or TORCH_ROOT, or make a "
                          "Python interpreter with torch installed visible to CMake")
    endif()
    execute_process(
      COMMAND "${python}" -c
              "import os, torch; print(os.path.dirname(torch.__file__)); print(int(torch._C._GLIBCXX_USE_CXX11_ABI))"
      OUTPUT_VARIABLE out
      ERROR_VARIABLE err
      RESULT_VARIABLE rc
      OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "neml2: `${python} -c 'import torch'` failed:\n${err}")
    endif()
    string(REPLACE "\n" ";" out "${out}")
    list(GET out 0 py_root)
    list(GET out 1 py_abi)
    if(root STREQUAL "")
      set(root "${py_root}")
    endif()
    if(abi STREQUAL "")
      set(abi "${py_abi}")
    endif()
  endif()

  set(libdir "${root}/lib")
  set(libs "")
  foreach(name c10 torch torch_cpu)
    find_library(NEML2_TORCH_LIB_${name} NAMES ${name} PATHS "${libdir}" NO_DEFAULT_PATH NO_CACHE)
    if(NOT NEML2_TORCH_LIB_${name})
      message(FATAL_ERROR "neml2: lib${name} not found in ${libdir}")
    endif()
    list(APPEND libs "${NEML2_TORCH_LIB_${name}}")
  endforeach()
  find_library(NEML2_TORCH_LIB_torch_python NAMES torch_python PATHS "${libdir}" NO_DEFAULT_PATH
               NO_CACHE)

  if(NOT TARGET neml2::torch)
    add_library(neml2::torch INTERFACE IMPORTED)
    set_target_properties(
      neml2::torch
      PROPERTIES INTERFACE_INCLUDE_DIRECTORIES
                 "${root}/include;${root}/include/torch/csrc/api/include"
                 INTERFACE_LINK_LIBRARIES "${libs}"
                 INTERFACE_COMPILE_DEFINITIONS "_GLIBCXX_USE_CXX11_ABI=${abi}"
                 INTERFACE_COMPILE_FEATURES cxx_std_17)
  endif()
  if(NEML2_TORCH_LIB_torch_python AND NOT TARGET neml2::torch_python)
    add_library(neml2::torch_python INTERFACE IMPORTED)
    set_target_properties(
      neml2::torch_python PROPERTIES INTERFACE_LINK_LIBRARIES
                                     "neml2::torch;${NEML2_TORCH_LIB_torch_python}")
  endif()

  set(NEML2_TORCH_ROOT "${root}" PARENT_SCOPE)
  set(NEML2_TORCH_LIB_DIR "${libdir}" PARENT_SCOPE)
  set(NEML2_TORCH_CXX11_ABI "${abi}" PARENT_SCOPE)
endfunction()

# neml2_install_layout(<out-root-var>)
#
# Where the neml2 tree (lib/, include/, share/, the Python sub-packages) is installed:
#   wheel      "neml2" relative to the wheel's platlib (site-packages/neml2)
#   editable   <package>/src/neml2 in the source tree, next to the Python sources that the
#              editable .pth exposes (the .so files there are git-ignored)
#   otherwise  "neml2" under CMAKE_INSTALL_PREFIX
function(neml2_install_layout out)
  if(SKBUILD_STATE STREQUAL "editable")
    set(${out} "${CMAKE_CURRENT_SOURCE_DIR}/src/neml2" PARENT_SCOPE)
  else()
    set(${out} "neml2" PARENT_SCOPE)
  endif()
endfunction()

# neml2_torch_rpath(<out-var> <install-subdir>)
#
# The RPATH entry that finds torch/lib from a library installed in neml2/<install-subdir>: in a
# wheel, a relative $ORIGIN hop to the torch package in the same site-packages; otherwise the
# absolute torch lib folder.
function(neml2_torch_rpath out subdir)
  if(SKBUILD_STATE STREQUAL "wheel")
    file(RELATIVE_PATH rel "/site-packages/neml2/${subdir}" "/site-packages/torch/lib")
    set(${out} "$ORIGIN/${rel}" PARENT_SCOPE)
  else()
    set(${out} "${NEML2_TORCH_LIB_DIR}" PARENT_SCOPE)
  endif()
endfunction()
