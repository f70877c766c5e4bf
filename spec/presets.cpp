//===- presets.cpp - Ready kernel sets for known models -------------------===//
//
// Widths from the models' published configs (hidden size, attention output
// = heads x head_dim, MLP intermediate size):
//   Qwen3-8B:      hidden 4096, 32 x 128 = 4096, intermediate 12288
//   Qwen3-32B:     hidden 5120, 64 x 128 = 8192, intermediate 25600
//   Qwen3-30B-A3B: hidden 2048, 32 x 128 = 4096, experts' intermediate 768,
//                  128 experts, top-8
//   DeepSeek-V3:   hidden 7168, q_lora 1536, kv_lora 512, 128 x 128 = 16384
//                  (o_proj), dense intermediate 18432 (first 3 layers),
//                  experts' intermediate 2048, 256 routed experts, top-8
//
//===----------------------------------------------------------------------===//

#include "spec/presets.h"

#include "spec/op_declaration.h"

#include <utility>

namespace mxf {
namespace {

SpecPreset preset(std::string name, std::string description, std::string note,
                  ModelShapes shapes) {
  SpecPreset made{std::move(name), std::move(description), std::move(note), std::move(shapes),
                  {}};
  for (KernelOp op : kAllKernelOps)
    if (const OpDeclaration *declaration = opDeclaration(op); declaration->presetSpecs)
      declaration->presetSpecs(made.shapes, made.specs);
  return made;
}

std::vector<SpecPreset> buildPresets() {
  return {
      preset("qwen3-8b",
             "Qwen3-8B: K=4096 (q/k/v, gate/up, o_proj inputs) and K=12288 (down_proj); the "
             "decode rotate_quant_gemm of qkv 6144x4096, o 4096x4096, gate_up 24576x4096, down "
             "4096x12288",
             "",
             {{4096, 12288}, 4096, 0, 0, 0,
              {{6144, 4096}, {4096, 4096}, {24576, 4096}, {4096, 12288}}}),
      preset("qwen3-32b",
             "Qwen3-32B: K=5120 (q/k/v, gate/up inputs), K=8192 (o_proj) and K=25600 "
             "(down_proj); the decode rotate_quant_gemm of qkv 10240x5120, o 5120x8192, gate_up "
             "51200x5120, down 5120x25600",
             "",
             {{5120, 8192, 25600}, 5120, 0, 0, 0,
              {{10240, 5120}, {5120, 8192}, {51200, 5120}, {5120, 25600}}}),
      preset("qwen3-30b-a3b",
             "Qwen3-30B-A3B: K=2048 (q/k/v, router inputs) and K=4096 (o_proj); the experts' "
             "rotate_quant_moe (E=128, top-8): K=2048 stage 1, K=768 stage 2",
             "", {{2048, 4096}, 2048, 128, 8, 768, {}}),
      preset("deepseek-v3",
             "DeepSeek-V3: K=7168 (q_a/kv_a, dense MLP inputs), 1536 (q_b), 512 (kv_b), 16384 "
             "(o_proj), 18432 (dense down_proj), 2048 (the shared expert's down_proj); the "
             "experts' rotate_quant_moe (E=256, top-8): K=7168 stage 1, K=2048 stage 2",
             "the shared expert runs as a dense layer (its inputs are K=7168 and K=2048)",
             {{7168, 1536, 512, 16384, 18432, 2048}, 7168, 256, 8, 2048, {}}),
  };
}

} // namespace

KernelSpec presetSpec(KernelOp op) {
  KernelSpec spec;
  spec.op = op;
  spec.RS = 64;
  spec.rot = RotationKind::Hadamard;
  spec.fmt = ElemFormat::E2M1;
  return spec;
}

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
