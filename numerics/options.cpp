//===- options.cpp - Spellings of the numerics options --------------------===//

#include "numerics/options.h"

namespace mxf {
namespace {

template <typename Enum, size_t N>
std::optional<Enum> lookup(const std::pair<Enum, const char *> (&table)[N],
                           std::string_view name) {
  for (const auto &[value, spelling] : table)
    if (name == spelling)
      return value;
  return std::nullopt;
}

template <typename Enum, size_t N>
const char *spell(const std::pair<Enum, const char *> (&table)[N], Enum value) {
  for (const auto &[candidate, spelling] : table)
    if (candidate == value)
      return spelling;
  return "?";
}

const std::pair<RotationKind, const char *> kRotationNames[] = {
    {RotationKind::None, "none"},
    {RotationKind::Hadamard, "hadamard"},
    {RotationKind::HadamardButterfly, "hadamard_butterfly"},
    {RotationKind::Learned, "learned"},
    {RotationKind::LearnedPerBlock, "learned_per_block"},
};
const std::pair<RotationConvention, const char *> kRotationConventionNames[] = {
    {RotationConvention::XR, "xr"}, {RotationConvention::XRt, "xrt"}};
const std::pair<Intermediate, const char *> kIntermediateNames[] = {
    {Intermediate::F32, "f32"}, {Intermediate::Bf16, "bf16"}};
const std::pair<Rounding, const char *> kRoundingNames[] = {
    {Rounding::Rne, "rne"}, {Rounding::Sr, "sr"}, {Rounding::Rna, "rna"}};
const std::pair<ScaleLayout, const char *> kScaleLayoutNames[] = {
    {ScaleLayout::Plain, "plain"},
    {ScaleLayout::A4W4Shuffle, "a4w4_shuffle"},
    {ScaleLayout::A6W6Tiles, "mxfp6_c0c1_256_padk2"}};
const std::pair<WeightLayout, const char *> kWeightLayoutNames[] = {
    {WeightLayout::Plain, "plain"},
    {WeightLayout::Preshuffle16x16, "preshuffle_16x16"},
    {WeightLayout::W6A16Tile16x128, "w6a16_16x128"},
};

} // namespace

const char *rotationKindName(RotationKind kind) { return spell(kRotationNames, kind); }
std::optional<RotationKind> parseRotationKind(std::string_view name) {
  return lookup(kRotationNames, name);
}
const char *rotationConventionName(RotationConvention convention) {
  return spell(kRotationConventionNames, convention);
}
std::optional<RotationConvention> parseRotationConvention(std::string_view name) {
  return lookup(kRotationConventionNames, name);
}
const char *intermediateName(Intermediate inter) { return spell(kIntermediateNames, inter); }
std::optional<Intermediate> parseIntermediate(std::string_view name) {
  return lookup(kIntermediateNames, name);
}
const char *roundingName(Rounding rounding) { return spell(kRoundingNames, rounding); }
std::optional<Rounding> parseRounding(std::string_view name) {
  return lookup(kRoundingNames, name);
}
const char *scaleLayoutName(ScaleLayout layout) { return spell(kScaleLayoutNames, layout); }
std::optional<ScaleLayout> parseScaleLayout(std::string_view name) {
  return lookup(kScaleLayoutNames, name);
}
const char *weightLayoutName(WeightLayout layout) { return spell(kWeightLayoutNames, layout); }
std::optional<WeightLayout> parseWeightLayout(std::string_view name) {
  return lookup(kWeightLayoutNames, name);
}

} // namespace mxf
