# Install and export rules: `cmake --install <build> --prefix P` installs the
# public headers (with the generated .inc files), Kiln's static libraries
# with their link interface, the tools, and a CMake package so that other
# projects can `find_package(Kiln CONFIG REQUIRED)` and link `Kiln::Kiln`.
# The build tree is a package too, without installing: `Kiln_DIR` set to
# <build>/lib/cmake/kiln. See docs/Embedding.md.
#
# The libraries use add_mlir_library(... DISABLE_INSTALL), so MLIR's own
# install rules stay out of the way; kiln_install_project() below adds
# Kiln's: every library defined under lib/ and every executable under tools/
# joins the export set `KilnTargets` (namespace `Kiln::`), so a new library
# or tool is installed without touching this file or its CMakeLists.txt.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The version of the installed package (KilnConfigVersion.cmake and
# kiln/Version.h).
set(KILN_VERSION_MAJOR 0)
set(KILN_VERSION_MINOR 1)
set(KILN_VERSION_PATCH 0)
set(KILN_VERSION
  "${KILN_VERSION_MAJOR}.${KILN_VERSION_MINOR}.${KILN_VERSION_PATCH}")

set(KILN_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/kiln")

# Libraries that Kiln's own targets use privately and that must not reach the
# installed link interface: header-only, so a static Kiln library needs
# nothing from them at link time. Only a PRIVATE link is allowed.
set(KILN_BUILD_ONLY_LINK_LIBRARIES nlohmann_json::nlohmann_json)
# Their packages: the build-tree package, whose targets keep the build-only
# libraries (CMake 3.25 has no $<BUILD_LOCAL_INTERFACE>), finds them where
# Kiln's build found them.
set(KILN_BUILD_ONLY_PACKAGES nlohmann_json)

# Collects the targets of type `type` defined in `dir` and its
# subdirectories into `out`.
function(_kiln_collect_targets dir type out)
  set(result)
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    get_target_property(target_type ${target} TYPE)
    if(target_type IN_LIST type)
      list(APPEND result ${target})
    endif()
  endforeach()
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(subdir IN LISTS subdirs)
    _kiln_collect_targets("${subdir}" "${type}" sub)
    list(APPEND result ${sub})
  endforeach()
  set(${out} ${result} PARENT_SCOPE)
endfunction()

# Keeps the build-only libraries out of `target`'s installed link interface:
# a static library lists its PRIVATE dependencies as $<LINK_ONLY:dep>, which
# the export would otherwise hand on to every consumer.
function(_kiln_hide_build_only_link_libraries target)
  get_target_property(interface ${target} INTERFACE_LINK_LIBRARIES)
  if(NOT interface)
    return()
  endif()
  set(rewritten)
  foreach(item IN LISTS interface)
    foreach(dep IN LISTS KILN_BUILD_ONLY_LINK_LIBRARIES)
      if(item STREQUAL dep)
        message(FATAL_ERROR "${target} links ${dep} PUBLIC, which would put "
          "it into Kiln's installed interface; link it PRIVATE (see "
          "cmake/KilnInstall.cmake)")
      elseif(item STREQUAL "$<LINK_ONLY:${dep}>")
        set(item "$<LINK_ONLY:$<BUILD_INTERFACE:${dep}>>")
      endif()
    endforeach()
    list(APPEND rewritten "${item}")
  endforeach()
  set_property(TARGET ${target} PROPERTY INTERFACE_LINK_LIBRARIES "${rewritten}")
endfunction()

# Installs and exports every Kiln library (under lib/) and tool (under
# tools/), the headers and the package files. Called once, at the end of the
# top-level CMakeLists.txt, when every target exists.
function(kiln_install_project)
  _kiln_collect_targets("${PROJECT_SOURCE_DIR}/lib"
    "STATIC_LIBRARY;SHARED_LIBRARY;INTERFACE_LIBRARY" libraries)
  _kiln_collect_targets("${PROJECT_SOURCE_DIR}/tools" "EXECUTABLE" tools)

  foreach(library IN LISTS libraries)
    _kiln_hide_build_only_link_libraries(${library})
    # A sanitized Kiln's consumers link the sanitizer runtimes too.
    if(KILN_SANITIZE_LINK_FLAGS)
      target_link_options(${library} INTERFACE ${KILN_SANITIZE_LINK_FLAGS})
    endif()
    target_include_directories(${library}
      INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
                $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>)
  endforeach()
  # add_llvm_executable's install runpath is $ORIGIN/../lib alone, which
  # holds LLVM's libraries only when Kiln is installed into LLVM's prefix;
  # the tools, which link libLLVM.so and libMLIR.so (cmake/KilnMLIR.cmake),
  # find them where Kiln's build did.
  foreach(tool IN LISTS tools)
    set_property(TARGET ${tool} APPEND PROPERTY INSTALL_RPATH
      "${LLVM_LIBRARY_DIR}")
  endforeach()
  install(TARGETS ${libraries} ${tools}
    EXPORT KilnTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT kiln
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT kiln
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT kiln)

  # Public headers and the TableGen sources next to them; the private
  # headers live in lib/ and stay there.
  install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/kiln"
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT kiln
    FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
  # The generated declarations (*.h.inc, *.cpp.inc) and configured headers.
  install(DIRECTORY "${PROJECT_BINARY_DIR}/include/kiln"
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT kiln
    FILES_MATCHING PATTERN "*.inc" PATTERN "*.h"
    PATTERN "CMakeFiles" EXCLUDE)

  install(EXPORT KilnTargets
    NAMESPACE Kiln::
    DESTINATION ${KILN_INSTALL_CMAKEDIR} COMPONENT kiln)

  # What KilnConfig.cmake.in substitutes, for the install...
  set(KILN_EXPORTED_LIBRARIES ${libraries})
  set(KILN_EXPORTED_TOOLS ${tools})
  set(KILN_CONFIG_INCLUDE_DIRS "\${PACKAGE_PREFIX_DIR}/${CMAKE_INSTALL_INCLUDEDIR}")
  set(KILN_CONFIG_TOOLS_DIR "\${PACKAGE_PREFIX_DIR}/${CMAKE_INSTALL_BINDIR}")
  set(KILN_CONFIG_BUILD_ONLY_DEPENDENCIES "")
  configure_package_config_file(
    "${PROJECT_SOURCE_DIR}/cmake/KilnConfig.cmake.in"
    "${PROJECT_BINARY_DIR}/cmake/KilnConfig.cmake"
    INSTALL_DESTINATION ${KILN_INSTALL_CMAKEDIR})
  write_basic_package_version_file(
    "${PROJECT_BINARY_DIR}/cmake/KilnConfigVersion.cmake"
    VERSION ${KILN_VERSION}
    COMPATIBILITY SameMinorVersion)
  install(FILES
    "${PROJECT_BINARY_DIR}/cmake/KilnConfig.cmake"
    "${PROJECT_BINARY_DIR}/cmake/KilnConfigVersion.cmake"
    "${PROJECT_SOURCE_DIR}/cmake/KilnMLIRStatic.cmake"
    DESTINATION ${KILN_INSTALL_CMAKEDIR} COMPONENT kiln)

  # ... and for the build tree: <build>/lib/cmake/kiln, where the targets
  # are the build's own files (libraries in <build>/lib, tools in
  # <build>/bin) and the headers the source's and the build's include/.
  set(build_cmakedir "${PROJECT_BINARY_DIR}/lib/cmake/kiln")
  export(EXPORT KilnTargets NAMESPACE Kiln::
    FILE "${build_cmakedir}/KilnTargets.cmake")
  set(KILN_CONFIG_INCLUDE_DIRS
    "${PROJECT_SOURCE_DIR}/include;${PROJECT_BINARY_DIR}/include")
  set(KILN_CONFIG_TOOLS_DIR "${PROJECT_BINARY_DIR}/bin")
  set(KILN_CONFIG_BUILD_ONLY_DEPENDENCIES "")
  foreach(package IN LISTS KILN_BUILD_ONLY_PACKAGES)
    string(APPEND KILN_CONFIG_BUILD_ONLY_DEPENDENCIES
      "find_dependency(${package} CONFIG HINTS \"${${package}_DIR}\")\n")
  endforeach()
  configure_package_config_file(
    "${PROJECT_SOURCE_DIR}/cmake/KilnConfig.cmake.in"
    "${build_cmakedir}/KilnConfig.cmake"
    INSTALL_DESTINATION "${build_cmakedir}"
    INSTALL_PREFIX "${PROJECT_BINARY_DIR}")
  configure_file("${PROJECT_BINARY_DIR}/cmake/KilnConfigVersion.cmake"
    "${build_cmakedir}/KilnConfigVersion.cmake" COPYONLY)
  configure_file("${PROJECT_SOURCE_DIR}/cmake/KilnMLIRStatic.cmake"
    "${build_cmakedir}/KilnMLIRStatic.cmake" COPYONLY)
endfunction()

# kiln/Version.h, installed with the generated headers.
configure_file("${PROJECT_SOURCE_DIR}/include/kiln/Version.h.in"
  "${PROJECT_BINARY_DIR}/include/kiln/Version.h" @ONLY)
