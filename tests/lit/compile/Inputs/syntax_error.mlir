// `arith.addf` without its type on line 4.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @broken(%x: f32) kernel { %y = arith.addf %x, %x gpu.return }
  }
}
