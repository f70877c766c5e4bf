// The gfx950 lowering steps the compiler runs (TOOLCHAIN.md) are available in
// mxforge-opt: an amdgpu op inside a gpu.module goes to rocdl/llvm.
// RUN: %mxforge-opt %s --pass-pipeline='builtin.module(gpu.module(convert-amdgpu-to-rocdl{chipset=gfx950},convert-gpu-to-rocdl{chipset=gfx950 use-bare-ptr-memref-call-conv=true},reconcile-unrealized-casts))' | FileCheck %s

// CHECK: llvm.func @trunc(%{{.*}}: vector<2xf32>, %{{.*}}: f32, %{{.*}}: !llvm.ptr) attributes {gpu.kernel, rocdl.kernel}
// CHECK: rocdl.cvt.scalef32.pk.fp4.f32
// CHECK: llvm.store
// CHECK-NOT: unrealized_conversion_cast
gpu.module @kernels {
  gpu.func @trunc(%v: vector<2xf32>, %scale: f32, %out: memref<8xf4E2M1FN>) kernel {
    %r = amdgpu.packed_scaled_trunc %v into undef[0], %scale : vector<2xf32> to vector<8xf4E2M1FN>
    %c0 = arith.constant 0 : index
    vector.store %r, %out[%c0] : memref<8xf4E2M1FN>, vector<8xf4E2M1FN>
    gpu.return
  }
}
