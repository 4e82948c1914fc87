// RUN: kiln-opt %s --split-input-file --kiln-finalize-entry-points --verify-diagnostics | FileCheck %s

// The C interface of a renamed body gets the public name back; the
// kiln.entry_point attributes go. The body, called only by its C interface,
// becomes internal and always_inline.
// CHECK-LABEL: llvm.func internal @__kiln_func_exp(
// CHECK-SAME: attributes {always_inline, llvm.emit_c_interface}
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

// A body that another function calls too stays public and is not forced
// inline: each caller would get a copy of it.
// CHECK-LABEL: llvm.func @__kiln_func_g(
// CHECK-SAME: attributes {llvm.emit_c_interface}
// CHECK-LABEL: llvm.func @_mlir_ciface_g(
// CHECK-LABEL: llvm.func @__kiln_func_h(
// CHECK: llvm.call @__kiln_func_g()
llvm.func @__kiln_func_g() attributes {kiln.entry_point = "g", llvm.emit_c_interface} {
  llvm.return
}
llvm.func @_mlir_ciface___kiln_func_g() attributes {kiln.entry_point = "g", llvm.emit_c_interface} {
  llvm.call @__kiln_func_g() : () -> ()
  llvm.return
}
llvm.func @__kiln_func_h() {
  llvm.call @__kiln_func_g() : () -> ()
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
