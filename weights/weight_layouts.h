//===- weight_layouts.h - Prepared weights moved between layouts -*- C++ -*-===//
//
// Engines keep checkpoints in the layout they shard (plain codes [N, K/2],
// plain scales [N, K/32]) and shuffle at load time, after tensor-parallel
// splitting (docs/loaders.md). This moves quant_weight's outputs from the
// layouts they were written in to others: the result is byte for byte what
// quant_weight writes in the target layouts (the codes and scales are the
// same values; only their placement differs), so a checkpoint quantized
// plain and shuffled at load is the same as one quantized shuffled.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_WEIGHTS_WEIGHT_LAYOUTS_H
#define MXFORGE_WEIGHTS_WEIGHT_LAYOUTS_H

#include "numerics/formats.h"
#include "numerics/options.h"
#include "support/status.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mxf::weights {

/// Where quant_weight's codes and scales lie.
struct WeightPlacement {
  WeightLayout codes = WeightLayout::Plain;
  ScaleLayout scales = ScaleLayout::Plain;
};

struct PlacedWeights {
  std::vector<uint8_t> codes, scales;
};

/// The bytes of codes and scales of an [n, k] weight of `format` in
/// `placement` (what quant_weight writes); fails naming a shape or layout
/// that placement cannot hold.
Result<std::pair<size_t, size_t>> placedWeightBytes(size_t n, size_t k, ElemFormat format,
                                                    WeightPlacement placement);

/// Codes and scales of an [n, k] weight of `format`, moved from `from` to
/// `to`. The byte counts must be placedWeightBytes(from); errors name the
/// argument.
Result<PlacedWeights> relayoutWeights(size_t n, size_t k, ElemFormat format,
                                      WeightPlacement from, WeightPlacement to,
                                      const uint8_t *codes, size_t codeBytes,
                                      const uint8_t *scales, size_t scaleBytes);

} // namespace mxf::weights

#endif // MXFORGE_WEIGHTS_WEIGHT_LAYOUTS_H
