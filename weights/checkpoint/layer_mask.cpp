//===- layer_mask.cpp - Which layers of a checkpoint carry the rotation ---===//

#include "weights/checkpoint/layer_mask.h"

#include "arrays/npy.h"

#include <algorithm>

namespace mxf::weights {

std::vector<size_t> LayerMask::rotatedLayers() const {
  std::vector<size_t> layers;
  for (size_t i = 0; i < entries.size(); ++i)
    if (entries[i] != 0)
      layers.push_back(i);
  return layers;
}

Result<LayerMask> readLayerMask(const std::string &path) {
  using R = Result<LayerMask>;
  Result<arrays::NpyArray> array = arrays::readNpy(path);
  if (!array.ok())
    return R::failure("--layer-mask: " + array.error());
  const arrays::NpyArray &a = array.value();
  if (a.dtype() != arrays::NpyDType::I32 || a.shape.size() != 1 || a.shape[0] == 0)
    return R::failure("--layer-mask " + path +
                      ": a layer mask is int32 [layers] with at least one layer (what mxforge "
                      "calibrate --mask writes), got " +
                      arrays::describeArray(a.dtype(), a.shape));
  LayerMask mask{path, a.as<int32_t>()};
  for (size_t i = 0; i < mask.entries.size(); ++i)
    if (mask.entries[i] != 0 && mask.entries[i] != 1)
      return R::failure("--layer-mask " + path + ": entry " + std::to_string(i) + " is " +
                        std::to_string(mask.entries[i]) + "; entries are 1 (rotate) or 0");
  return mask;
}

std::optional<size_t> layerIndexOf(std::string_view name) {
  size_t start = 0;
  while (start <= name.size()) {
    const size_t dot = std::min(name.find('.', start), name.size());
    const std::string_view part = name.substr(start, dot - start);
    // At most 9 digits: an index, not a hash or a date someone put in a name.
    if (!part.empty() && part.size() <= 9 &&
        std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return size_t(std::stoul(std::string(part)));
    start = dot + 1;
  }
  return std::nullopt;
}

bool naturalNameLess(std::string_view a, std::string_view b) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      // Compare the runs as numbers: leading zeros skipped, then length,
      // then digits; equal numbers of different spelling fall through to
      // the rest of the names.
      size_t ai = i, bj = j;
      while (ai < a.size() && a[ai] == '0')
        ++ai;
      while (bj < b.size() && b[bj] == '0')
        ++bj;
      size_t ae = ai, be = bj;
      while (ae < a.size() && digit(a[ae]))
        ++ae;
      while (be < b.size() && digit(b[be]))
        ++be;
      if (ae - ai != be - bj)
        return ae - ai < be - bj;
      if (int c = a.substr(ai, ae - ai).compare(b.substr(bj, be - bj)); c != 0)
        return c < 0;
      i = ae;
      j = be;
      continue;
    }
    if (a[i] != b[j])
      return (unsigned char)a[i] < (unsigned char)b[j];
    ++i;
    ++j;
  }
  if (a.size() - i != b.size() - j)
    return a.size() - i < b.size() - j;
  return a < b; // the same numbers spelled differently ("01", "1"): a fixed order
}

size_t modelLayerCount(const std::vector<std::string> &tensorNames) {
  size_t layers = 0;
  for (const std::string &name : tensorNames)
    if (std::optional<size_t> layer = layerIndexOf(name))
      layers = std::max(layers, *layer + 1);
  return layers;
}

Status checkMaskFitsModel(const LayerMask &mask, size_t modelLayers) {
  if (modelLayers == 0)
    return Status::failure("--layer-mask " + mask.path +
                           ": no tensor name of the checkpoint has a layer index (a number "
                           "between dots, as in model.layers.7.)");
  if (mask.entries.size() != modelLayers)
    return Status::failure("--layer-mask " + mask.path + " has " +
                           std::to_string(mask.entries.size()) +
                           " entries; the checkpoint's tensor names have layers 0.." +
                           std::to_string(modelLayers - 1) + " (" + std::to_string(modelLayers) +
                           "): a mask of another model?");
  return Status::success();
}

} // namespace mxf::weights
