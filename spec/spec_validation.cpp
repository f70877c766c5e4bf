//===- spec_validation.cpp - The rules a kernel spec must follow -----------===//
//
// validateSpec: every rule of docs/spec.md beyond syntax. parseSpec calls it
// after filling defaults; code that builds a KernelSpec field by field calls
// it directly. Each rejection is one line of the form
//   `key=value: what is wrong and what would be valid`
// so that a user sees which key to change and to what.
//
//===----------------------------------------------------------------------===//

#include "spec/buckets.h"
#include "spec/kernel_spec.h"

#include "spec/key_table.h"
#include "spec/op_declaration.h"
#include "spec/spec_keys.h"

namespace mxf {
namespace {

using spec_detail::SpecKey;

// The bounds of docs/spec.md.
constexpr int kMinK = 32, kMaxK = 65536, kKMultiple = 32;
constexpr int kValidRS[] = {0, 32, 64, 128, 256};
constexpr int kMinN = 16, kMaxN = 1048576, kNMultiple = 16;
// Preshuffle16x16 tiles K in 64-element steps (32 bytes of fp4 per lane row).
constexpr int kPreshuffleKMultiple = 64;
// W6A16 tiles are 16 rows x 128 K (four scale blocks per lane group).
constexpr int kW6A16KMultiple = 128;

/// "key=value" as printSpec would write it (arch escaped: it is free text).
std::string keyValue(const KernelSpec &spec, SpecKey key) {
  std::string out = spec_detail::specKeyName(key);
  out += '=';
  if (key == SpecKey::Arch)
    out += spec_detail::escaped(spec.arch);
  else
    spec_detail::appendSpecValue(out, spec, key);
  return out;
}


/// Enum fields of a spec built in code may hold any byte; reject those before
/// anything else looks at them.
Status checkEnumRanges(const KernelSpec &spec) {
  auto bad = [&](SpecKey key, unsigned code) {
    return Status::failure(std::string(spec_detail::specKeyName(key)) + "=?: enum code " +
                           std::to_string(code) + " is not a value of " +
                           spec_detail::specKeyName(key) + "; " + spec_detail::specKeyName(key) +
                           " must be one of " + spec_detail::joinedValues(key));
  };
  for (size_t i = 0; i < spec_detail::kNumSpecKeys; ++i) {
    const spec_detail::KeyDeclaration &key = spec_detail::keyDeclaration(SpecKey(i));
    if (key.holdsEnumValue && !key.holdsEnumValue(spec))
      return bad(key.key, key.enumCode(spec));
  }
  return Status::success();
}

Status checkShapesAndRotation(const KernelSpec &spec) {
  if (spec.K < kMinK || spec.K > kMaxK || spec.K % kKMultiple != 0)
    return specKeyFailure(spec, SpecKey::K,
                "K must be a multiple of 32 in " + std::to_string(kMinK) + ".." +
                    std::to_string(kMaxK));
  if (!isOneOf(kValidRS, spec.RS))
    return specKeyFailure(spec, SpecKey::RS, "RS must be one of " + joinedNumbers(kValidRS));
  if (spec.RS == 0 && spec.rot != RotationKind::None)
    return specKeyFailure(spec, SpecKey::Rot,
                "RS=0 (no rotation) requires rot=none; set RS to 32, 64, 128 or 256 to rotate");
  if (spec.RS > 0 && spec.rot == RotationKind::None)
    return specKeyFailure(spec, SpecKey::Rot,
                "RS=" + std::to_string(spec.RS) +
                    " needs a rotation: rot must be one of hadamard, hadamard_butterfly, "
                    "learned, learned_per_block (or set RS=0 for no rotation)");
  if (spec.RS > 0 && spec.K % spec.RS != 0)
    return specKeyFailure(spec, SpecKey::K, "K must be a multiple of RS=" + std::to_string(spec.RS));
  if (spec_detail::opHasKey(spec.op, SpecKey::M) && !isOneOf(kMBuckets, spec.M))
    return specKeyFailure(spec, SpecKey::M, "M must be one of " + joinedNumbers(kMBuckets));
  return Status::success();
}

// A mask longer than any model's layer count is a typo; the bound keeps the
// mask operand's bytes small.
constexpr int kMaxLayers = 65536;

Status checkSelection(const KernelSpec &spec) {
  if (spec.select == RotationSelect::Mask && (spec.layers < 1 || spec.layers > kMaxLayers))
    return specKeyFailure(spec, SpecKey::Layers,
                "select=mask needs layers=N, the length of layer_mask (the model's layer "
                "count), in 1.." + std::to_string(kMaxLayers));
  return Status::success();
}

Status checkGemmShapes(const KernelSpec &spec) {
  if (spec.N < kMinN || spec.N > kMaxN || spec.N % kNMultiple != 0)
    return specKeyFailure(spec, SpecKey::N,
                "N must be a multiple of 16 in " + std::to_string(kMinN) + ".." +
                    std::to_string(kMaxN));
  return Status::success();
}

Status checkFormatAndLayouts(const KernelSpec &spec) {
  // AITER A6W6's element rounding is defined on E2M3's level grid only.
  if (spec.round == Rounding::Rna && spec.fmt != ElemFormat::E2M3)
    return specKeyFailure(spec, SpecKey::Round,
                "round=rna (AITER A6W6's half away from zero) requires fmt=fp6_e2m3 (got fmt=" +
                    std::string(formatInfo(spec.fmt).specName) + "); use round=rne or sr");
  if (spec.layout == ScaleLayout::A6W6Tiles) {
    // AITER's A6W6 operand tiles hold 6-bit codes and their scales; the
    // kernel writes both (codes dense, no row stride), so only an op whose
    // codes have no layout key of their own.
    if (!opDeclaration(spec.op)->writesA6W6Tiles)
      return specKeyFailure(spec, SpecKey::Layout,
                  std::string("mxfp6_c0c1_256_padk2 (AITER's A6W6 operand tiles) is written by "
                              "rotate_quant only, not ") +
                      kernelOpName(spec.op) + "; use layout=plain or a4w4_shuffle");
    if (formatInfo(spec.fmt).bits != 6)
      return specKeyFailure(spec, SpecKey::Layout,
                  "mxfp6_c0c1_256_padk2 holds 6-bit codes: it requires fmt=fp6_e2m3 or "
                  "fp6_e3m2 (got fmt=" +
                      std::string(formatInfo(spec.fmt).specName) + "); use layout=plain");
  }
  if (spec.wlayout == WeightLayout::Preshuffle16x16) {
    if (spec.fmt != ElemFormat::E2M1)
      return specKeyFailure(spec, SpecKey::Wlayout,
                  "preshuffle_16x16 requires fmt=fp4 (got fmt=" +
                      std::string(formatInfo(spec.fmt).specName) + "); use wlayout=plain");
    if (spec.K % kPreshuffleKMultiple != 0)
      return specKeyFailure(spec, SpecKey::Wlayout,
                  "preshuffle_16x16 requires K to be a multiple of 64 (got K=" +
                      std::to_string(spec.K) + "); use wlayout=plain");
  }
  if (spec.wlayout == WeightLayout::W6A16Tile16x128) {
    // quant_weight writes these tiles and the W6A16 GEMM reads them; only
    // they have the key (checkForeignFields refuses it elsewhere).
    if (spec.fmt != ElemFormat::E2M3)
      return specKeyFailure(spec, SpecKey::Wlayout,
                  "w6a16_16x128 requires fmt=fp6_e2m3 (got fmt=" +
                      std::string(formatInfo(spec.fmt).specName) + "); use wlayout=plain");
    if (spec.K % kW6A16KMultiple != 0)
      return specKeyFailure(spec, SpecKey::Wlayout,
                  "w6a16_16x128 requires K to be a multiple of 128 (got K=" +
                      std::to_string(spec.K) + "); use wlayout=plain");
  }
  return Status::success();
}

/// A field whose key is not part of the spec's text (the op has no such key,
/// or it does not apply, as rconv without a learned rotation) must keep its
/// KernelSpec default: printSpec does not write it, so any other value would
/// not survive parse(print(spec)).
Status checkForeignFields(const KernelSpec &spec) {
  static const KernelSpec kDefaults;
  for (size_t i = 0; i < spec_detail::kNumSpecKeys; ++i) {
    SpecKey key = static_cast<SpecKey>(i);
    if (spec_detail::keyApplies(spec, key) || spec_detail::keyDeclaration(key).sameValue(spec, kDefaults))
      continue;
    std::string fallback;
    spec_detail::appendSpecValue(fallback, kDefaults, key);
    if (spec_detail::opHasKey(spec.op, key))
      return specKeyFailure(spec, key,
                  spec_detail::inapplicableKeyReason(spec, key) + "; leave it at " + fallback);
    return specKeyFailure(spec, key,
                std::string("key '") + spec_detail::specKeyName(key) + "' does not belong to " +
                    kernelOpName(spec.op) + " (its keys: " + spec_detail::joinedKeys(spec.op) +
                    "); leave it at its default " + fallback);
  }
  return Status::success();
}

} // namespace

Status specKeyFailure(const KernelSpec &spec, SpecKey key, const std::string &what) {
  return Status::failure(keyValue(spec, key) + ": " + what);
}

std::string joinedNumbers(const int *values, size_t count) {
  std::string out;
  for (size_t i = 0; i < count; ++i) {
    if (i)
      out += ", ";
    out += std::to_string(values[i]);
  }
  return out;
}

Status validateSpec(const KernelSpec &spec) {
  if (!opDeclaration(spec.op))
    return Status::failure("op=?: enum code " + std::to_string(static_cast<unsigned>(spec.op)) +
                           " is not an op; op must be one of " + spec_detail::joinedOps());
  if (Status s = checkEnumRanges(spec); !s.ok())
    return s;
  if (Status s = checkForeignFields(spec); !s.ok())
    return s;
  if (Status s = checkShapesAndRotation(spec); !s.ok())
    return s;
  if (spec_detail::opHasKey(spec.op, SpecKey::N))
    if (Status s = checkGemmShapes(spec); !s.ok())
      return s;
  if (const OpDeclaration *op = opDeclaration(spec.op); op->validate)
    if (Status s = op->validate(spec); !s.ok())
      return s;
  if (Status s = checkFormatAndLayouts(spec); !s.ok())
    return s;
  if (Status s = checkSelection(spec); !s.ok())
    return s;
  if (spec.arch != "gfx950")
    return specKeyFailure(spec, SpecKey::Arch, "arch must be gfx950");
  return Status::success();
}

} // namespace mxf
