// gpu.block_dim without known_block_size: a call of __ockl_get_local_size.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @block_dim(%y: memref<64xi32>) kernel {
      %b = gpu.block_dim x
      %i = arith.index_cast %b : index to i32
      %c0 = arith.constant 0 : index
      memref.store %i, %y[%c0] : memref<64xi32>
      gpu.return
    }
  }
}
