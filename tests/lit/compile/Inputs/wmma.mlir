// amdgpu.wmma is gfx11/gfx12 only: rejected for gfx950 in the rocdl stage.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @wmma(%x: memref<64xf16>, %y: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %a = vector.load %x[%c0] : memref<64xf16>, vector<16xf16>
      %c = vector.load %y[%c0] : memref<64xf32>, vector<8xf32>
      %d = amdgpu.wmma 16x16x16 %a * %a + %c : vector<16xf16>, vector<16xf16>, vector<8xf32>
      vector.store %d, %y[%c0] : memref<64xf32>, vector<8xf32>
      gpu.return
    }
  }
}
