//===- presets.cpp - Ready kernel sets for known models -------------------===//
//
// Widths from the models' published configs (hidden size, attention output
// = heads x head_dim, MLP intermediate size):
//   Qwen3-8B:      hidden 4096, 32 x 128 = 4096, intermediate 12288
//   Qwen3-32B:     hidden 5120, 64 x 128 = 8192, intermediate 25600
//   Qwen3-30B-A3B: hidden 2048, 32 x 128 = 4096, experts' intermediate 768
//
//===----------------------------------------------------------------------===//

#include "spec/presets.h"

#include "spec/buckets.h"

namespace mxf {
namespace {

std::vector<KernelSpec> denseRotateQuantSet(const std::vector<int> &widths) {
  std::vector<KernelSpec> specs;
  for (int k : widths)
    for (ScaleRule rule : {ScaleRule::Even, ScaleRule::Rceil})
      for (int bucket : kMBuckets) {
        KernelSpec spec;
        spec.op = KernelOp::RotateQuant;
        spec.K = k;
        spec.RS = 64;
        spec.rot = RotationKind::Hadamard;
        spec.M = bucket;
        spec.fmt = ElemFormat::E2M1;
        spec.scale = rule;
        specs.push_back(spec);
      }
  return specs;
}

std::vector<SpecPreset> buildPresets() {
  return {
      {"qwen3-8b", "Qwen3-8B: K=4096 (q/k/v, gate/up, o_proj inputs) and K=12288 (down_proj)",
       "", denseRotateQuantSet({4096, 12288})},
      {"qwen3-32b",
       "Qwen3-32B: K=5120 (q/k/v, gate/up inputs), K=8192 (o_proj) and K=25600 (down_proj)",
       "", denseRotateQuantSet({5120, 8192, 25600})},
      {"qwen3-30b-a3b",
       "Qwen3-30B-A3B: K=2048 (q/k/v, router and expert inputs) and K=4096 (o_proj)",
       "the experts' rotate_quant_moe kernels come with the MoE template",
       denseRotateQuantSet({2048, 4096})},
  };
}

} // namespace

const std::vector<SpecPreset> &specPresets() {
  static const std::vector<SpecPreset> presets = buildPresets();
  return presets;
}

Result<SpecPreset> findSpecPreset(std::string_view name) {
  std::string known;
  for (const SpecPreset &preset : specPresets()) {
    if (preset.name == name)
      return preset;
    known += (known.empty() ? "" : ", ") + preset.name;
  }
  return Result<SpecPreset>::failure("unknown preset '" + std::string(name) + "'; known: " +
                                     known);
}

} // namespace mxf
