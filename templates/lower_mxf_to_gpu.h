//===- lower_mxf_to_gpu.h - The mxf-lower-to-gpu pass ------------*- C++ -*-===//
//
// Replaces every func.func that wraps an mxf kernel op by a gpu.func built
// by the op's template, inside one gpu.module @mxforge_kernels (the module
// the compiler serializes).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_LOWER_MXF_TO_GPU_H
#define MXFORGE_TEMPLATES_LOWER_MXF_TO_GPU_H

#include <memory>

namespace mlir {
class Pass;
} // namespace mlir

namespace mxf {

inline constexpr const char kKernelGpuModuleName[] = "mxforge_kernels";

std::unique_ptr<mlir::Pass> createMxfLowerToGpuPass();
/// Registers `mxf-lower-to-gpu` with the global pass registry (mxforge-opt).
void registerMxfLowerToGpuPass();

} // namespace mxf

#endif // MXFORGE_TEMPLATES_LOWER_MXF_TO_GPU_H
