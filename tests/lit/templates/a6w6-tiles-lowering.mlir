// layout=mxfp6_c0c1_256_padk2 (AITER's A6W6 operand tiles): q and s are
// dense [pad256(M), row bytes] (K=160 pads to 256: 2 K tiles + 2 guard
// tiles = 4 * 24576 / 256 = 384 code and 4 * 1024 / 256 = 16 scale bytes a
// row), flattened once; no q_stride (only m and x_stride follow). Padding
// is whole blocks, a 16-byte C0 and an 8-byte C1 store of zeros and a scale
// byte 127: the last K tile's padded block and the two guard tiles of the
// launched rows, then the loop over the padding rows' (group, K tile)
// pieces. The data blocks store a lane's 3 + 3 bytes.
// RUN: %mxforge-opt %s --mxf-lower-to-gpu | FileCheck %s

// CHECK: gpu.func @a6w6_tiles(%{{.*}}: memref<16x160xbf16>, %{{.*}}: memref<256x384xi8>, %{{.*}}: memref<256x16xi8>, %{{.*}}: i32, %{{.*}}: i32) kernel
// CHECK: memref.collapse_shape %{{.*}} {{\[\[}}0, 1]] : memref<256x16xi8> into memref<4096xi8>
// CHECK: memref.collapse_shape %{{.*}} {{\[\[}}0, 1]] : memref<256x384xi8> into memref<98304xi8>
// CHECK-COUNT-3: vector.store %{{.*}} : memref<98304xi8>, vector<16xi8>
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// CHECK: arith.constant dense<0> : vector<24xi8>
// CHECK: vector.store %{{.*}} : memref<98304xi8>, vector<16xi8>
// CHECK: vector.store %{{.*}} : memref<98304xi8>, vector<8xi8>
// CHECK: memref.store %c127_i8{{.*}} : memref<4096xi8>
// CHECK: scf.yield
// CHECK: vector.store %{{.*}} : memref<98304xi8>, vector<3xi8>
// CHECK: gpu.return

module {
  func.func @a6w6_tiles(%x: memref<16x160xbf16>, %q: memref<256x384xi8>, %s: memref<256x16xi8>, %m: i32) {
    mxf.rotate_quant <K = 160, RS = 32, rot = hadamard, M = 16, fmt = fp6_e2m3, scale = a6w6, round = rna, inter = f32, layout = mxfp6_c0c1_256_padk2> x(%x : memref<16x160xbf16>) q(%q : memref<256x384xi8>) s(%s : memref<256x16xi8>) rows(%m)
    return
  }
}
