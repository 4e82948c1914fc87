# Kiln's libraries form one-way layers (docs/Overview.md, "Layers"): a library
# links and includes only libraries below it. kiln_check_layering(), called
# once at the end of the top-level CMakeLists.txt when every target exists,
# writes the link graph of every target under lib/ and tools/ to
# <build>/kiln-link-graph.json and adds the ctest `kiln-layering`
# (scripts/check-layering.py), which reads it together with the sources'
# #include lines and fails on a link or include that points up.
function(kiln_check_layering)
  _kiln_collect_targets("${PROJECT_SOURCE_DIR}/lib"
    "STATIC_LIBRARY;SHARED_LIBRARY;MODULE_LIBRARY;INTERFACE_LIBRARY" libraries)
  _kiln_collect_targets("${PROJECT_SOURCE_DIR}/tools" "EXECUTABLE" tools)
  set(entries)
  foreach(target IN LISTS libraries tools)
    get_target_property(dir ${target} SOURCE_DIR)
    file(RELATIVE_PATH dir "${PROJECT_SOURCE_DIR}" "${dir}")
    set(links)
    foreach(property LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
      get_target_property(libs ${target} ${property})
      if(libs)
        foreach(lib IN LISTS libs)
          # $<LINK_ONLY:X> and $<BUILD_INTERFACE:X> are X; other generator
          # expressions and plain flags are not targets.
          string(REGEX REPLACE "^\\$<(LINK_ONLY|BUILD_INTERFACE):(.*)>$" "\\2"
            lib "${lib}")
          string(REGEX REPLACE "^\\$<(LINK_ONLY|BUILD_INTERFACE):(.*)>$" "\\2"
            lib "${lib}")
          if(TARGET "${lib}")
            list(APPEND links "\"${lib}\"")
          endif()
        endforeach()
      endif()
    endforeach()
    list(REMOVE_DUPLICATES links)
    list(JOIN links ", " links)
    list(APPEND entries
      "  \"${target}\": {\"dir\": \"${dir}\", \"links\": [${links}]}")
  endforeach()
  list(JOIN entries ",\n" body)
  file(WRITE "${PROJECT_BINARY_DIR}/kiln-link-graph.json" "{\n${body}\n}\n")

  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  add_test(NAME kiln-layering
    COMMAND ${Python3_EXECUTABLE}
            ${PROJECT_SOURCE_DIR}/scripts/check-layering.py
            --graph ${PROJECT_BINARY_DIR}/kiln-link-graph.json
            --src ${PROJECT_SOURCE_DIR})
endfunction()
