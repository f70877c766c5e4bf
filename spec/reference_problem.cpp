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

bool selectionRotates(const KernelSpec &spec, int64_t value, const int32_t *layerMask) {
  switch (spec.select) {
  case RotationSelect::Off:
    return true;
  case RotationSelect::Flag:
    return int32_t(value) != 0;
  case RotationSelect::Mask: {
    const uint64_t index = uint64_t(int64_t(int32_t(value)));
    const uint64_t last = uint64_t(spec.layers - 1);
    return layerMask[index < last ? index : last] != 0;
  }
  }
  return true;
}

KernelSpec selectedSpec(const KernelSpec &spec, bool rotates) {
  KernelSpec selected = spec;
  selected.select = RotationSelect::Off;
  selected.layers = 0;
  if (!rotates) {
    selected.RS = 0;
    selected.rot = RotationKind::None;
    selected.rconv = RotationConvention::XR;
  }
  return selected;
}

} // namespace mxf
