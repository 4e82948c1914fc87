# One copy of MLIR per binary (issue #27).
#
# Debian's MLIR comes twice: as static libraries (libMLIRIR.a, ...) and as
# the shared libMLIR.so.22.1, which holds every one of them, the
# ExecutionEngine included. A binary that links some of the static libraries
# and also loads libMLIR.so (MLIRExecutionEngine's imported link interface is
# "LLVM;MLIR") has two copies of MLIR's code and static data (registries,
# TypeIDs, options): an ODR violation that works only while the executable's
# definitions win symbol resolution.
#
# So every Kiln target names MLIR's libraries in one way only, upstream's
# mlir_target_link_libraries() (AddMLIR.cmake), never through
# add_mlir_library(... LINK_LIBS) or target_link_libraries():
#
#   mlir_target_link_libraries(KilnFoo PUBLIC MLIRIR MLIRPass ...)
#
# and KILN_LINK_MLIR_DYLIB, as upstream's MLIR_LINK_MLIR_DYLIB, decides what
# that means for all of them:
#   ON  (the default): the `MLIR` target, libMLIR.so, alone; the listed
#       names then reach only the obj.Kiln* object libraries, which link
#       nothing.
#   OFF: the listed static libraries alone; MLIRExecutionEngine's link
#       interface is rewritten to the static libraries it is built from
#       (KilnMLIRStatic.cmake, which KilnConfig.cmake includes too).
# LLVM is libLLVM.so either way (Debian's LLVM_LINK_LLVM_DYLIB). ON gives
# binaries a tenth the size and links twice as fast (README.md, "Figures").
#
# kiln_check_one_mlir() makes a direct link of a static MLIR library a
# configure error (with ON), and the ctest `one-mlir-per-binary`
# (scripts/check-one-mlir.py) fails when a Kiln binary or shared library
# defines symbols that a library it loads (libMLIR.so, libLLVM.so) defines.
option(KILN_LINK_MLIR_DYLIB
  "Link Kiln against MLIR's shared libMLIR.so (ON) or its static libraries (OFF), never both"
  ON)

if(KILN_LINK_MLIR_DYLIB)
  if(NOT TARGET MLIR)
    message(FATAL_ERROR "KILN_LINK_MLIR_DYLIB is ON but this MLIR "
      "(${MLIR_DIR}) has no shared libMLIR target; configure with "
      "-DKILN_LINK_MLIR_DYLIB=OFF")
  endif()
  set(MLIR_LINK_MLIR_DYLIB ON)
  message(STATUS "Kiln: linking MLIR's shared libMLIR.so (KILN_LINK_MLIR_DYLIB)")
else()
  set(MLIR_LINK_MLIR_DYLIB OFF)
  # Also included by the installed KilnConfig.cmake, for its consumers.
  include(${CMAKE_CURRENT_LIST_DIR}/KilnMLIRStatic.cmake)
  message(STATUS "Kiln: linking MLIR's static libraries (KILN_LINK_MLIR_DYLIB=OFF)")
endif()

# Called once at the end of the top-level CMakeLists.txt, when every target
# exists: a configure error for a Kiln target that names one of MLIR's
# static libraries directly while Kiln links libMLIR.so, and the ctest
# `one-mlir-per-binary` over every executable and shared library Kiln builds
# (the tools, the unit tests, the GPU emulator's runtime, ...).
function(kiln_check_one_mlir)
  _kiln_collect_targets("${PROJECT_SOURCE_DIR}"
    "EXECUTABLE;SHARED_LIBRARY;MODULE_LIBRARY;STATIC_LIBRARY;OBJECT_LIBRARY;INTERFACE_LIBRARY"
    targets)
  set(binaries)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(type MATCHES "^(EXECUTABLE|SHARED_LIBRARY|MODULE_LIBRARY)$")
      list(APPEND binaries "$<TARGET_FILE:${target}>")
    endif()
    if(NOT KILN_LINK_MLIR_DYLIB OR target MATCHES "^obj\\.")
      continue()
    endif()
    foreach(property LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
      get_target_property(libs ${target} ${property})
      foreach(lib IN LISTS libs)
        if(lib MATCHES "^MLIR." AND TARGET ${lib})
          get_target_property(lib_type ${lib} TYPE)
          if(lib_type STREQUAL "STATIC_LIBRARY")
            message(FATAL_ERROR "${target} links MLIR's static ${lib} while "
              "Kiln links libMLIR.so: two copies of MLIR. Name MLIR's "
              "libraries with mlir_target_link_libraries() (see "
              "cmake/KilnMLIR.cmake)")
          endif()
        endif()
      endforeach()
    endforeach()
  endforeach()

  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  set(control)
  if(TARGET MLIR AND TARGET MLIRIR)
    set(control --control $<TARGET_FILE:MLIRIR> --libmlir $<TARGET_FILE:MLIR>)
  endif()
  add_test(NAME one-mlir-per-binary
    COMMAND ${Python3_EXECUTABLE}
      ${PROJECT_SOURCE_DIR}/scripts/check-one-mlir.py ${control} ${binaries})
endfunction()
