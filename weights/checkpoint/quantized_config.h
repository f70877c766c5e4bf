//===- quantize_config.h - config.json for a quantized checkpoint -*- C++ -*-===//
//
// `mxforge quantize` writes the model config that loaders read beside the
// tensors: `quantization_config` in the form Quark exports and vLLM's and
// SGLang's Quark loaders check (docs/weights.md lists the keys and where
// they come from), and `mxforge_quantization`, our own record of what the
// loaders cannot know: the rotation the weights carry, the layouts, the
// spec and the mxforge version.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_WEIGHTS_CHECKPOINT_QUANTIZED_CONFIG_H
#define MXFORGE_WEIGHTS_CHECKPOINT_QUANTIZED_CONFIG_H

#include "spec/kernel_spec.h"
#include "weights/checkpoint/layer_mask.h"
#include "support/json.h"

#include <optional>
#include <string>
#include <vector>

namespace mxf::weights {

struct QuantizedCheckpointFacts {
  KernelSpec spec;         // the user's spec (its K and N are placeholders)
  std::string specText;    // as the user wrote it (without K and N)
  std::optional<std::string> rotationFile;
  std::optional<LayerMask> layerMask; // --layer-mask: the layers without the rotation
  std::vector<std::string> exclude; // modules (names less ".weight") left in their dtype
  size_t quantizedTensors = 0;
  size_t rotatedTensors = 0; // quantized with RS > 0 (all of them without a layer mask)
};

/// Why a stock Quark loader (vLLM's, SGLang's; docs/loaders.md) would
/// compute wrong outputs from this checkpoint, one reason each: empty when
/// it runs the checkpoint as mxforge does. A checkpoint with reasons is
/// marked `quant_method: "mxforge"`, which both loaders refuse by name.
std::vector<std::string> reasonsItNeedsMxforge(const QuantizedCheckpointFacts &facts);

/// `quantization_config` as Quark exports an MXFP4 (or MXFP6 E2M3) model.
json::Value quarkQuantizationConfig(const QuantizedCheckpointFacts &facts);

/// `mxforge_quantization`: rotation, layouts, spec, version.
json::Value mxforgeQuantizationRecord(const QuantizedCheckpointFacts &facts);

/// The output config.json text: `input` (a model config, an object) with
/// `quantization_config` and `mxforge_quantization` replaced in place or
/// appended, every other member kept as it was (numbers keep their
/// literals); without an input, an object of those two members alone.
std::string quantizedModelConfig(const std::optional<json::Value> &input,
                                 const QuantizedCheckpointFacts &facts);

/// `value` as indented JSON (two spaces), as config.json files are written.
std::string prettyJson(const json::Value &value);

} // namespace mxf::weights

#endif // MXFORGE_WEIGHTS_CHECKPOINT_QUANTIZED_CONFIG_H
