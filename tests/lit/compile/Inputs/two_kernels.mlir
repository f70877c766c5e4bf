// Two kernels: a code object holds exactly one.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @first(%y: memref<64xf32>) kernel { gpu.return }
    gpu.func @second(%y: memref<64xf32>) kernel { gpu.return }
  }
}
