// Specs the template cannot generate are rejected with the reason, on the op.
// RUN: %mxforge-opt %s --mxf-lower-to-gpu --verify-diagnostics --split-input-file

func.func @butterfly(%x: memref<1x4096xbf16>, %q: memref<1x2048xi8>, %s: memref<1x128xi8>, %m: i32) {
  // expected-error @below {{does not support rot=hadamard_butterfly}}
  mxf.rotate_quant <K = 4096, RS = 64, rot = hadamard_butterfly, M = 1, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain> x(%x : memref<1x4096xbf16>) q(%q : memref<1x2048xi8>) s(%s : memref<1x128xi8>) rows(%m)
  return
}

// -----

func.func @stochastic_weights(%w: memref<16x4160xbf16>, %q: memref<16x3120xi8>, %s: memref<16x130xi8>) {
  // expected-error @below {{does not support round=sr (weights are quantized once, with round=rne)}}
  mxf.quant_weight <K = 4160, N = 16, RS = 0, rot = none, fmt = fp6_e2m3, scale = even, round = sr, inter = f32, layout = plain, wlayout = plain> w(%w : memref<16x4160xbf16>) q(%q : memref<16x3120xi8>) s(%s : memref<16x130xi8>)
  return
}
