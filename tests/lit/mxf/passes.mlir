// mxforge-opt offers the upstream passes the pipeline uses, and generic
// cleanups leave mxf ops alone: they read and write their memref operands,
// so two identical launches are two launches.
// RUN: %mxforge-opt %s --canonicalize --cse | FileCheck %s
// RUN: %mxforge-opt --help | FileCheck %s --check-prefix=PASSES

// PASSES-DAG: --canonicalize
// PASSES-DAG: --convert-amdgpu-to-rocdl
// PASSES-DAG: --convert-arith-to-llvm
// PASSES-DAG: --convert-gpu-to-rocdl
// PASSES-DAG: --convert-scf-to-cf
// PASSES-DAG: --convert-vector-to-llvm
// PASSES-DAG: --cse
// PASSES-DAG: --reconcile-unrealized-casts

// CHECK-LABEL: func.func @twice
// CHECK-COUNT-2: mxf.rotate_quant <K = 64
// CHECK: return
func.func @twice(%x: memref<16x64xbf16>, %q: memref<16x32xi8>, %s: memref<16x2xi8>, %m: i32) {
  mxf.rotate_quant <K = 64, RS = 32, rot = hadamard, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : memref<16x64xbf16>) q(%q : memref<16x32xi8>) s(%s : memref<16x2xi8>) rows(%m)
  mxf.rotate_quant <K = 64, RS = 32, rot = hadamard, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : memref<16x64xbf16>) q(%q : memref<16x32xi8>) s(%s : memref<16x2xi8>) rows(%m)
  return
}

// CHECK-LABEL: func.func @unused_results_kept
// CHECK: mxf.quant_weight
func.func @unused_results_kept(%w: memref<16x64xbf16>, %q: memref<16x32xi8>, %s: memref<16x2xi8>) {
  mxf.quant_weight <K = 64, N = 16, RS = 0, rot = none, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain, wlayout = plain>
      w(%w : memref<16x64xbf16>) q(%q : memref<16x32xi8>) s(%s : memref<16x2xi8>)
  return
}
