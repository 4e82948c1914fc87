# cmake -P script behind the `embed-example` ctest (see CMakeLists.txt):
# install Kiln into WORK_DIR/prefix, check what was installed, configure and
# build examples/embed against it, and run the example. With
# -DBUILD_TREE=ON (the `embed-example-build-tree` ctest) nothing is
# installed: the example finds the build tree's package through
# Kiln_DIR=<build>/lib/cmake/kiln.
foreach(var KILN_BUILD_DIR KILN_EXAMPLE_DIR WORK_DIR NINJA CXX_COMPILER PYTHON)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "embed-example.cmake needs -D${var}=...")
  endif()
endforeach()
if(NOT BUILD_TYPE)
  set(BUILD_TYPE Release)
endif()

set(prefix "${WORK_DIR}/prefix")
set(example_build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${WORK_DIR}")

# Runs a command, echoing it, and fails the test when it fails.
function(run what)
  message(STATUS "${what}: ${ARGN}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc})")
  endif()
endfunction()

if(BUILD_TREE)
  set(package_args "-DKiln_DIR=${KILN_BUILD_DIR}/lib/cmake/kiln")
else()
  set(package_args "-DCMAKE_PREFIX_PATH=${prefix}")
  run("install" "${CMAKE_COMMAND}" --install "${KILN_BUILD_DIR}"
    --prefix "${prefix}")
  include("${CMAKE_CURRENT_LIST_DIR}/embed-install-checks.cmake")
endif()

# Like scripts/build.sh: ccache keys on paths relative to the checkout, so
# every clone (and every run, in its fresh prefix) shares the hits.
set(launcher)
if(CCACHE)
  set(launcher "-DCMAKE_CXX_COMPILER_LAUNCHER=${CCACHE}")
  if(NOT DEFINED ENV{CCACHE_BASEDIR} AND KILN_SOURCE_DIR)
    set(ENV{CCACHE_BASEDIR} "${KILN_SOURCE_DIR}")
  endif()
  if(NOT DEFINED ENV{CCACHE_NOHASHDIR})
    set(ENV{CCACHE_NOHASHDIR} 1)
  endif()
endif()
run("configure examples/embed" "${CMAKE_COMMAND}" -G Ninja
  -S "${KILN_EXAMPLE_DIR}" -B "${example_build}"
  "-DCMAKE_MAKE_PROGRAM=${NINJA}"
  "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
  "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}"
  ${package_args}
  ${launcher})
run("build examples/embed" "${CMAKE_COMMAND}" --build "${example_build}")
run("run kiln-embed-example" "${example_build}/kiln-embed-example")

# A program linking Kiln::Kiln, and each installed tool, has one MLIR: it
# does not both define MLIR's symbols and load libMLIR.so (issue #27).
set(checked "${example_build}/kiln-embed-example")
if(NOT BUILD_TREE)
  file(GLOB installed_tools "${prefix}/bin/*")
  list(APPEND checked ${installed_tools})
endif()
run("one MLIR per binary" "${PYTHON}"
  "${CMAKE_CURRENT_LIST_DIR}/../../scripts/check-one-mlir.py" ${checked})
