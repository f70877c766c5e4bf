// 256 KiB of LDS, more than gfx950's 160 KiB: an LLVM code generation error.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @big_lds(%y: memref<64xf32>)
        workgroup(%buf: memref<65536xf32, #gpu.address_space<workgroup>>) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %last = arith.constant 65535 : index
      %v = memref.load %y[%tid] : memref<64xf32>
      memref.store %v, %buf[%last] : memref<65536xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %w = memref.load %buf[%tid] : memref<65536xf32, #gpu.address_space<workgroup>>
      memref.store %w, %y[%tid] : memref<64xf32>
      gpu.return
    }
  }
}
