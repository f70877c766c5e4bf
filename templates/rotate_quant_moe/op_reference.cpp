//===- op_reference.cpp - rotate_quant_moe on the CPU reference ------------===//
//
// Plain C++, linked into mxforge_arrays (arrays/op_reference.h): x and the
// routing -> the codes, the sorted scales and AITER's moe_sorting outputs
// through numerics rotateQuantMoe; random routing when none is given.
//
//===----------------------------------------------------------------------===//

#include "arrays/op_reference.h"

#include "arrays/random_inputs.h"

namespace mxf::rotate_quant_moe {
namespace {

using namespace arrays;

Status run(const ReferenceCall &call, NpyArrays &outputs,
           std::map<std::string, size_t> &bytesWritten) {
  const KernelSpec &spec = call.spec;
  MoeProblem moeProblem;
  moeProblem.quant = call.problem;
  moeProblem.rows = spec.stage == 2 ? MoeRows::Routed : MoeRows::Tokens;
  moeProblem.topk = spec.topk;
  moeProblem.experts = spec.E;
  moeProblem.block = spec.block;
  auto mask = call.inputs.find("expert_mask");
  Result<MoeQuantized> moe = rotateQuantMoe(
      moeProblem, call.inputs.at("x").as<uint16_t>().data(), call.sig.rows,
      call.inputs.at("topk_ids").as<int32_t>().data(),
      call.inputs.at("topk_weights").as<float>().data(),
      mask == call.inputs.end() ? nullptr : mask->second.as<int32_t>().data(), call.r);
  if (!moe.ok())
    return Status::failure((call.routingGiven ? "input topk_ids: " : "rotate_quant_moe: ") +
                           moe.error());
  MoeQuantized &out = moe.value();
  bytesWritten["s"] = out.scaleBytesWritten;
  Status s = addReferenceOutput(call.sig, "q", std::move(out.quantized.codes), outputs);
  if (s.ok())
    s = addReferenceOutput(call.sig, "s", std::move(out.quantized.scales), outputs);
  if (s.ok())
    s = addReferenceOutput(call.sig, "sorted_ids", std::move(out.sorting.sortedIds), outputs);
  if (s.ok())
    s = addReferenceOutput(call.sig, "sorted_weights", std::move(out.sorting.sortedWeights),
                           outputs);
  if (s.ok())
    s = addReferenceOutput(call.sig, "sorted_expert_ids", std::move(out.sorting.sortedExpertIds),
                           outputs);
  if (s.ok())
    s = addReferenceOutput(
        call.sig, "num_valid_ids",
        std::vector<int32_t>{out.sorting.numValidIds[0], out.sorting.numValidIds[1]}, outputs);
  return s;
}

/// The routing a router would give: topk distinct experts per token with
/// softmax-like weights, and the local experts of one of two ranks.
Result<bool> generateInput(const KernelSpec &spec, const ArraySpec &array, uint64_t seed,
                           NpyArrays &inputs) {
  RandomStream stream(seed, array.name);
  if (array.name == "topk_ids") {
    inputs.emplace(array.name,
                   NpyArray::of(array.shape, randomRouting(stream, static_cast<int>(array.shape[0]),
                                                           spec.topk, spec.E)));
    return true;
  }
  if (array.name == "topk_weights") {
    // A router's softmax weights: positive, each token's summing to about 1.
    std::vector<float> weights(elementCount(array.shape));
    const size_t topk = size_t(spec.topk);
    for (size_t token = 0; token < weights.size() / topk; ++token) {
      double sum = 0;
      for (size_t slot = 0; slot < topk; ++slot)
        sum += weights[token * topk + slot] = float(0.05 + stream.uniform());
      for (size_t slot = 0; slot < topk; ++slot)
        weights[token * topk + slot] = float(weights[token * topk + slot] / sum);
    }
    inputs.emplace(array.name, NpyArray::of(array.shape, std::move(weights)));
    return true;
  }
  if (array.name == "expert_mask") {
    // Half the experts local on average, as on one of two ranks.
    std::vector<int32_t> mask(elementCount(array.shape));
    for (int32_t &local : mask)
      local = int32_t(stream.below(2));
    inputs.emplace(array.name, NpyArray::of(array.shape, std::move(mask)));
    return true;
  }
  return false;
}

} // namespace

extern const arrays::OpReference kOpReference = {KernelOp::RotateQuantMoe, run,
                                                 generateInput};

} // namespace mxf::rotate_quant_moe
