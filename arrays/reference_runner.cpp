//===- reference_runner.cpp - Run a kernel spec on the CPU reference ------===//

#include "arrays/reference_runner.h"

#include "arrays/random_inputs.h"
#include "arrays/reference_arrays.h"
#include "abi/operands.h"

namespace mxf::arrays {
namespace {

size_t product(const std::vector<size_t> &shape) {
  size_t count = 1;
  for (size_t dim : shape)
    count *= dim; // shapes here come from a validated spec: no overflow
  return count;
}

Status checkGivenInputs(const KernelSpec &spec, const ReferenceSignature &sig,
                        const NpyArrays &given) {
  for (const auto &[name, array] : given) {
    const ArraySpec *expected = sig.findInput(name);
    if (!expected) {
      std::string hint;
      if (name == "r" && !isLearned(spec.rot))
        hint = std::string(" (rot=") + rotationKindName(spec.rot) + " takes no matrix)";
      return Status::failure("unknown input '" + name + "' for " + kernelOpName(spec.op) + hint +
                             "; its inputs are: " + joinArrayNames(sig.inputs));
    }
    if (array.dtype() != expected->dtype || array.shape != expected->shape)
      return Status::failure(
          "input " + name + ": expected " + describeArray(expected->dtype, expected->shape) + " (" +
          expected->meaning + "), got " + describeArray(array.dtype(), array.shape));
    if (array.size() != product(array.shape)) // only arrays built in code can get here
      return Status::failure("input " + name + ": holds " + std::to_string(array.size()) +
                             " elements, but its shape " + shapeString(array.shape) + " says " +
                             std::to_string(product(array.shape)));
  }
  if (sig.findInput("w_q") && given.count("w_q") != given.count("w_s"))
    return Status::failure(std::string("inputs w_q and w_s are one quantized weight: give both "
                                       "or neither (given: ") +
                           (given.count("w_q") ? "w_q" : "w_s") + ")");
  return Status::success();
}

/// One generated input other than the GEMM weights.
NpyArray generateInput(const KernelSpec &spec, const ArraySpec &array, uint64_t seed) {
  RandomStream stream(seed, array.name);
  if (array.name == "r") {
    std::vector<uint16_t> matrices;
    const size_t blocks = product(array.shape) / (size_t(spec.RS) * size_t(spec.RS));
    for (size_t b = 0; b < blocks; ++b) {
      std::vector<uint16_t> matrix = randomOrthogonalBf16(stream, spec.RS);
      matrices.insert(matrices.end(), matrix.begin(), matrix.end());
    }
    return NpyArray::of(array.shape, std::move(matrices));
  }
  if (array.name == "topk_ids")
    return NpyArray::of(array.shape,
                        randomRouting(stream, static_cast<int>(array.shape[0]), spec.topk, spec.E));
  if (array.name == "topk_weights") {
    // A router's softmax weights: positive, each token's summing to about 1.
    std::vector<float> weights(product(array.shape));
    const size_t topk = size_t(spec.topk);
    for (size_t token = 0; token < weights.size() / topk; ++token) {
      double sum = 0;
      for (size_t slot = 0; slot < topk; ++slot)
        sum += weights[token * topk + slot] = float(0.05 + stream.uniform());
      for (size_t slot = 0; slot < topk; ++slot)
        weights[token * topk + slot] = float(weights[token * topk + slot] / sum);
    }
    return NpyArray::of(array.shape, std::move(weights));
  }
  if (array.name == "seed") {
    // Stochastic rounding's seed: any 32 bits.
    return NpyArray::of(array.shape, std::vector<int32_t>{int32_t(uint32_t(stream.below(1ull << 32)))});
  }
  if (array.name == "layer_mask") {
    // Selective rotation's mask: about half the layers rotate.
    std::vector<int32_t> mask(product(array.shape));
    for (int32_t &rotates : mask)
      rotates = int32_t(stream.below(2));
    return NpyArray::of(array.shape, std::move(mask));
  }
  if (array.name == "expert_mask") {
    // Half the experts local on average, as on one of two ranks.
    std::vector<int32_t> mask(product(array.shape));
    for (int32_t &local : mask)
      local = int32_t(stream.below(2));
    return NpyArray::of(array.shape, std::move(mask));
  }
  // x and w
  return NpyArray::of(array.shape, randomNormalBf16(stream, product(array.shape)));
}

/// w_q and w_s of a GEMM: quant_weight of the same random W that a
/// quant_weight run with this seed would draw, rotated by the same r.
Status generateGemmWeights(const KernelSpec &spec, uint64_t seed, NpyArrays &inputs) {
  KernelSpec weights;
  weights.op = KernelOp::QuantWeight;
  weights.K = spec.K;
  weights.N = spec.N;
  weights.RS = spec.RS;
  weights.rot = spec.rot;
  weights.fmt = spec.fmt; // fp4 for A4W4, fp6_e2m3 for W6A16
  weights.scale = spec.scale;
  weights.round = Rounding::Rne;
  weights.inter = spec.inter;
  weights.layout = spec.layout;
  weights.wlayout = spec.wlayout;
  NpyArrays given;
  if (auto r = inputs.find("r"); r != inputs.end())
    given.emplace("r", r->second);
  Result<ReferenceRun> run = runReference(weights, 1, given, seed);
  if (!run.ok())
    return Status::failure("generating w_q and w_s: " + run.error());
  inputs.emplace("w_q", std::move(run.value().outputs.at("q")));
  inputs.emplace("w_s", std::move(run.value().outputs.at("s")));
  return Status::success();
}

/// Wraps an output of numerics/ under its table name, checking that the
/// table's shape and what numerics produced agree.
template <typename T>
Status addOutput(const ReferenceSignature &sig, const char *name, std::vector<T> values,
                 NpyArrays &outputs) {
  const ArraySpec *array = sig.findOutput(name);
  if (!array || product(array->shape) != values.size())
    return Status::failure(std::string("internal error: output ") + name + " has " +
                           std::to_string(values.size()) + " elements, which does not match " +
                           (array ? shapeString(array->shape) : std::string("the table")));
  outputs.emplace(name, NpyArray::of(array->shape, std::move(values)));
  return Status::success();
}

const uint16_t *rotationOf(const NpyArrays &inputs) {
  auto r = inputs.find("r");
  return r == inputs.end() ? nullptr : r->second.as<uint16_t>().data();
}

Status runOp(const KernelSpec &selecting, const ReferenceSignature &sig, const NpyArrays &inputs,
             bool routingGiven, uint64_t seed, bool rotates, NpyArrays &outputs,
             std::map<std::string, size_t> &bytesWritten) {
  // Selective rotation: the launch computes the rotated spec's or the
  // quant-only spec's result (numerics selectedSpec); r is read only when
  // it rotates.
  const KernelSpec spec = selectedSpec(selecting, rotates);
  // round=sr rounds with the seed operand's value (the kernel's input), not
  // with the generator's seed.
  auto srSeed = inputs.find("seed");
  const RotateQuantProblem problem = rotateQuantProblem(
      spec, srSeed == inputs.end() ? seed : uint64_t(uint32_t(srSeed->second.as<int32_t>()[0])));
  const uint16_t *r = spec.RS > 0 ? rotationOf(inputs) : nullptr;
  const char *op = kernelOpName(spec.op);
  auto failed = [&](const std::string &message) {
    return Status::failure(std::string(op) + ": " + message);
  };
  switch (spec.op) {
  case KernelOp::RotateQuant:
  case KernelOp::QuantWeight: {
    Result<QuantizedRows> rows =
        spec.op == KernelOp::RotateQuant
            ? rotateQuant(problem, inputs.at("x").as<uint16_t>().data(), sig.rows, r)
            : quantWeight(problem, spec.wlayout, inputs.at("w").as<uint16_t>().data(), sig.rows, r);
    if (!rows.ok())
      return failed(rows.error());
    if (Status s = addOutput(sig, "q", std::move(rows.value().codes), outputs); !s.ok())
      return s;
    return addOutput(sig, "s", std::move(rows.value().scales), outputs);
  }
  case KernelOp::RotateQuantMoe: {
    MoeProblem moeProblem;
    moeProblem.quant = problem;
    moeProblem.rows = spec.stage == 2 ? MoeRows::Routed : MoeRows::Tokens;
    moeProblem.topk = spec.topk;
    moeProblem.experts = spec.E;
    moeProblem.block = spec.block;
    auto mask = inputs.find("expert_mask");
    Result<MoeQuantized> moe = rotateQuantMoe(
        moeProblem, inputs.at("x").as<uint16_t>().data(), sig.rows,
        inputs.at("topk_ids").as<int32_t>().data(), inputs.at("topk_weights").as<float>().data(),
        mask == inputs.end() ? nullptr : mask->second.as<int32_t>().data(), r);
    if (!moe.ok())
      return routingGiven ? Status::failure("input topk_ids: " + moe.error()) : failed(moe.error());
    MoeQuantized &out = moe.value();
    bytesWritten["s"] = out.scaleBytesWritten;
    Status s = addOutput(sig, "q", std::move(out.quantized.codes), outputs);
    if (s.ok())
      s = addOutput(sig, "s", std::move(out.quantized.scales), outputs);
    if (s.ok())
      s = addOutput(sig, "sorted_ids", std::move(out.sorting.sortedIds), outputs);
    if (s.ok())
      s = addOutput(sig, "sorted_weights", std::move(out.sorting.sortedWeights), outputs);
    if (s.ok())
      s = addOutput(sig, "sorted_expert_ids", std::move(out.sorting.sortedExpertIds), outputs);
    if (s.ok())
      s = addOutput(sig, "num_valid_ids",
                    std::vector<int32_t>{out.sorting.numValidIds[0], out.sorting.numValidIds[1]},
                    outputs);
    return s;
  }
  case KernelOp::RotateQuantGemm: {
    GemmProblem gemm;
    gemm.activation = problem;
    gemm.n = static_cast<size_t>(spec.N);
    gemm.weightLayout = spec.wlayout;
    gemm.weightScaleLayout = spec.layout;
    Result<std::vector<uint16_t>> y = rotateQuantGemm(
        gemm, inputs.at("x").as<uint16_t>().data(), sig.rows, r,
        inputs.at("w_q").as<uint8_t>().data(), inputs.at("w_s").as<uint8_t>().data());
    if (!y.ok())
      return failed(y.error());
    return addOutput(sig, "y", std::move(y.value()), outputs);
  }
  }
  return failed("unknown op");
}

/// Bytes of every array of a run (plus the GEMM's hidden W when generated),
/// so that a spec at the far end of the valid range (K=65536, N=2^20 is
/// 128 GiB of bf16) gets a message instead of an out-of-memory abort.
Status checkFootprint(const KernelSpec &spec, const ReferenceSignature &sig,
                      const NpyArrays &given) {
  size_t bytes = 0;
  for (const std::vector<ArraySpec> *arrays : {&sig.inputs, &sig.outputs})
    for (const ArraySpec &array : *arrays)
      bytes += product(array.shape) * npyItemSize(array.dtype);
  if (sig.findInput("w_q") && !given.count("w_q"))
    bytes += size_t(spec.N) * size_t(spec.K) * sizeof(uint16_t);
  if (bytes > kMaxReferenceBytes)
    return Status::failure("the reference run would hold " + std::to_string(bytes >> 20) +
                           " MiB of arrays, more than the " +
                           std::to_string(kMaxReferenceBytes >> 20) +
                           " MiB mxforge allows; use a smaller M, N or K");
  return Status::success();
}

/// The launch's selection value: given, or drawn from the seed; checked as
/// the launchers check it.
Result<std::optional<int64_t>> selectionFor(const KernelSpec &spec,
                                            std::optional<int64_t> selection, uint64_t seed) {
  if (!selection && spec.select != RotationSelect::Off) {
    RandomStream stream(seed, "selection");
    selection = spec.select == RotationSelect::Flag ? int64_t(stream.below(2))
                                                    : int64_t(stream.below(uint64_t(spec.layers)));
  }
  if (Status valid = checkSelectionValue(spec, selection); !valid.ok())
    return valid;
  return selection;
}

} // namespace

std::string describeSelection(const KernelSpec &spec, const ReferenceRun &run) {
  if (!run.selection)
    return std::string();
  std::string text = std::string(selectionArgName(spec)) + "=" + std::to_string(*run.selection);
  const char *path = run.rotates ? "rotates" : "quant only";
  auto mask = run.inputs.find("layer_mask");
  if (spec.select == RotationSelect::Mask && mask != run.inputs.end())
    return text + " (layer_mask[" + std::to_string(*run.selection) + "] = " +
           std::to_string(mask->second.as<int32_t>()[size_t(*run.selection)]) + ": " + path + ")";
  return text + " (" + path + ")";
}

Result<ReferenceRun> runReference(const KernelSpec &spec, int m, const NpyArrays &given,
                                  uint64_t seed, std::optional<int64_t> selection) {
  Result<ReferenceSignature> sig = referenceSignature(spec, m);
  if (!sig.ok())
    return sig.status();
  Result<std::optional<int64_t>> chosen = selectionFor(spec, selection, seed);
  if (!chosen.ok())
    return chosen.status();
  if (Status s = checkGivenInputs(spec, sig.value(), given); !s.ok())
    return s;
  if (Status s = checkFootprint(spec, sig.value(), given); !s.ok())
    return s;

  ReferenceRun run;
  run.inputs = given;
  // Table order puts r before w_q/w_s, so generated weights use the final r.
  for (const ArraySpec &input : sig.value().inputs) {
    if (run.inputs.count(input.name))
      continue;
    run.generated.push_back(input.name);
    if (input.name == "w_q") {
      // w_s comes next in the table and is found present then.
      if (Status s = generateGemmWeights(spec, seed, run.inputs); !s.ok())
        return s;
      run.generated.push_back("w_s");
      continue;
    }
    run.inputs.emplace(input.name, generateInput(spec, input, seed));
  }
  run.selection = chosen.value();
  auto mask = run.inputs.find("layer_mask");
  run.rotates = selectionRotates(spec, run.selection.value_or(0),
                                 mask == run.inputs.end() ? nullptr
                                                          : mask->second.as<int32_t>().data());
  if (Status s = runOp(spec, sig.value(), run.inputs, given.count("topk_ids") > 0, seed,
                       run.rotates, run.outputs, run.bytesWritten);
      !s.ok())
    return s;
  return run;
}

} // namespace mxf::arrays
