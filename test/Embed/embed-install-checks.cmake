# Part of embed-example.cmake: what `cmake --install` put into ${prefix}.
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
    bin/kiln-compile
    bin/kiln-translate
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

# Every installed tool starts from the prefix (finds the shared libraries it
# links).
file(GLOB installed_tools "${prefix}/bin/*")
foreach(tool IN LISTS installed_tools)
  get_filename_component(name "${tool}" NAME)
  run("${name} --version" "${tool}" --version)
endforeach()
