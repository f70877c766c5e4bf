//===- test_kernels.h - MLIR inputs of the compiler tests ---------*- C++ -*-===//
//
// Small gpu-level modules, parsed at test time. kQuantMfma is the compiler's
// smoke test: it exercises the two gfx950 instruction families the kernel
// templates are built on (fp4 conversion with a scale, bf16 MFMA).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TESTS_UNIT_COMPILER_TEST_KERNELS_H
#define MXFORGE_TESTS_UNIT_COMPILER_TEST_KERNELS_H

namespace mxf::test {

/// amdgpu.packed_scaled_trunc (-> v_cvt_scalef32_pk_fp4_f32) and
/// amdgpu.mfma 16x16x32 bf16 (-> v_mfma_f32_16x16x32_bf16); six explicit
/// arguments: five pointers and an f32.
inline constexpr const char *kQuantMfma = R"mlir(
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
)mlir";

/// gpu.block_dim without known_block_size lowers to a call of
/// __ockl_get_local_size, a device-library function we never link.
inline constexpr const char *kBlockDim = R"mlir(
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
)mlir";

/// math.tanh lowers to a call of __ocml_tanh_f32 (device library).
inline constexpr const char *kTanh = R"mlir(
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
)mlir";

/// amdgpu.wmma exists on gfx11/gfx12 only: convert-amdgpu-to-rocdl rejects it
/// for gfx950 (a rocdl-stage failure).
inline constexpr const char *kWmma = R"mlir(
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
)mlir";

/// 256 KiB of LDS: more than gfx950's 160 KiB. AMDGPU code generation
/// reports it as an LLVM error diagnostic (which, unhandled, would exit the
/// process).
inline constexpr const char *kBigLds = R"mlir(
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
)mlir";

/// Two kernels in one gpu.module: a code object holds exactly one.
inline constexpr const char *kTwoKernels = R"mlir(
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @first(%y: memref<64xf32>) kernel { gpu.return }
    gpu.func @second(%y: memref<64xf32>) kernel { gpu.return }
  }
}
)mlir";

/// No gpu.module at all.
inline constexpr const char *kNoGpuModule = R"mlir(
func.func @host(%x: f32) -> f32 { return %x : f32 }
)mlir";

/// A syntax error on line 4 (`arith.addf` without its type).
inline constexpr const char *kSyntaxError = R"mlir(
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @broken(%x: f32) kernel { %y = arith.addf %x, %x gpu.return }
  }
}
)mlir";

} // namespace mxf::test

#endif // MXFORGE_TESTS_UNIT_COMPILER_TEST_KERNELS_H
