//===- weight_layouts.cpp - Prepared weights moved between layouts --------===//

#include "weights/weight_layouts.h"

#include "numerics/layouts.h"
#include "numerics/packing.h"
#include "numerics/reference.h"

#include <string>

namespace mxf::weights {
namespace {

/// Whether `placement` can hold an [n, k] weight of `format`; the message
/// names the layout key.
Status checkPlacement(size_t n, size_t k, ElemFormat format, WeightPlacement placement) {
  if (n == 0 || k == 0 || k % kMxBlock != 0)
    return Status::failure("an [N, K] weight needs N > 0 and K a positive multiple of 32 (got N=" +
                           std::to_string(n) + ", K=" + std::to_string(k) + ")");
  if (placement.codes == WeightLayout::Preshuffle16x16 &&
      (format != ElemFormat::E2M1 || n % 16 != 0 || k % 64 != 0))
    return Status::failure("wlayout=preshuffle_16x16 holds fp4 weights with N % 16 == 0 and "
                           "K % 64 == 0");
  if (placement.codes == WeightLayout::W6A16Tile16x128) {
    if (format != ElemFormat::E2M3)
      return Status::failure("wlayout=w6a16_16x128 holds fp6_e2m3 weights");
    if (Status s = checkW6A16Args("wlayout=w6a16_16x128", n, k); !s.ok())
      return s;
  }
  if (placement.scales == ScaleLayout::A6W6Tiles)
    return Status::failure("layout=mxfp6_c0c1_256_padk2 is an activation layout (AITER's A6W6 "
                           "operand tiles), not one of quant_weight's scales");
  return Status::success();
}

Result<std::vector<uint8_t>> codesToPlain(WeightLayout layout, const uint8_t *codes, size_t n,
                                          size_t k, size_t rowBytes) {
  switch (layout) {
  case WeightLayout::Plain:
    return std::vector<uint8_t>(codes, codes + n * rowBytes);
  case WeightLayout::Preshuffle16x16:
    return unpreshuffleWeights16x16(codes, n, rowBytes);
  case WeightLayout::W6A16Tile16x128:
    return untileWeightsW6A16(codes, n, k);
  }
  return Result<std::vector<uint8_t>>::failure("unknown weight layout");
}

Result<std::vector<uint8_t>> codesFromPlain(WeightLayout layout, std::vector<uint8_t> plain,
                                            size_t n, size_t k, size_t rowBytes) {
  switch (layout) {
  case WeightLayout::Plain:
    return plain;
  case WeightLayout::Preshuffle16x16:
    return preshuffleWeights16x16(plain.data(), n, rowBytes);
  case WeightLayout::W6A16Tile16x128:
    return tileWeightsW6A16(plain.data(), n, k);
  }
  return Result<std::vector<uint8_t>>::failure("unknown weight layout");
}

} // namespace

Result<std::pair<size_t, size_t>> placedWeightBytes(size_t n, size_t k, ElemFormat format,
                                                    WeightPlacement placement) {
  if (Status s = checkPlacement(n, k, format, placement); !s.ok())
    return s;
  const size_t cols = k / kMxBlock;
  const size_t scaleBytes = placement.scales == ScaleLayout::A4W4Shuffle
                                ? [&] {
                                    ScaleShape shape = a4w4ShuffledShape(n, cols, kA4W4RowPadding);
                                    return shape.rows * shape.cols;
                                  }()
                                : n * cols;
  return std::pair<size_t, size_t>{n * packedBytes(format, k), scaleBytes};
}

Result<PlacedWeights> relayoutWeights(size_t n, size_t k, ElemFormat format, WeightPlacement from,
                                      WeightPlacement to, const uint8_t *codes, size_t codeBytes,
                                      const uint8_t *scales, size_t scaleBytes) {
  using R = Result<PlacedWeights>;
  Result<std::pair<size_t, size_t>> have = placedWeightBytes(n, k, format, from);
  if (!have.ok())
    return R::failure("the weights' layout: " + have.error());
  if (Status s = checkPlacement(n, k, format, to); !s.ok())
    return R::failure("the target layout: " + s.message());
  if (!codes || codeBytes != have.value().first)
    return R::failure("the codes are " + std::to_string(codeBytes) + " bytes; [" +
                      std::to_string(n) + ", " + std::to_string(k) + "] in wlayout=" +
                      weightLayoutName(from.codes) + " are " + std::to_string(have.value().first));
  if (!scales || scaleBytes != have.value().second)
    return R::failure("the scales are " + std::to_string(scaleBytes) + " bytes; [" +
                      std::to_string(n) + ", " + std::to_string(k / kMxBlock) + "] in layout=" +
                      scaleLayoutName(from.scales) +
                      " are " + std::to_string(have.value().second));
  const size_t rowBytes = packedBytes(format, k), cols = k / kMxBlock;
  Result<std::vector<uint8_t>> plainCodes = codesToPlain(from.codes, codes, n, k, rowBytes);
  if (!plainCodes.ok())
    return plainCodes.status();
  Result<std::vector<uint8_t>> placedCodes =
      codesFromPlain(to.codes, std::move(plainCodes.value()), n, k, rowBytes);
  if (!placedCodes.ok())
    return placedCodes.status();
  std::vector<uint8_t> plainScales =
      from.scales == ScaleLayout::A4W4Shuffle
          ? unshuffleScalesA4W4(scales, n, cols, kA4W4RowPadding)
          : std::vector<uint8_t>(scales, scales + n * cols);
  PlacedWeights out;
  out.codes = std::move(placedCodes.value());
  out.scales = to.scales == ScaleLayout::A4W4Shuffle
                   ? shuffleScalesA4W4(plainScales.data(), n, cols, kA4W4RowPadding)
                   : std::move(plainScales);
  return out;
}

} // namespace mxf::weights
