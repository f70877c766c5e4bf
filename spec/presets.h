//===- presets.h - Ready kernel sets for known models --------------*- C++ -*-===//
//
// `mxforge bundle --preset NAME` and the C API compile these. A preset is a
// model's shapes (presets.cpp, from its published config) and, from each op
// in families.def order, the kernels that op contributes for those shapes
// (OpDeclaration::presetSpecs, in the op's folder):
//  - rotate_quant: every activation width K that feeds an MXFP4 GEMM, RS=64
//    Hadamard, every M bucket 1..256, scale rules `even` (OCP) and `rceil`
//    (AITER);
//  - rotate_quant_moe, for a MoE model: its expert layers (stage 1: the
//    up/gate input, stage 2: the down input), AITER's RCEIL with shuffled
//    scales and block 32, every M bucket;
//  - rotate_quant_gemm, where the model lists its dense layers' weights
//    (Qwen3-8B, Qwen3-32B): their decode GEMMs (buckets up to
//    kDecodeGemmMaxBucket, AITER's weight layouts).
// A new op joins every preset from its own folder.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_SPEC_PRESETS_H
#define MXFORGE_SPEC_PRESETS_H

#include "support/status.h"
#include "spec/kernel_spec.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mxf {

/// The largest M bucket a preset's GEMMs are listed for: decode, where a
/// linear layer's time is reading its weights.
constexpr int kDecodeGemmMaxBucket = 32;

/// What a preset knows of its model, for the ops' contributions.
struct ModelShapes {
  /// Every activation width K that feeds an MXFP4 GEMM.
  std::vector<int> activationWidths;
  /// The hidden size: the width the residual stream and its norms have.
  int hidden = 0;
  /// MoE layers (experts == 0: a dense model).
  int experts = 0, topk = 0, expertIntermediate = 0;
  /// The dense layers' weights (N, K) listed for the fused decode GEMM.
  std::vector<std::pair<int, int>> decodeGemms;
};

/// A preset kernel of `op` before its op's own keys: the rotation every
/// preset uses (RS=64 Hadamard, the size and kind QuaRot-style MXFP4 recipes
/// deploy) and MXFP4 codes. The ops' contributions start from it.
KernelSpec presetSpec(KernelOp op);

struct SpecPreset {
  std::string name;        // e.g. "qwen3-8b"
  std::string description; // the model and the widths covered
  std::string note;        // what is left out and why (may be empty)
  ModelShapes shapes;
  std::vector<KernelSpec> specs; // every op's contribution, in families.def order
};

/// Every preset, in a stable order.
const std::vector<SpecPreset> &specPresets();
/// The preset `name`, or an error listing the known names.
Result<SpecPreset> findSpecPreset(std::string_view name);

} // namespace mxf

#endif // MXFORGE_SPEC_PRESETS_H
