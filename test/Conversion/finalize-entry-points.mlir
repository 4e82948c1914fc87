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

// A split training step (kiln-autodiff mode=split): its forward and backward
// name each other in attributes. Those references are no calls, so each body
// is still folded into its C interface (kept global, each body took its
// thousands of descriptor words as arguments: 39 s of LLVM for a 24-layer
// Qwen3 library).
// CHECK-LABEL: llvm.func internal @__kiln_func_fwd(
// CHECK-SAME: always_inline
// CHECK-LABEL: llvm.func @_mlir_ciface_fwd(
// CHECK-LABEL: llvm.func internal @__kiln_func_bwd(
// CHECK-SAME: always_inline
// CHECK-LABEL: llvm.func @_mlir_ciface_bwd(
llvm.func @__kiln_func_fwd(%arg0: !llvm.ptr) attributes {kiln.backward = @__kiln_func_bwd, kiln.entry_point = "fwd", llvm.emit_c_interface} {
  llvm.return
}
llvm.func @_mlir_ciface___kiln_func_fwd(%arg0: !llvm.ptr) attributes {kiln.entry_point = "fwd", llvm.emit_c_interface} {
  llvm.call @__kiln_func_fwd(%arg0) : (!llvm.ptr) -> ()
  llvm.return
}
llvm.func @__kiln_func_bwd(%arg0: !llvm.ptr) attributes {kiln.forward = @__kiln_func_fwd, kiln.entry_point = "bwd", llvm.emit_c_interface} {
  llvm.return
}
llvm.func @_mlir_ciface___kiln_func_bwd(%arg0: !llvm.ptr) attributes {kiln.entry_point = "bwd", llvm.emit_c_interface} {
  llvm.call @__kiln_func_bwd(%arg0) : (!llvm.ptr) -> ()
  llvm.return
}

// -----

// A body whose address is taken is not folded.
// CHECK-LABEL: llvm.func @__kiln_func_k(
// CHECK-NOT: always_inline
// CHECK-SAME: attributes {llvm.emit_c_interface}
llvm.func @__kiln_func_k() attributes {kiln.entry_point = "k", llvm.emit_c_interface} {
  llvm.return
}
llvm.func @_mlir_ciface___kiln_func_k() attributes {kiln.entry_point = "k", llvm.emit_c_interface} {
  llvm.call @__kiln_func_k() : () -> ()
  llvm.return
}
llvm.func @address() -> !llvm.ptr {
  %0 = llvm.mlir.addressof @__kiln_func_k : !llvm.ptr
  llvm.return %0 : !llvm.ptr
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
