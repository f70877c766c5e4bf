//===- quantize_config.cpp - config.json for a quantized checkpoint -------===//
//
// The keys and values below are the ones vLLM's QuarkConfig reads
// (from_config: `export.kv_cache_group`, `export.pack_method`,
// `layer_quant_config`, `layer_type_quant_config`, `exclude`,
// `global_quant_config`; _is_mx_fp4 / _is_w_ocp_mx_a_x: weight and input
// `dtype`, `qscheme` per_group, `group_size` 32, `scale_format` e8m0,
// weight `is_dynamic` false, input `is_dynamic` true), laid out as Quark's
// own exports are; docs/weights.md cites the sources.
//
//===----------------------------------------------------------------------===//

#include "weights/checkpoint/quantized_config.h"

#include "numerics/formats.h"
#include "numerics/quantize.h"
#include "numerics/scale_rules.h"
#include "support/version.h"

namespace mxf::weights {
namespace {

using json::Value;

Value null() { return Value(); }
Value boolean(bool b) {
  Value v;
  v.kind = Value::Kind::Bool;
  v.boolean = b;
  return v;
}
Value number(const std::string &literal) {
  Value v;
  v.kind = Value::Kind::Number;
  v.text = literal;
  return v;
}
Value number(long long n) { return number(std::to_string(n)); }
Value string(const std::string &s) {
  Value v;
  v.kind = Value::Kind::String;
  v.text = s;
  return v;
}
Value object(std::vector<std::pair<std::string, Value>> members) {
  Value v;
  v.kind = Value::Kind::Object;
  v.members = std::move(members);
  return v;
}
Value array(const std::vector<std::string> &strings) {
  Value v;
  v.kind = Value::Kind::Array;
  for (const std::string &s : strings)
    v.items.push_back(string(s));
  return v;
}

/// Quark's `scale_calculation_mode` for the rules it has a name for; the
/// others are mxforge's own and are recorded in mxforge_quantization.
Value quarkScaleMode(ScaleRule rule) {
  switch (rule) {
  case ScaleRule::Even:
    return string("even");
  case ScaleRule::Floor:
    return string("floor");
  case ScaleRule::Ceil:
    return string("ceil");
  default:
    return null();
  }
}

/// One Quark tensor spec of an OCP MX format (`dtype` fp4 or fp6_e2m3).
Value mxTensorSpec(const std::string &dtype, bool dynamic, Value scaleMode, Value roundMethod) {
  return object({{"dtype", string(dtype)},
                 {"is_dynamic", boolean(dynamic)},
                 {"qscheme", string("per_group")},
                 {"ch_axis", number(-1)},
                 {"group_size", number(kMxBlock)},
                 {"symmetric", null()},
                 {"round_method", std::move(roundMethod)},
                 {"scale_type", string("float")},
                 {"scale_format", string("e8m0")},
                 {"scale_calculation_mode", std::move(scaleMode)},
                 {"mx_element_dtype", null()},
                 {"observer_cls", string("PerBlockMXObserver")},
                 {"is_scale_quant", boolean(false)}});
}

void setMember(Value &object, const std::string &key, Value value) {
  for (auto &[name, member] : object.members)
    if (name == key) {
      member = std::move(value);
      return;
    }
  object.members.emplace_back(key, std::move(value));
}

void appendPretty(const Value &value, int depth, std::string &out) {
  const std::string indent(size_t(2 * (depth + 1)), ' '), closing(size_t(2 * depth), ' ');
  if (value.isObject() && !value.members.empty()) {
    out += "{\n";
    for (size_t i = 0; i < value.members.size(); ++i) {
      out += indent + json::quote(value.members[i].first) + ": ";
      appendPretty(value.members[i].second, depth + 1, out);
      out += i + 1 < value.members.size() ? ",\n" : "\n";
    }
    out += closing + "}";
  } else if (value.isArray() && !value.items.empty()) {
    out += "[\n";
    for (size_t i = 0; i < value.items.size(); ++i) {
      out += indent;
      appendPretty(value.items[i], depth + 1, out);
      out += i + 1 < value.items.size() ? ",\n" : "\n";
    }
    out += closing + "]";
  } else {
    out += json::serialize(value); // scalars, {} and []
  }
}

} // namespace

std::vector<std::string> reasonsItNeedsMxforge(const QuantizedCheckpointFacts &facts) {
  const KernelSpec &spec = facts.spec;
  std::vector<std::string> reasons;
  // Neither loader applies an online rotation (vLLM's QuarkConfig never
  // reads algo_config; SGLang has none), so x.(W.R)^T would be computed.
  if (facts.rotatedTensors > 0)
    reasons.push_back("the weights of " + std::to_string(facts.rotatedTensors) +
                      " tensor(s) are stored rotated (W.R, rot=" + rotationKindName(spec.rot) +
                      ", RS=" + std::to_string(spec.RS) +
                      "): the activations must be rotated by the same R, which stock loaders "
                      "do not do");
  // Both load [N, K/2] codes and [N, K/32] scales unshuffled, split them
  // for tensor parallelism and shuffle at load time themselves.
  if (spec.wlayout != WeightLayout::Plain)
    reasons.push_back(std::string("wlayout=") + weightLayoutName(spec.wlayout) +
                      ": the codes are stored permuted; stock loaders read them plain and shard "
                      "and shuffle them at load");
  if (spec.layout != ScaleLayout::Plain)
    reasons.push_back(std::string("layout=") + scaleLayoutName(spec.layout) +
                      ": the scales are stored padded and shuffled; stock loaders read plain "
                      "[N, K/32] scales");
  // W6A16: SGLang has no MXFP6 scheme, and vLLM's runs only in emulation,
  // through the amd-quark package, whose fp6 packing changed between
  // versions; our GEMM keeps bf16 activations, which the Quark config
  // cannot say in a form every vLLM version reads.
  if (formatInfo(spec.fmt).bits != 4)
    reasons.push_back(std::string("fmt=") + formatInfo(spec.fmt).specName +
                      ": SGLang has no MXFP6 scheme and vLLM emulates it through amd-quark, "
                      "whose fp6 packing differs between versions");
  return reasons;
}

Value quarkQuantizationConfig(const QuantizedCheckpointFacts &facts) {
  const KernelSpec &spec = facts.spec;
  const bool fp4 = spec.fmt == ElemFormat::E2M1;
  Value weight = mxTensorSpec(formatInfo(spec.fmt).specName, /*dynamic=*/false,
                              quarkScaleMode(spec.scale),
                              spec.round == Rounding::Rne ? string("half_even") : null());
  // A4W4: the engine quantizes activations at run time, as AITER's
  // dynamic_mxfp4_quant does (the EVEN rule). W6A16 keeps bf16 activations,
  // which Quark writes as no input spec.
  Value input = fp4 ? mxTensorSpec("fp4", /*dynamic=*/true, string("even"), string("half_even"))
                    : null();
  // A checkpoint a stock loader would misread is marked with a method no
  // stock loader knows: vLLM and SGLang refuse it naming it ("Unknown
  // quantization method"), instead of loading it and computing garbage.
  // mxforge's loader reads the rest, which keeps Quark's form.
  const bool standard = reasonsItNeedsMxforge(facts).empty();
  return object({
      {"quant_method", string(standard ? "quark" : "mxforge")},
      {"quant_mode", string("eager_mode")},
      {"global_quant_config", object({{"weight", std::move(weight)},
                                      {"input_tensors", std::move(input)},
                                      {"output_tensors", null()},
                                      {"bias", null()},
                                      {"target_device", null()}})},
      {"layer_quant_config", object({})},
      {"layer_type_quant_config", object({})},
      {"kv_cache_quant_config", object({})},
      {"exclude", array(facts.exclude)},
      {"algo_config", null()},
      {"export", object({{"kv_cache_group", array({})},
                         {"min_kv_scale", number("0.0")},
                         {"pack_method", string("reorder")},
                         {"weight_format", string("real_quantized")},
                         {"weight_merge_groups", null()}})},
  });
}

Value mxforgeQuantizationRecord(const QuantizedCheckpointFacts &facts) {
  const KernelSpec &spec = facts.spec;
  // What loaders cannot infer: W is stored as W.R, so activations must be
  // rotated by the same R (x.R).(W.R)^T = x.W^T; and the byte layouts.
  // With a layer mask, only the layers it marks carry W.R; the tensors of
  // the others are quantized without it (their spec in the safetensors
  // metadata, mxforge.spec.<name>, says RS=0).
  const char *appliedTo = spec.RS == 0 ? "nothing (RS=0)"
                          : facts.layerMask
                              ? "each block of RS input channels of every quantized weight of "
                                "the layers layer_mask.rotated_layers lists: W.R; the others' "
                                "weights are not rotated"
                              : "each block of RS input channels of every quantized weight: W.R";
  Value rotation = object({{"rot", string(rotationKindName(spec.rot))},
                           {"RS", number(spec.RS)},
                           {"matrix", facts.rotationFile ? string(*facts.rotationFile) : null()},
                           {"applied_to", string(appliedTo)}});
  Value layerMask = null();
  if (facts.layerMask) {
    Value rotated;
    rotated.kind = Value::Kind::Array;
    for (size_t layer : facts.layerMask->rotatedLayers())
      rotated.items.push_back(number((long long)layer));
    layerMask = object({{"file", string(facts.layerMask->path)},
                        {"layers", number((long long)facts.layerMask->entries.size())},
                        {"rotated_layers", std::move(rotated)}});
  }
  const bool quarkLayouts =
      spec.wlayout == WeightLayout::Plain && spec.layout == ScaleLayout::Plain;
  return object({{"version", string(mxforgeVersion())},
                 {"spec", string(facts.specText)},
                 {"format", string(formatInfo(spec.fmt).specName)},
                 {"scale_rule", string(scaleRuleName(spec.scale))},
                 {"rounding", string(roundingName(spec.round))},
                 {"rotation", std::move(rotation)},
                 {"layer_mask", std::move(layerMask)},
                 {"weight_layout", string(weightLayoutName(spec.wlayout))},
                 {"scale_layout", string(scaleLayoutName(spec.layout))},
                 {"plain_quark_layout", boolean(quarkLayouts)},
                 {"standard_quark", boolean(reasonsItNeedsMxforge(facts).empty())},
                 {"needs_mxforge", array(reasonsItNeedsMxforge(facts))},
                 {"quantized_tensors", number((long long)facts.quantizedTensors)}});
}

std::string quantizedModelConfig(const std::optional<Value> &input,
                                 const QuantizedCheckpointFacts &facts) {
  Value config = input ? *input : object({});
  setMember(config, "quantization_config", quarkQuantizationConfig(facts));
  setMember(config, "mxforge_quantization", mxforgeQuantizationRecord(facts));
  return prettyJson(config) + "\n";
}

std::string prettyJson(const Value &value) {
  std::string out;
  appendPretty(value, 0, out);
  return out;
}

} // namespace mxf::weights
