// math.tanh: a call of __ocml_tanh_f32 (ROCm device library, never linked).
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @tanh(%y: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %y[%c0] : memref<64xf32>
      %t = math.tanh %v : f32
      memref.store %t, %y[%c0] : memref<64xf32>
      gpu.return
    }
  }
}
