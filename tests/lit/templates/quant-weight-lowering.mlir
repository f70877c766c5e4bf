// The quant_weight template: rotate_quant's emitter over N fixed rows. The
// gpu.func takes w, q, s and w_stride (no row count: N is a constant), stores
// fp4 codes through the preshuffled flat view, and converts fp6 with the
// rocdl 2xpk16 op into W6A16 tiles (docs/templates.md, "quant_weight").
// RUN: %mxforge-opt %s --mxf-lower-to-gpu | FileCheck %s --check-prefix=FP4
// RUN: %mxforge-opt %s --mxf-lower-to-gpu | FileCheck %s --check-prefix=FP6

// FP4-LABEL: gpu.func @preshuffled(%{{.*}}: memref<48x128xbf16>, %{{.*}}: memref<48x64xi8>, %{{.*}}: memref<256x8xi8>, %{{.*}}: i32) kernel
// FP4: memref.reinterpret_cast
// FP4: memref.collapse_shape {{.*}} : memref<48x64xi8> into memref<3072xi8>
// FP4: amdgpu.mfma 16x16x32
// FP4: amdgpu.packed_scaled_trunc
// FP4: vector.store {{.*}} : memref<3072xi8>, vector<2xi8>
// FP4-NOT: rocdl.cvt.scalef32
// FP4: gpu.return

// FP6-LABEL: gpu.func @w6a16(%{{.*}}: memref<32x256xbf16>, %{{.*}}: memref<32x192xi8>, %{{.*}}: memref<32x8xi8>, %{{.*}}: i32) kernel
// FP6: memref.collapse_shape {{.*}} : memref<32x192xi8> into memref<6144xi8>
// FP6: rocdl.cvt.scalef32.2xpk16.fp6.f32
// FP6-NOT: amdgpu.packed_scaled_trunc
// FP6: vector.store {{.*}} : memref<6144xi8>, vector<3xi8>
// FP6: memref.store {{.*}} : memref<6144xi8>
// FP6: gpu.return

module {
  func.func @preshuffled(%w: memref<48x128xbf16>, %q: memref<48x64xi8>, %s: memref<256x8xi8>) {
    mxf.quant_weight <K = 128, N = 48, RS = 64, rot = hadamard, fmt = fp4, scale = even, round = rne, inter = f32, layout = a4w4_shuffle, wlayout = preshuffle_16x16> w(%w : memref<48x128xbf16>) q(%q : memref<48x64xi8>) s(%s : memref<256x8xi8>)
    return
  }
  func.func @w6a16(%w: memref<32x256xbf16>, %q: memref<32x192xi8>, %s: memref<32x8xi8>) {
    mxf.quant_weight <K = 256, N = 32, RS = 32, rot = hadamard, fmt = fp6_e2m3, scale = even126, round = rne, inter = f32, layout = plain, wlayout = w6a16_16x128> w(%w : memref<32x256xbf16>) q(%q : memref<32x192xi8>) s(%s : memref<32x8xi8>)
    return
  }
}
