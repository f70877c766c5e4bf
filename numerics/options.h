//===- options.h - The choices a kernel's numerics depend on -----*- C++ -*-===//
//
// Enumerations shared by the reference (numerics/), the kernel spec (spec/)
// and, later, the templates: rotation kind, intermediate precision, rounding
// and layouts. Each has one spelling, used in specs and docs.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_NUMERICS_OPTIONS_H
#define MXFORGE_NUMERICS_OPTIONS_H

#include <cstdint>
#include <optional>
#include <string_view>

namespace mxf {

enum class RotationKind : uint8_t {
  None,              // RS = 0: plain round-to-nearest quantization
  Hadamard,          // x . H with H rounded to bf16, MFMA summation order
  HadamardButterfly, // x . H as an f32 butterfly (stages h = 1, 2, 4, ...)
  Learned,           // x . R, one bf16 RS x RS matrix given at launch
  LearnedPerBlock,   // x . R_b, one bf16 RS x RS matrix per rotation block
};

/// How a learned matrix is given: y = x . R with R[in][out] (vLLM, Quark,
/// the default), or y = x . R^T with R[out][in] (AITER's FlyDSL kernels'
/// default). The two are one computation on differently stored data.
enum class RotationConvention : uint8_t { XR, XRt };

/// Whether the rotated value is rounded to bf16 before it is quantized.
enum class Intermediate : uint8_t { F32, Bf16 };

/// Element rounding: nearest-even, or stochastic with the gfx950 PRNG.
/// Element rounding: to nearest even (the hardware converts), stochastic,
/// or AITER A6W6's half away from zero on the magnitude (fp6_e2m3 only:
/// numerics/a6w6.h encodeE2M3HalfAway).
enum class Rounding : uint8_t { Rne, Sr, Rna };

/// Layout of E8M0 scale matrices (and, for A6W6Tiles, of the codes too).
enum class ScaleLayout : uint8_t {
  Plain,       // row-major [rows, K/32]
  A4W4Shuffle, // AITER shuffle_scale for gemm_a4w4 (MX_LAYOUTS.md)
  /// AITER's A6W6 operand layout mxfp6_c0c1_256_padk2 (numerics/a6w6.h):
  /// codes *and* scales in 256-row x 128-K tiles with two K guard tiles.
  /// One layout of both, because AITER's GEMM reads them as one operand.
  A6W6Tiles,
};

/// Layout of packed weight codes.
enum class WeightLayout : uint8_t {
  Plain,           // row-major [N, packed bytes of K] (fp4: K/2, fp6: 3K/4)
  Preshuffle16x16, // AITER shuffle_weight, layout (16, 16); fp4 only
  W6A16Tile16x128, // fp6_e2m3 tiles of 16 rows x 128 K for the W6A16 GEMM
                   // (docs/layouts.md, numerics/layouts.h)
};

const char *rotationKindName(RotationKind kind);
std::optional<RotationKind> parseRotationKind(std::string_view name);
const char *rotationConventionName(RotationConvention convention); // xr, xrt
std::optional<RotationConvention> parseRotationConvention(std::string_view name);
const char *intermediateName(Intermediate inter);
std::optional<Intermediate> parseIntermediate(std::string_view name);
const char *roundingName(Rounding rounding);
std::optional<Rounding> parseRounding(std::string_view name);
const char *scaleLayoutName(ScaleLayout layout);
std::optional<ScaleLayout> parseScaleLayout(std::string_view name);
const char *weightLayoutName(WeightLayout layout);
std::optional<WeightLayout> parseWeightLayout(std::string_view name);

/// Rotation kinds that take a learned matrix at launch.
inline bool isLearned(RotationKind kind) {
  return kind == RotationKind::Learned || kind == RotationKind::LearnedPerBlock;
}

} // namespace mxf

#endif // MXFORGE_NUMERICS_OPTIONS_H
