//===- layer_mask.h - Which layers of a checkpoint carry the rotation -*- C++ -*-===//
//
// Selective rotation's weight side (`mxforge quantize --layer-mask`): the
// mask `mxforge calibrate` writes (int32 [layers], 1 = rotate) decides, per
// tensor, whether its weights are quantized with the spec's rotation or
// without one (the same spec at RS=0, numerics' selectedSpec), so that a
// selective kernel launched with the same mask and the tensor's layer index
// pairs rotated activations with rotated weights and plain with plain.
//
// A tensor's layer is the first dot-separated part of its name that is a
// decimal number: `model.layers.7.mlp.experts.3.down_proj.weight` is layer
// 7, `transformer.h.12.attn.c_proj.weight` layer 12. The model's layer
// count is one more than the largest index among all its tensors' names,
// and the mask must have exactly that many entries: a mask of another
// model, or one cut short, is refused instead of read past or half used.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_WEIGHTS_CHECKPOINT_LAYER_MASK_H
#define MXFORGE_WEIGHTS_CHECKPOINT_LAYER_MASK_H

#include "support/status.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mxf::weights {

struct LayerMask {
  std::string path;             // as given (--layer-mask)
  std::vector<int32_t> entries; // one per layer, 0 or 1
  bool rotates(size_t layer) const { return entries.at(layer) != 0; }
  /// The layers that rotate, ascending.
  std::vector<size_t> rotatedLayers() const;
};

/// Reads a mask: a .npy of int32 [layers] (at least one), every entry 0 or
/// 1. Errors name the file and what is wrong with it.
Result<LayerMask> readLayerMask(const std::string &path);

/// The layer index in a tensor's name (see above), or none.
std::optional<size_t> layerIndexOf(std::string_view tensorName);

/// The order `mxforge calibrate` lists layers in, so that a mask's entry i
/// is layer i: names compared part by part, a run of digits by its number
/// ("layers.2" before "layers.10"), anything else byte by byte.
bool naturalNameLess(std::string_view a, std::string_view b);

/// The model's layer count from all its tensor names (0 when none has a
/// layer index), and whether `mask` has exactly that many entries.
size_t modelLayerCount(const std::vector<std::string> &tensorNames);
Status checkMaskFitsModel(const LayerMask &mask, size_t modelLayers);

} // namespace mxf::weights

#endif // MXFORGE_WEIGHTS_CHECKPOINT_LAYER_MASK_H
