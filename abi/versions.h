//===- versions.h - The versions every compiled artifact records -*- C++ -*-===//
//
// Cache entries and bundle manifests record both numbers; a reader refuses an
// artifact whose numbers differ from its own, because it would launch that
// code with the wrong arguments (ABI) or serve code the templates no longer
// emit (revision).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_ABI_VERSIONS_H
#define MXFORGE_ABI_VERSIONS_H

namespace mxf {

/// The launch ABI of generated kernels: the operand table (abi/operands.h),
/// the by-value arguments after the buffers (row count, row strides), and
/// the meaning of the recorded launch geometry (abi/launch_record.h). Bump
/// it whenever any of these change.
///   1: bucket-sized buffers, grid from the templates' tiling at launch.
///   2: real m and row strides as arguments; geometry recorded with the code.
/// Ops without a template (rotate_quant_gemm) are in no artifact, so their
/// operand tables may change without a bump: a reader can only misread
/// arguments of kernels that were compiled.
constexpr int kKernelAbiVersion = 2;

/// Part of every cache key (runtime/cache/cache_key.h): a cached code object
/// is reused only if the templates that produced it are unchanged. Bump this
/// whenever any template's output (the gpu-stage IR of any spec) changes.
/// tests/unit/cache/test_template_revision.cpp holds golden hashes of that IR
/// for a few specs and fails when it changes while this number stays the
/// same; after bumping, regenerate them as that test's failure says.
constexpr int kTemplateRevision = 17;

} // namespace mxf

#endif // MXFORGE_ABI_VERSIONS_H
