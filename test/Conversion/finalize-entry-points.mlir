// RUN: kiln-opt %s --split-input-file --kiln-finalize-entry-points --verify-diagnostics | FileCheck %s

// The C interface of a renamed body gets the public name back; the
// kiln.entry_point attributes go.
// CHECK-LABEL: llvm.func @__kiln_func_exp(
// CHECK-SAME: attributes {llvm.emit_c_interface}
// CHECK-LABEL: llvm.func @_mlir_ciface_exp(
// CHECK-SAME: attributes {llvm.emit_c_interface}
// CHECK: llvm.call @__kiln_func_exp(
// CHECK-NOT: kiln.entry_point
llvm.func @__kiln_func_exp(%arg0: !llvm.ptr) attributes {kiln.entry_point = "exp", llvm.emit_c_interface} {
  llvm.return
}
llvm.func @_mlir_ciface___kiln_func_exp(%arg0: !llvm.ptr) attributes {kiln.entry_point = "exp", llvm.emit_c_interface} {
  llvm.call @__kiln_func_exp(%arg0) : (!llvm.ptr) -> ()
  llvm.return
}

// -----

// The public name of the C interface is taken.
llvm.func @__kiln_func_f() attributes {kiln.entry_point = "f", llvm.emit_c_interface} {
  llvm.return
}
llvm.func @_mlir_ciface___kiln_func_f() attributes {kiln.entry_point = "f", llvm.emit_c_interface} {
  llvm.call @__kiln_func_f() : () -> ()
  llvm.return
}
// expected-error @below {{the C interface of @f would be @_mlir_ciface_f, the name of this symbol}}
llvm.func @_mlir_ciface_f()
