//===- presets.h - Ready kernel sets for known models --------------*- C++ -*-===//
//
// `mxforge bundle --preset NAME` and the C API compile these. Each preset is
// the fused rotate+quant kernels one model's decode and prefill need: every
// activation width K that feeds an MXFP4 GEMM, RS=64 Hadamard, every M
// bucket 1..256, scale rules `even` (OCP) and `rceil` (AITER); for a MoE
// model also the rotate_quant_moe kernels of its expert layers (stage 1: the
// up/gate input, stage 2: the down input), AITER's RCEIL with shuffled
// scales and block 32, every M bucket; for Qwen3-8B and Qwen3-32B also the
// decode rotate_quant_gemm of every dense layer (buckets up to
// kDecodeGemmMaxBucket, AITER's weight layouts).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_SPEC_PRESETS_H
#define MXFORGE_SPEC_PRESETS_H

#include "support/status.h"
#include "spec/kernel_spec.h"

#include <string>
#include <string_view>
#include <vector>

namespace mxf {

/// The largest M bucket a preset's GEMMs are listed for: decode, where a
/// linear layer's time is reading its weights.
constexpr int kDecodeGemmMaxBucket = 32;

struct SpecPreset {
  std::string name;        // e.g. "qwen3-8b"
  std::string description; // the model and the widths covered
  std::string note;        // what is left out and why (may be empty)
  std::vector<KernelSpec> specs;
};

/// Every preset, in a stable order.
const std::vector<SpecPreset> &specPresets();
/// The preset `name`, or an error listing the known names.
Result<SpecPreset> findSpecPreset(std::string_view name);

} // namespace mxf

#endif // MXFORGE_SPEC_PRESETS_H
