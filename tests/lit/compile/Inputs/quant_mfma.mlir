// fp4 conversion with a scale + bf16 MFMA: the two gfx950 families the
// templates build on. Six explicit arguments: five pointers and an f32.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @quant_mfma(%x: memref<256xf32>, %a: memref<512xbf16>, %b: memref<512xbf16>,
                         %c: memref<256xf32>, %q: memref<256xi8>, %scale: f32) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %i2 = arith.muli %tid, %c2 : index
      %v = vector.load %x[%i2] : memref<256xf32>, vector<2xf32>
      %p = amdgpu.packed_scaled_trunc %v into undef[0], %scale : vector<2xf32> to vector<8xf4E2M1FN>
      %pi = vector.bitcast %p : vector<8xf4E2M1FN> to vector<1xi32>
      %lo = vector.extract_strided_slice %pi {offsets = [0], sizes = [1], strides = [1]} : vector<1xi32> to vector<1xi32>
      %pb = vector.bitcast %lo : vector<1xi32> to vector<4xi8>
      %i4 = arith.muli %tid, %c4 : index
      vector.store %pb, %q[%i4] : memref<256xi8>, vector<4xi8>
      %i8 = arith.muli %tid, %c8 : index
      %va = vector.load %a[%i8] : memref<512xbf16>, vector<8xbf16>
      %vb = vector.load %b[%i8] : memref<512xbf16>, vector<8xbf16>
      %vc = vector.load %c[%i4] : memref<256xf32>, vector<4xf32>
      %d = amdgpu.mfma 16x16x32 %va * %vb + %vc blgp = none : vector<8xbf16>, vector<8xbf16>, vector<4xf32>
      vector.store %d, %c[%i4] : memref<256xf32>, vector<4xf32>
      gpu.return
    }
  }
}
