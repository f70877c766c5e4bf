//===- expected_keys.h - What a reader of an op's outputs expects -*- C++ -*-===//
//
// The outputs of rotate_quant_moe are read by an engine's MoE GEMM (AITER's
// fused MoE), built for one block size, one expert count and one scale
// layout. If the front end was specified otherwise, its outputs often have
// the same shapes (a4w4_shuffle and plain scales agree whenever the capacity
// is a multiple of 32 and K/32 of 8), and the GEMM reads them wrong with no
// error. An engine states once what its reader was built for, and mxforge
// refuses a spec that differs, naming the key and both values: the same
// check prepared weights get (prepared_weights.h), for any op's outputs.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_SPEC_EXPECTED_KEYS_H
#define MXFORGE_SPEC_EXPECTED_KEYS_H

#include "spec/kernel_spec.h"
#include "support/status.h"

#include <string_view>

namespace mxf {

/// Whether `spec` has every value `expected` names ("block=32,E=256,
/// layout=a4w4_shuffle": keys of spec's op, any order, values as a spec
/// spells them). Refuses an unknown key, a key the op does not take, a
/// value the key does not take, and a spec whose value differs, naming the
/// key, both values and the spec.
Status checkSpecKeys(const KernelSpec &spec, std::string_view expected);

} // namespace mxf

#endif // MXFORGE_SPEC_EXPECTED_KEYS_H
