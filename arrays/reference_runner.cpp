//===- reference_runner.cpp - Run a kernel spec on the CPU reference ------===//

#include "arrays/reference_runner.h"

#include "arrays/random_inputs.h"
#include "arrays/reference_arrays.h"
#include "abi/operands.h"
#include "arrays/op_reference.h"

namespace mxf::arrays {
namespace {

size_t product(const std::vector<size_t> &shape) { return elementCount(shape); }

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

/// An input every op may have (x, w, r, seed, layer_mask); the ops' own are
/// their OpReference's.
NpyArray generateSharedInput(const KernelSpec &spec, const ArraySpec &array, uint64_t seed) {
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
  // x and w
  return NpyArray::of(array.shape, randomNormalBf16(stream, product(array.shape)));
}

const uint16_t *rotationOf(const NpyArrays &inputs) {
  auto r = inputs.find("r");
  return r == inputs.end() ? nullptr : r->second.as<uint16_t>().data();
}

Status runOp(const KernelSpec &selecting, const ReferenceSignature &sig, const NpyArrays &inputs,
             bool routingGiven, uint64_t seed, bool rotates, const LaunchValues &values,
             NpyArrays &outputs, std::map<std::string, size_t> &bytesWritten) {
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
  const OpReference *reference = opReference(spec.op);
  if (!reference)
    return Status::failure("internal error: no reference for op code " +
                           std::to_string(unsigned(spec.op)));
  const ReferenceCall call{spec, sig, inputs, problem, r, routingGiven, values};
  return reference->run(call, outputs, bytesWritten);
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

std::string describeValues(const ReferenceRun &run) {
  std::string text;
  for (const auto &[name, value] : run.values) {
    bool example = false;
    for (const std::string &taken : run.exampleValues)
      example |= taken == name;
    text += (text.empty() ? "" : ", ") + name + "=" + formatLaunchValue(value) +
            (example ? " (the op's example value)" : "");
  }
  return text;
}

Result<ReferenceRun> runReference(const KernelSpec &spec, int m, const NpyArrays &given,
                                  uint64_t seed, std::optional<int64_t> selection,
                                  const LaunchValues &values) {
  Result<ReferenceSignature> sig = referenceSignature(spec, m);
  if (!sig.ok())
    return sig.status();
  LaunchValues completed = values;
  std::vector<std::string> examples;
  for (const ValueArg &value : kernelValueArgs(spec))
    if (completed.emplace(value.name, value.example).second)
      examples.push_back(value.name);
  if (Status valid = checkLaunchValues(spec, completed); !valid.ok())
    return valid;
  Result<std::optional<int64_t>> chosen = selectionFor(spec, selection, seed);
  if (!chosen.ok())
    return chosen.status();
  if (Status s = checkGivenInputs(spec, sig.value(), given); !s.ok())
    return s;
  if (Status s = checkFootprint(spec, sig.value(), given); !s.ok())
    return s;

  ReferenceRun run;
  run.inputs = given;
  // In table order, which puts r first: inputs made from others (the GEMM's
  // weights) see the final r. An op may make two inputs at once (w_q and
  // w_s), so the second is found present.
  const OpReference *reference = opReference(spec.op);
  for (const ArraySpec &input : sig.value().inputs) {
    if (given.count(input.name))
      continue;
    run.generated.push_back(input.name);
    if (run.inputs.count(input.name))
      continue;
    if (reference && reference->generateInput) {
      Result<bool> made = reference->generateInput(spec, input, seed, run.inputs);
      if (!made.ok())
        return made.status();
      if (made.value())
        continue;
    }
    run.inputs.emplace(input.name, generateSharedInput(spec, input, seed));
  }
  run.selection = chosen.value();
  auto mask = run.inputs.find("layer_mask");
  run.rotates = selectionRotates(spec, run.selection.value_or(0),
                                 mask == run.inputs.end() ? nullptr
                                                          : mask->second.as<int32_t>().data());
  run.values = std::move(completed);
  run.exampleValues = std::move(examples);
  if (Status s = runOp(spec, sig.value(), run.inputs, given.count("topk_ids") > 0, seed,
                       run.rotates, run.values, run.outputs, run.bytesWritten);
      !s.ok())
    return s;
  return run;
}

} // namespace mxf::arrays
