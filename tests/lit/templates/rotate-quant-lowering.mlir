// The rotate_quant template: mxf op -> one gpu.func in gpu.module
// @mxforge_kernels, with the MFMA chain, the cross-lane amax and the packed
// fp4 converts of docs/templates.md.
// RUN: %mxforge-opt %s --mxf-lower-to-gpu | FileCheck %s --check-prefix=HAD
// RUN: %mxforge-opt %s --mxf-lower-to-gpu | FileCheck %s --check-prefix=COUNT

// HAD: module attributes {gpu.container_module}
// HAD: gpu.module @mxforge_kernels
// HAD: gpu.func @hadamard64(%{{.*}}: memref<16x4096xbf16>, %{{.*}}: memref<16x2048xi8>, %{{.*}}: memref<16x128xi8>, %{{.*}}: i32) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// HAD: gpu.thread_id x
// HAD: vector.from_elements {{.*}} : vector<4xi32>
// HAD: vector.bitcast {{.*}} : vector<4xi32> to vector<8xbf16>
// HAD: amdgpu.mfma 16x16x32
// HAD: gpu.shuffle xor
// HAD: amdgpu.packed_scaled_trunc
// HAD-NOT: func.func @hadamard64

// RS=64: 2 output blocks x 2 tiles x 2 input chunks = 8 MFMAs, and 4
// converts per 32-channel block = 8 converts per wave.
// COUNT-LABEL: gpu.func @hadamard64
// COUNT-COUNT-8: amdgpu.mfma 16x16x32
// COUNT-NOT: amdgpu.mfma
// COUNT: gpu.return
// COUNT-LABEL: gpu.func @learned128
// COUNT: workgroup(%{{.*}} : memref<16384xbf16, #gpu.address_space<workgroup>>)
// COUNT: gpu.barrier
// COUNT: scf.for
// COUNT: amdgpu.transpose_load
// RS=128 loops over its 4 output blocks: one body of 2 tiles x 4 chunks.
// COUNT-COUNT-8: amdgpu.mfma 16x16x32
// COUNT-NOT: amdgpu.mfma
// COUNT: gpu.return

module {
  func.func @hadamard64(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
    mxf.rotate_quant <K = 4096, RS = 64, rot = hadamard, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain> x(%x : memref<16x4096xbf16>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
    return
  }
  func.func @learned128(%x: memref<16x4096xbf16>, %r: memref<128x128xbf16>, %q: memref<16x2048xi8>, %s: memref<256x128xi8>, %m: i32) {
    mxf.rotate_quant <K = 4096, RS = 128, rot = learned, M = 16, fmt = fp4, scale = rceil, round = rne, inter = bf16, layout = a4w4_shuffle> x(%x : memref<16x4096xbf16>) r(%r : memref<128x128xbf16>) q(%q : memref<16x2048xi8>) s(%s : memref<256x128xi8>) rows(%m)
    return
  }
}
