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
# links) and names Kiln's version.
file(GLOB installed_tools "${prefix}/bin/*")
foreach(tool IN LISTS installed_tools)
  get_filename_component(name "${tool}" NAME)
  message(STATUS "${name} --version")
  execute_process(COMMAND "${tool}" --version
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name} --version failed (${rc}): ${out}")
  endif()
  if(NOT out MATCHES "Kiln version [0-9]+\\.[0-9]+\\.[0-9]+")
    message(FATAL_ERROR "${name} --version does not name Kiln's version: ${out}")
  endif()
endforeach()

# The installed kiln-run's GPU emulator loads the installed runtime
# (<prefix>/lib/libkiln_gpu_emulator.so), not the build tree's: the JIT looks
# beside its bin/ first. LD_DEBUG=files names each library dlopen loads.
set(emulated "${WORK_DIR}/emulated.mlir")
file(WRITE "${emulated}" "func.func @double(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = kiln.add %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
")
message(STATUS "kiln-run --target=gpu-emulator from the prefix")
execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env LD_DEBUG=files
    "${prefix}/bin/kiln-run" "${emulated}" --entry double
    --target=gpu-emulator --random-inputs
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  # Its own messages, not the loader's.
  string(REGEX MATCHALL "[^\n]*error:[^\n]*" errors "${err}")
  message(FATAL_ERROR "kiln-run --target=gpu-emulator failed (${rc}): ${errors}")
endif()
string(REGEX MATCHALL "file=[^ ]*libkiln_gpu_emulator\\.so" loaded "${err}")
list(REMOVE_DUPLICATES loaded)
get_filename_component(real_prefix "${prefix}" REALPATH)
if(NOT loaded STREQUAL "file=${real_prefix}/lib/libkiln_gpu_emulator.so")
  message(FATAL_ERROR "the installed kiln-run loaded the GPU emulator runtime "
    "from '${loaded}', not from ${prefix}/lib")
endif()
