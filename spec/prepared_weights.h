//===- prepared_weights.h - Weights that match the launch reading them -*- C++ -*-===//
//
// A GEMM reads weights quant_weight prepared earlier, often in another
// process (mxforge quantize, an engine's load step). Codes in another
// layout, scales of another layout, or weights rotated differently have
// the same shapes whenever N is a multiple of 256, so nothing downstream
// notices: y is simply wrong (issue 31 measured relative errors of 0.4 to
// 1.5). Weights therefore travel with the quant_weight spec that made them
// (the checkpoint's `mxforge.spec.<p>.weight`, Python's QuantizedWeight),
// and a launch checks that spec against the one its op declares it reads
// (OpDeclaration::weightsRead).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_SPEC_PREPARED_WEIGHTS_H
#define MXFORGE_SPEC_PREPARED_WEIGHTS_H

#include "spec/kernel_spec.h"
#include "spec/spec_keys.h"
#include "support/status.h"

#include <array>

namespace mxf {

/// The keys that decide what prepared weights' bytes mean, which a reader's
/// spec must share with the weights' (a binding fills a GEMM's spec from a
/// weight's descriptor with them: C API mxf_spec_weight_keys).
inline constexpr std::array<spec_detail::SpecKey, 8> kPreparedWeightKeys = {
    spec_detail::SpecKey::K,      spec_detail::SpecKey::N,   spec_detail::SpecKey::Fmt,
    spec_detail::SpecKey::RS,     spec_detail::SpecKey::Rot, spec_detail::SpecKey::Rconv,
    spec_detail::SpecKey::Layout, spec_detail::SpecKey::Wlayout};

/// Whether weights made with `weights` (a quant_weight spec) are the ones a
/// launch of `spec` reads; `rotates` says whether that launch rotates (a
/// select=flag|mask launch that does not reads weights made at RS=0). The
/// keys compared are kPreparedWeightKeys (the scale rule and rounding only
/// chose the values, which any reader reads alike). A refusal names the first key
/// that differs with both values, and both specs.
Status checkPreparedWeights(const KernelSpec &spec, const KernelSpec &weights, bool rotates);

} // namespace mxf

#endif // MXFORGE_SPEC_PREPARED_WEIGHTS_H
