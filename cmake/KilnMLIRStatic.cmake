# Kiln built with KILN_LINK_MLIR_DYLIB=OFF links MLIR's static libraries
# alone (cmake/KilnMLIR.cmake). An MLIR built with MLIR_LINK_MLIR_DYLIB, as
# Debian's is, exports MLIRExecutionEngine (a static library) with the link
# interface "LLVM;MLIR", which would add libMLIR.so, a second MLIR, to every
# binary that links it: name the static libraries upstream builds it from
# instead. Included by Kiln's build and by KilnConfig.cmake of such a Kiln,
# after find_package(MLIR).
if(TARGET MLIRExecutionEngine)
  get_target_property(_kiln_interface MLIRExecutionEngine INTERFACE_LINK_LIBRARIES)
  if("MLIR" IN_LIST _kiln_interface)
    list(REMOVE_ITEM _kiln_interface MLIR)
    list(APPEND _kiln_interface
      MLIRBuiltinToLLVMIRTranslation
      MLIRExecutionEngineUtils
      MLIRLLVMDialect
      MLIRLLVMToLLVMIRTranslation
      MLIROpenMPToLLVMIRTranslation
      MLIRTargetLLVMIRExport)
    set_property(TARGET MLIRExecutionEngine PROPERTY
      INTERFACE_LINK_LIBRARIES "${_kiln_interface}")
  endif()
  unset(_kiln_interface)
endif()
