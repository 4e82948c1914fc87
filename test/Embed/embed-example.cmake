# cmake -P script behind the `embed-example` ctest (see CMakeLists.txt):
# install Kiln into WORK_DIR/prefix, check what was installed, configure and
# build examples/embed against it, and run the example.
foreach(var KILN_BUILD_DIR KILN_EXAMPLE_DIR WORK_DIR NINJA CXX_COMPILER)
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

run("install" "${CMAKE_COMMAND}" --install "${KILN_BUILD_DIR}"
  --prefix "${prefix}")

# The package, the umbrella header, generated headers and every tool.
foreach(file
    lib/cmake/kiln/KilnConfig.cmake
    lib/cmake/kiln/KilnConfigVersion.cmake
    lib/cmake/kiln/KilnTargets.cmake
    include/kiln/Kiln.h
    include/kiln/Version.h
    include/kiln/Dialect/Kiln/IR/KilnDialect.h.inc
    include/kiln/Dialect/Kiln/IR/KilnOps.td
    bin/kiln-opt
    bin/kiln-run
    bin/kiln-coverage)
  if(NOT EXISTS "${prefix}/${file}")
    message(FATAL_ERROR "the install has no ${file}")
  endif()
endforeach()

# nlohmann_json is a private detail of the build: no installed CMake file or
# header may name it.
file(GLOB_RECURSE installed_text
  "${prefix}/lib/cmake/*.cmake" "${prefix}/include/*.h"
  "${prefix}/include/*.inc")
foreach(file IN LISTS installed_text)
  file(STRINGS "${file}" hits REGEX "nlohmann")
  if(hits)
    message(FATAL_ERROR "${file} mentions nlohmann_json: ${hits}")
  endif()
endforeach()

# The installed tools run from the prefix.
run("kiln-opt --version" "${prefix}/bin/kiln-opt" --version)

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
  "-DCMAKE_PREFIX_PATH=${prefix}"
  ${launcher})
run("build examples/embed" "${CMAKE_COMMAND}" --build "${example_build}")
run("run kiln-embed-example" "${example_build}/kiln-embed-example")
