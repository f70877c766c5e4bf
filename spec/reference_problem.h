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

} // namespace mxf

#endif // MXFORGE_SPEC_REFERENCE_PROBLEM_H
