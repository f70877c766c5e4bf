//===- reference_problem.h - A spec as a numerics/ problem --------*- C++ -*-===//
//
// The one mapping from a KernelSpec to the CPU reference's problem, shared
// by `mxforge ref`, the demo, the C API's reference check and the tests.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_SPEC_REFERENCE_PROBLEM_H
#define MXFORGE_SPEC_REFERENCE_PROBLEM_H

#include "numerics/reference.h"
#include "spec/kernel_spec.h"

#include <cstdint>

namespace mxf {

/// The numerics problem of a valid spec. round=sr takes the low 32 bits of
/// `seed` as its PRNG seed.
RotateQuantProblem rotateQuantProblem(const KernelSpec &spec, uint64_t seed);

/// Selective rotation: whether a launch of `spec` rotates, from the inputs
/// the kernel reads. select=off: always. select=flag: `value` (the by-value
/// i32 `rotate`) nonzero. select=mask: layerMask[layer] nonzero, `value` the
/// i32 `layer`, clamped into 0..layers-1 as the kernel clamps it (an
/// unsigned minimum: a negative index reads the last entry; the launchers
/// refuse one before it gets there).
bool selectionRotates(const KernelSpec &spec, int64_t value, const int32_t *layerMask);

/// The spec without a selection whose result a launch computes: `spec` with
/// select=off when the launch rotates, its quant-only form (RS=0, rot=none,
/// select=off) when not. Both paths are bit for bit these specs' results.
KernelSpec selectedSpec(const KernelSpec &spec, bool rotates);

} // namespace mxf

#endif // MXFORGE_SPEC_REFERENCE_PROBLEM_H
