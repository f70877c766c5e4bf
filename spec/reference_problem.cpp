//===- reference_problem.cpp - A spec as a numerics/ problem --------------===//

#include "spec/reference_problem.h"

namespace mxf {

RotateQuantProblem rotateQuantProblem(const KernelSpec &spec, uint64_t seed) {
  RotateQuantProblem problem;
  problem.k = static_cast<size_t>(spec.K);
  problem.rotation.kind = spec.rot;
  problem.rotation.rs = spec.RS;
  problem.rotation.convention = spec.rconv;
  problem.inter = spec.inter;
  problem.quant.format = spec.fmt;
  problem.quant.rule = spec.scale;
  problem.quant.rounding = spec.round;
  problem.quant.seed = static_cast<uint32_t>(seed);
  problem.scaleLayout = spec.layout;
  return problem;
}

} // namespace mxf
