//===- test_reference_runner.cpp - Specs run on the CPU reference ---------===//
//
// runReference must run every op with generated inputs, equal calling
// numerics/ directly, reject inputs of the wrong name, dtype or shape with a
// message naming the array and the expected shape, and reject M outside the
// bucket. Also checks the generators (orthogonal r, valid routing,
// reproducibility) and that the round-trip bound catches broken
// quantizations (tests/unit/test_quality_report.cpp: that it holds for
// correct ones, as `mxforge demo` relies on).
//
//===----------------------------------------------------------------------===//

#include "arrays/reference_runner.h"

#include "numerics/layouts.h"
#include "numerics/packing.h"
#include "numerics/rmsnorm.h"
#include "arrays/quant_metrics.h"
#include "arrays/random_inputs.h"
#include "arrays/reference_arrays.h"

#include "tests/unit/test_seed.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace mxf::arrays {
namespace {

KernelSpec specOf(const std::string &text) {
  Result<KernelSpec> spec = parseSpec(text);
  EXPECT_TRUE(spec.ok()) << text << ": " << spec.error();
  return spec.ok() ? spec.value() : KernelSpec();
}

::testing::AssertionResult contains(const std::string &text, const std::string &fragment) {
  if (text.find(fragment) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << fragment << "'";
}

const char *const kSpecs[] = {
    "rotate_quant:K=256",
    "rotate_quant:K=256,RS=64,rot=hadamard,M=4",
    "rotate_quant:K=256,RS=32,rot=hadamard_butterfly,M=2,inter=bf16",
    "rotate_quant:K=256,RS=128,rot=learned,M=8,layout=a4w4_shuffle",
    "rotate_quant:K=512,RS=64,rot=learned_per_block,M=4,fmt=fp6_e2m3,scale=floor",
    "rotate_quant:K=256,RS=64,rot=hadamard,M=4,fmt=fp8_e4m3,round=sr",
    "rotate_quant:K=192,RS=64,rot=hadamard,M=1,fmt=fp6_e3m2,scale=rceil",
    "rotate_quant_moe:K=256,RS=64,rot=hadamard,M=4,topk=2,E=8",
    "rotate_quant_moe:K=256,RS=32,rot=learned,M=8,topk=3,E=4,block=64,layout=a4w4_shuffle",
    "rotate_quant_moe:K=256,RS=64,rot=hadamard,M=8,topk=3,E=16,block=16,stage=2,emask=1",
    "rotate_quant_gemm:K=256,N=32,RS=64,rot=hadamard,M=4",
    "rotate_quant_gemm:K=256,N=48,RS=32,rot=learned_per_block,M=2,layout=a4w4_shuffle,"
    "wlayout=preshuffle_16x16",
    "quant_weight:K=256,N=32",
    "rmsnorm_rotate_quant:K=256,RS=64,rot=hadamard,M=4,add=1",
    "rmsnorm_rotate_quant:K=256,RS=32,rot=learned,M=2",
    "quant_weight:K=256,N=32,RS=64,rot=learned,layout=a4w4_shuffle,wlayout=preshuffle_16x16",
    "quant_weight:K=256,N=16,RS=64,rot=hadamard,fmt=fp6_e2m3",
};

/// Rows a test runs a spec at: below the bucket where there is room.
int rowsFor(const KernelSpec &spec) { return spec.M > 1 ? spec.M - 1 : 1; }

TEST(ReferenceRunner, RunsEveryOpWithGeneratedInputs) {
  const uint64_t seed = testing::testSeed("ReferenceRunner.RunsEveryOpWithGeneratedInputs");
  for (const char *text : kSpecs) {
    SCOPED_TRACE(text);
    const KernelSpec spec = specOf(text);
    const int m = rowsFor(spec);
    Result<ReferenceSignature> sig = referenceSignature(spec, m);
    ASSERT_TRUE(sig.ok()) << sig.error();
    Result<ReferenceRun> run = runReference(spec, m, {}, seed);
    ASSERT_TRUE(run.ok()) << run.error();
    // Every input was generated, with the table's dtype and shape.
    ASSERT_EQ(run.value().generated.size(), sig.value().inputs.size());
    for (const ArraySpec &input : sig.value().inputs) {
      const NpyArray &array = run.value().inputs.at(input.name);
      EXPECT_EQ(array.dtype(), input.dtype) << input.name;
      EXPECT_EQ(array.shape, input.shape) << input.name;
    }
    ASSERT_EQ(run.value().outputs.size(), sig.value().outputs.size());
    for (const ArraySpec &output : sig.value().outputs) {
      const NpyArray &array = run.value().outputs.at(output.name);
      EXPECT_EQ(array.dtype(), output.dtype) << output.name;
      EXPECT_EQ(array.shape, output.shape) << output.name;
      size_t count = 1;
      for (size_t dim : output.shape)
        count *= dim;
      EXPECT_EQ(array.size(), count) << output.name;
    }
  }
}

TEST(ReferenceRunner, DocumentedShapes) {
  // The shapes docs/cli.md lists, spelled out for one spec of each op.
  auto shapes = [](const std::string &text, int m) {
    std::map<std::string, std::string> out;
    Result<ReferenceSignature> sig = referenceSignature(specOf(text), m);
    EXPECT_TRUE(sig.ok()) << sig.error();
    for (const ArraySpec &a : sig.value().inputs)
      out["in " + a.name] = describeArray(a.dtype, a.shape);
    for (const ArraySpec &a : sig.value().outputs)
      out["out " + a.name] = describeArray(a.dtype, a.shape);
    return out;
  };
  using Map = std::map<std::string, std::string>;
  EXPECT_EQ(shapes("rotate_quant:K=4096,RS=64,rot=learned,M=16", 3),
            (Map{{"in x", "<u2 [3, 4096]"},
                 {"in r", "<u2 [64, 64]"},
                 {"out q", "|u1 [3, 2048]"},
                 {"out s", "|u1 [3, 128]"}}));
  EXPECT_EQ(shapes("rotate_quant:K=96,RS=32,rot=learned_per_block,M=4,fmt=fp6_e2m3,"
                   "layout=a4w4_shuffle",
                   2),
            (Map{{"in x", "<u2 [2, 96]"},
                 {"in r", "<u2 [3, 32, 32]"},
                 {"out q", "|u1 [2, 72]"},
                 {"out s", "|u1 [256, 8]"}}));
  // capacity = M*topk + E*block - topk = 3*2 + 8*32 - 2 = 260 -> 9 blocks.
  EXPECT_EQ(shapes("rotate_quant_moe:K=256,M=4,topk=2,E=8,layout=a4w4_shuffle", 3),
            (Map{{"in x", "<u2 [3, 256]"},
                 {"in topk_ids", "<i4 [3, 2]"},
                 {"in topk_weights", "<f4 [3, 2]"},
                 {"out q", "|u1 [3, 128]"},
                 {"out s", "|u1 [288, 8]"},
                 {"out sorted_ids", "<i4 [260]"},
                 {"out sorted_weights", "<f4 [260]"},
                 {"out sorted_expert_ids", "<i4 [9]"},
                 {"out num_valid_ids", "<i4 [2]"}}));
  // Stage 2 with a mask: rows per (token, slot); the mask is [E].
  EXPECT_EQ(shapes("rotate_quant_moe:K=256,M=4,topk=2,E=8,stage=2,emask=1", 3).at("in x"),
            "<u2 [3, 2, 256]");
  EXPECT_EQ(shapes("rotate_quant_moe:K=256,M=4,topk=2,E=8,stage=2,emask=1", 3).at("out q"),
            "|u1 [3, 2, 128]");
  EXPECT_EQ(shapes("rotate_quant_moe:K=256,M=4,topk=2,E=8,stage=2,emask=1", 3).at(
                "in expert_mask"),
            "<i4 [8]");
  EXPECT_EQ(shapes("rotate_quant_moe:K=256,M=4,topk=2,E=8,layout=plain", 3).at("out s"),
            "|u1 [260, 8]");
  EXPECT_EQ(shapes("rotate_quant_gemm:K=512,N=64,M=8,layout=a4w4_shuffle", 5),
            (Map{{"in x", "<u2 [5, 512]"},
                 {"in w_q", "|u1 [64, 256]"},
                 {"in w_s", "|u1 [256, 16]"},
                 {"out y", "<u2 [5, 64]"}}));
  EXPECT_EQ(
      shapes("quant_weight:K=512,N=64", 1000),
      (Map{{"in w", "<u2 [64, 512]"}, {"out q", "|u1 [64, 256]"}, {"out s", "|u1 [64, 16]"}}));
}

/// Every op's numerics called directly on the run's inputs.
void expectEqualsNumerics(const KernelSpec &spec, int m, const ReferenceRun &run, uint64_t seed) {
  // round=sr rounds with the seed input where the op takes one.
  const uint64_t srSeed =
      run.inputs.count("seed") ? uint32_t(run.inputs.at("seed").as<int32_t>()[0]) : seed;
  const RotateQuantProblem problem = rotateQuantProblem(spec, srSeed);
  const uint16_t *r = run.inputs.count("r") ? run.inputs.at("r").as<uint16_t>().data() : nullptr;
  switch (spec.op) {
  case KernelOp::RotateQuant: {
    Result<QuantizedRows> direct =
        rotateQuant(problem, run.inputs.at("x").as<uint16_t>().data(), size_t(m), r);
    ASSERT_TRUE(direct.ok());
    EXPECT_EQ(run.outputs.at("q").as<uint8_t>(), direct.value().codes);
    EXPECT_EQ(run.outputs.at("s").as<uint8_t>(), direct.value().scales);
    break;
  }
  case KernelOp::QuantWeight: {
    Result<QuantizedRows> direct = quantWeight(
        problem, spec.wlayout, run.inputs.at("w").as<uint16_t>().data(), size_t(spec.N), r);
    ASSERT_TRUE(direct.ok());
    EXPECT_EQ(run.outputs.at("q").as<uint8_t>(), direct.value().codes);
    EXPECT_EQ(run.outputs.at("s").as<uint8_t>(), direct.value().scales);
    break;
  }
  case KernelOp::RotateQuantMoe: {
    MoeProblem moe;
    moe.quant = problem;
    moe.rows = spec.stage == 2 ? MoeRows::Routed : MoeRows::Tokens;
    moe.topk = spec.topk;
    moe.experts = spec.E;
    moe.block = spec.block;
    const int32_t *mask =
        run.inputs.count("expert_mask") ? run.inputs.at("expert_mask").as<int32_t>().data() : nullptr;
    Result<MoeQuantized> direct = rotateQuantMoe(
        moe, run.inputs.at("x").as<uint16_t>().data(), size_t(m),
        run.inputs.at("topk_ids").as<int32_t>().data(),
        run.inputs.at("topk_weights").as<float>().data(), mask, r);
    ASSERT_TRUE(direct.ok()) << direct.error();
    EXPECT_EQ(run.outputs.at("q").as<uint8_t>(), direct.value().quantized.codes);
    EXPECT_EQ(run.outputs.at("s").as<uint8_t>(), direct.value().quantized.scales);
    EXPECT_EQ(run.outputs.at("sorted_ids").as<int32_t>(), direct.value().sorting.sortedIds);
    EXPECT_EQ(run.outputs.at("sorted_weights").as<float>(), direct.value().sorting.sortedWeights);
    EXPECT_EQ(run.outputs.at("sorted_expert_ids").as<int32_t>(),
              direct.value().sorting.sortedExpertIds);
    EXPECT_EQ(run.outputs.at("num_valid_ids").as<int32_t>(),
              (std::vector<int32_t>{direct.value().sorting.numValidIds[0], m}));
    EXPECT_EQ(run.inputs.count("expert_mask"), size_t(spec.emask));
    break;
  }
  case KernelOp::RotateQuantGemm: {
    GemmProblem gemm;
    gemm.activation = problem;
    gemm.n = size_t(spec.N);
    gemm.weightLayout = spec.wlayout;
    gemm.weightScaleLayout = spec.layout;
    Result<std::vector<uint16_t>> direct = rotateQuantGemm(
        gemm, run.inputs.at("x").as<uint16_t>().data(), size_t(m), r,
        run.inputs.at("w_q").as<uint8_t>().data(), run.inputs.at("w_s").as<uint8_t>().data());
    ASSERT_TRUE(direct.ok());
    EXPECT_EQ(run.outputs.at("y").as<uint16_t>(), direct.value());
    break;
  }
  case KernelOp::RmsnormRotateQuant: {
    const uint16_t *residual =
        run.inputs.count("residual") ? run.inputs.at("residual").as<uint16_t>().data() : nullptr;
    ASSERT_EQ(residual != nullptr, spec.add != 0);
    const RmsNormRows normalized = rmsNormRows(
        run.inputs.at("x").as<uint16_t>().data(), residual,
        run.inputs.at("gamma").as<uint16_t>().data(), float(run.values.at("eps")), size_t(m),
        size_t(spec.K));
    Result<QuantizedRows> direct = rotateQuant(problem, normalized.y.data(), size_t(m), r);
    ASSERT_TRUE(direct.ok());
    EXPECT_EQ(run.outputs.at("q").as<uint8_t>(), direct.value().codes);
    EXPECT_EQ(run.outputs.at("s").as<uint8_t>(), direct.value().scales);
    EXPECT_EQ(run.outputs.count("residual_out"), size_t(spec.add));
    if (spec.add) {
      EXPECT_EQ(run.outputs.at("residual_out").as<uint16_t>(), normalized.z);
    }
    break;
  }
  }
}

TEST(ReferenceRunner, OutputsEqualNumericsCalledDirectly) {
  const uint64_t seed = testing::testSeed("ReferenceRunner.OutputsEqualNumericsCalledDirectly");
  for (const char *text : kSpecs) {
    SCOPED_TRACE(text);
    const KernelSpec spec = specOf(text);
    const int m = rowsFor(spec);
    Result<ReferenceRun> run = runReference(spec, m, {}, seed);
    ASSERT_TRUE(run.ok()) << run.error();
    expectEqualsNumerics(spec, m, run.value(), seed);
    // Given inputs are used as they are: feeding the generated ones back
    // reproduces the run, with nothing generated.
    Result<ReferenceRun> again = runReference(spec, m, run.value().inputs, seed ^ 0xABCDull << 32);
    ASSERT_TRUE(again.ok()) << again.error();
    EXPECT_TRUE(again.value().generated.empty());
    for (const auto &[name, array] : run.value().outputs)
      EXPECT_TRUE(array.values == again.value().outputs.at(name).values) << name;
  }
}

TEST(ReferenceRunner, GeneratedInputsAreReproducibleAndIndependent) {
  const KernelSpec spec = specOf("rotate_quant_moe:K=256,RS=64,rot=learned,M=8,topk=2,E=6");
  const uint64_t seed = testing::testSeed("ReferenceRunner.GeneratedInputsAreReproducible");
  Result<ReferenceRun> a = runReference(spec, 8, {}, seed);
  Result<ReferenceRun> b = runReference(spec, 8, {}, seed);
  Result<ReferenceRun> c = runReference(spec, 8, {}, seed + 1);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  for (const char *name : {"x", "r", "topk_ids"}) {
    EXPECT_TRUE(a.value().inputs.at(name).values == b.value().inputs.at(name).values) << name;
    EXPECT_FALSE(a.value().inputs.at(name).values == c.value().inputs.at(name).values) << name;
  }
  // Each array has its own stream: r does not depend on whether x was given.
  NpyArrays given;
  given.emplace("x", c.value().inputs.at("x"));
  Result<ReferenceRun> d = runReference(spec, 8, given, seed);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d.value().inputs.at("r").values == a.value().inputs.at("r").values);
  EXPECT_EQ(d.value().generated, (std::vector<std::string>{"r", "topk_ids", "topk_weights"}));
}

TEST(ReferenceRunner, GeneratedRotationsAreOrthogonalAndRoutingsValid) {
  const uint64_t seed = testing::testSeed("ReferenceRunner.GeneratedRotations");
  for (int rs : {32, 64, 128, 256}) {
    RandomStream stream(seed, "r");
    std::vector<uint16_t> r = randomOrthogonalBf16(stream, rs);
    double worst = 0.0;
    for (int i = 0; i < rs; ++i)
      for (int j = 0; j < rs; ++j) {
        double dot = 0.0;
        for (int c = 0; c < rs; ++c)
          dot += double(bf16ToF32(r[i * rs + c])) * bf16ToF32(r[j * rs + c]);
        worst = std::max(worst, std::fabs(dot - (i == j)));
      }
    // bf16 keeps 8 bits: each entry is off by at most 2^-9 relative.
    EXPECT_LT(worst, 0.02) << "RS=" << rs;
  }
  RandomStream stream(seed, "topk_ids");
  for (auto [m, topk, experts] : {std::tuple{16, 2, 8}, {5, 8, 8}, {1, 1, 1}, {64, 6, 256}}) {
    std::vector<int32_t> ids = randomRouting(stream, m, topk, experts);
    ASSERT_EQ(ids.size(), size_t(m * topk));
    for (int t = 0; t < m; ++t) {
      std::set<int32_t> distinct(ids.begin() + t * topk, ids.begin() + (t + 1) * topk);
      EXPECT_EQ(distinct.size(), size_t(topk));
      EXPECT_GE(*distinct.begin(), 0);
      EXPECT_LT(*distinct.rbegin(), experts);
    }
  }
}

TEST(ReferenceRunner, GemmWeightsAreQuantWeightOfTheSameSeed) {
  const uint64_t seed = testing::testSeed("ReferenceRunner.GemmWeights");
  const KernelSpec gemm = specOf("rotate_quant_gemm:K=256,N=32,RS=64,rot=learned,M=4,"
                                 "layout=a4w4_shuffle,wlayout=preshuffle_16x16,round=sr");
  const KernelSpec weights = specOf("quant_weight:K=256,N=32,RS=64,rot=learned,"
                                    "layout=a4w4_shuffle,wlayout=preshuffle_16x16");
  Result<ReferenceRun> g = runReference(gemm, 2, {}, seed);
  Result<ReferenceRun> w = runReference(weights, 1, {}, seed);
  ASSERT_TRUE(g.ok() && w.ok());
  EXPECT_EQ(g.value().generated, (std::vector<std::string>{"x", "r", "w_q", "w_s"}));
  EXPECT_TRUE(g.value().inputs.at("w_q").values == w.value().outputs.at("q").values);
  EXPECT_TRUE(g.value().inputs.at("w_s").values == w.value().outputs.at("s").values);

  // With the weights quantized from W, y approximates x.W^T: a GEMM over
  // generated inputs is meaningful, not noise (fp4 on both sides: ~15%).
  const std::vector<uint16_t> &x = g.value().inputs.at("x").as<uint16_t>();
  const std::vector<uint16_t> &wb = w.value().inputs.at("w").as<uint16_t>();
  const std::vector<uint16_t> &y = g.value().outputs.at("y").as<uint16_t>();
  std::vector<float> exact, got;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 32; ++j) {
      double sum = 0.0;
      for (int c = 0; c < 256; ++c)
        sum += double(bf16ToF32(x[i * 256 + c])) * bf16ToF32(wb[j * 256 + c]);
      exact.push_back(float(sum));
      got.push_back(bf16ToF32(y[i * 32 + j]));
    }
  EXPECT_LT(relativeRmsError(got, exact), 0.3);
}

TEST(ReferenceRunner, RejectsInputsOfTheWrongDtypeOrShape) {
  const KernelSpec spec = specOf("rotate_quant:K=256,RS=64,rot=learned,M=4");
  auto errorFor = [&](const std::string &name, NpyArray array) {
    NpyArrays given;
    given.emplace(name, std::move(array));
    Result<ReferenceRun> run = runReference(spec, 2, given, 1);
    EXPECT_FALSE(run.ok()) << name;
    return run.ok() ? std::string() : run.error();
  };
  std::string message = errorFor("x", NpyArray::of<float>({2, 256}, std::vector<float>(512)));
  EXPECT_TRUE(contains(message, "input x: expected <u2 [2, 256] (bf16 activations), got <f4 "
                                "[2, 256]"));
  message = errorFor("x", NpyArray::of<uint16_t>({3, 256}, std::vector<uint16_t>(768)));
  EXPECT_TRUE(contains(message, "input x: expected <u2 [2, 256]"));
  EXPECT_TRUE(contains(message, "got <u2 [3, 256]"));
  message = errorFor("x", NpyArray::of<uint16_t>({512}, std::vector<uint16_t>(512)));
  EXPECT_TRUE(contains(message, "got <u2 [512]"));
  message = errorFor("r", NpyArray::of<uint16_t>({2, 64, 64}, std::vector<uint16_t>(8192)));
  EXPECT_TRUE(contains(message, "input r: expected <u2 [64, 64]"));
  // An array whose shape and element count disagree (built in code).
  message = errorFor("x", NpyArray::of<uint16_t>({2, 256}, std::vector<uint16_t>(5)));
  EXPECT_TRUE(contains(message, "input x: holds 5 elements"));

  const KernelSpec moe = specOf("rotate_quant_moe:K=64,M=4,topk=2,E=4");
  NpyArrays given;
  given.emplace("topk_ids", NpyArray::of<uint16_t>({4, 2}, std::vector<uint16_t>(8)));
  Result<ReferenceRun> run = runReference(moe, 4, given, 1);
  ASSERT_FALSE(run.ok());
  EXPECT_TRUE(contains(run.error(), "input topk_ids: expected <i4 [4, 2]"));
  EXPECT_TRUE(contains(run.error(), "got <u2 [4, 2]"));
}

TEST(ReferenceRunner, RejectsUnknownInputsListingTheValidOnes) {
  const KernelSpec spec = specOf("rotate_quant:K=256,RS=64,rot=hadamard,M=4");
  NpyArrays given;
  given.emplace("r", NpyArray::of<uint16_t>({64, 64}, std::vector<uint16_t>(4096)));
  Result<ReferenceRun> run = runReference(spec, 1, given, 1);
  ASSERT_FALSE(run.ok());
  EXPECT_TRUE(contains(run.error(), "unknown input 'r' for rotate_quant (rot=hadamard takes no "
                                    "matrix); its inputs are: x"));
  given.clear();
  given.emplace("X", NpyArray::of<uint16_t>({1, 256}, std::vector<uint16_t>(256)));
  run = runReference(specOf("rotate_quant_gemm:K=256,N=16,RS=32,rot=learned,M=1"), 1, given, 1);
  ASSERT_FALSE(run.ok());
  EXPECT_TRUE(contains(run.error(), "its inputs are: x, r, w_q, w_s"));
}

TEST(ReferenceRunner, GemmWeightsComeInPairs) {
  const KernelSpec spec = specOf("rotate_quant_gemm:K=64,N=16,M=1");
  NpyArrays given;
  given.emplace("w_q", NpyArray::of<uint8_t>({16, 32}, std::vector<uint8_t>(512)));
  Result<ReferenceRun> run = runReference(spec, 1, given, 1);
  ASSERT_FALSE(run.ok());
  EXPECT_TRUE(contains(run.error(), "w_q and w_s"));
  EXPECT_TRUE(contains(run.error(), "given: w_q"));
}

TEST(ReferenceRunner, InvalidRoutingNamesTopkIds) {
  const KernelSpec spec = specOf("rotate_quant_moe:K=64,M=2,topk=2,E=4");
  NpyArrays given;
  given.emplace("topk_ids", NpyArray::of<int32_t>({2, 2}, {0, 1, 2, 9}));
  Result<ReferenceRun> run = runReference(spec, 2, given, 1);
  ASSERT_FALSE(run.ok());
  EXPECT_TRUE(contains(run.error(), "input topk_ids: "));
}

TEST(ReferenceRunner, RejectsMOutsideTheBucket) {
  const KernelSpec spec = specOf("rotate_quant:K=64,M=8");
  for (int m : {9, 16, 0, -1}) {
    Result<ReferenceRun> run = runReference(spec, m, {}, 1);
    ASSERT_FALSE(run.ok()) << m;
    EXPECT_TRUE(contains(run.error(), "M=" + std::to_string(m) + " is outside 1..8"));
  }
  EXPECT_TRUE(runReference(spec, 8, {}, 1).ok());
  EXPECT_TRUE(runReference(spec, 1, {}, 1).ok());
  for (const char *text :
       {"rotate_quant_moe:K=64,M=2,topk=1,E=2", "rotate_quant_gemm:K=64,N=16,M=2"})
    EXPECT_FALSE(runReference(specOf(text), 3, {}, 1).ok()) << text;
  // quant_weight has no bucket: it runs N rows whatever M says.
  Result<ReferenceRun> weights = runReference(specOf("quant_weight:K=64,N=16"), 1000, {}, 1);
  ASSERT_TRUE(weights.ok()) << weights.error();
  EXPECT_EQ(weights.value().outputs.at("q").shape, (std::vector<size_t>{16, 32}));
}

TEST(ReferenceRunner, RejectsInvalidSpecsBuiltInCode) {
  KernelSpec spec;
  spec.K = 100;
  Result<ReferenceRun> run = runReference(spec, 1, {}, 1);
  ASSERT_FALSE(run.ok());
  EXPECT_TRUE(contains(run.error(), "invalid spec: K=100"));
}

TEST(ReferenceRunner, RejectsRunsTooLargeForMemory) {
  Result<ReferenceRun> run = runReference(specOf("quant_weight:K=65536,N=1048576"), 1, {}, 1);
  ASSERT_FALSE(run.ok());
  EXPECT_TRUE(contains(run.error(), "MiB of arrays, more than the 4096 MiB mxforge allows"));
  run = runReference(specOf("rotate_quant_gemm:K=65536,N=65536,M=1"), 1, {}, 1);
  ASSERT_FALSE(run.ok());
  EXPECT_TRUE(contains(run.error(), "use a smaller M, N or K"));
}

// rotate_quant's round=sr rounds with its input `seed` (the kernel's
// operand), whatever the generator's seed; a new seed input, new bytes.
TEST(ReferenceRunner, StochasticRoundingUsesTheSeedInput) {
  const KernelSpec spec = specOf("rotate_quant:K=256,RS=64,rot=hadamard,M=4,round=sr");
  Result<ReferenceRun> base = runReference(spec, 4, {}, 7);
  ASSERT_TRUE(base.ok());
  EXPECT_EQ(base.value().inputs.count("seed"), 1u);
  NpyArrays given{{"x", base.value().inputs.at("x")}, {"seed", base.value().inputs.at("seed")}};
  Result<ReferenceRun> sameSeed = runReference(spec, 4, given, 12345);
  ASSERT_TRUE(sameSeed.ok());
  EXPECT_TRUE(sameSeed.value().outputs.at("q").values == base.value().outputs.at("q").values);
  std::vector<int32_t> flipped = base.value().inputs.at("seed").as<int32_t>();
  flipped[0] ^= 1;
  given["seed"] = NpyArray::of<int32_t>({1}, flipped);
  Result<ReferenceRun> otherSeed = runReference(spec, 4, given, 7);
  ASSERT_TRUE(otherSeed.ok());
  EXPECT_FALSE(otherSeed.value().outputs.at("q").values == base.value().outputs.at("q").values);
}

// An op without a seed input (quant_weight) rounds with the low 32 bits of
// the generator's seed.
TEST(ReferenceRunner, StochasticRoundingWithoutASeedInputTakesTheLow32Bits) {
  const KernelSpec spec = specOf("quant_weight:K=256,N=16,RS=64,rot=hadamard,round=sr");
  Result<ReferenceRun> base = runReference(spec, 16, {}, 7);
  ASSERT_TRUE(base.ok());
  NpyArrays given{{"w", base.value().inputs.at("w")}};
  Result<ReferenceRun> high = runReference(spec, 16, given, 7 | (uint64_t(1) << 40));
  Result<ReferenceRun> other = runReference(spec, 16, given, 8);
  ASSERT_TRUE(high.ok() && other.ok());
  EXPECT_TRUE(high.value().outputs.at("q").values == base.value().outputs.at("q").values);
  EXPECT_FALSE(other.value().outputs.at("q").values == base.value().outputs.at("q").values);
}

// The demo's "ok" rests on checkRoundTrip: it must hold for correct
// quantizations of every format, rule and rotation, and flag broken ones.
TEST(QuantMetrics, RoundTripBoundCatchesBrokenQuantizations) {
  const KernelSpec spec = specOf("rotate_quant:K=256,RS=64,rot=hadamard,M=2");
  Result<ReferenceRun> run = runReference(spec, 2, {}, 3);
  ASSERT_TRUE(run.ok());
  const RotateQuantProblem problem = rotateQuantProblem(spec, 3);
  const uint16_t *x = run.value().inputs.at("x").as<uint16_t>().data();
  QuantizedRows rows;
  rows.rows = 2;
  rows.k = 256;
  rows.format = spec.fmt;
  rows.codes = run.value().outputs.at("q").as<uint8_t>();
  rows.scales = run.value().outputs.at("s").as<uint8_t>();
  rows.scaleShape = {2, 8};
  const RoundTripCheck good = checkRoundTrip(problem, x, 2, nullptr, rows);
  EXPECT_TRUE(good.ok());
  EXPECT_LE(good.boundRatio, 1.0);

  QuantizedRows scaled = rows; // one scale off by a factor of two
  scaled.scales[3] += 1;
  EXPECT_FALSE(checkRoundTrip(problem, x, 2, nullptr, scaled).ok());
  EXPECT_GT(checkRoundTrip(problem, x, 2, nullptr, scaled).elementRatio, 1.0);
  for (size_t byte : {0, 5, 77, 200}) { // nibbles of one byte swapped
    QuantizedRows swapped = rows;
    swapped.codes[byte] = uint8_t((swapped.codes[byte] << 4) | (swapped.codes[byte] >> 4));
    if (swapped.codes[byte] != rows.codes[byte]) {
      EXPECT_FALSE(checkRoundTrip(problem, x, 2, nullptr, swapped).ok()) << byte;
    }
  }
  RotateQuantProblem unrotated = problem; // checked against the wrong rotation
  unrotated.rotation = {RotationKind::None, 0, kMfmaBf16ChunkK};
  EXPECT_FALSE(checkRoundTrip(unrotated, x, 2, nullptr, rows).ok());
}

TEST(QuantMetrics, UnrotateUndoesEveryRotation) {
  const uint64_t seed = testing::testSeed("QuantMetrics.UnrotateUndoesEveryRotation");
  struct Case {
    RotationKind kind;
    int rs;
    double tolerance; // bf16 matrices are orthogonal only to about 2^-9
  } cases[] = {{RotationKind::Hadamard, 64, 1e-6},
               {RotationKind::Hadamard, 128, 1e-2},
               {RotationKind::HadamardButterfly, 32, 1e-6},
               {RotationKind::Learned, 64, 2e-2},
               {RotationKind::LearnedPerBlock, 32, 2e-2}};
  for (const Case &c : cases) {
    SCOPED_TRACE(rotationKindName(c.kind));
    RotateQuantProblem problem;
    problem.k = 256;
    problem.rotation = {c.kind, c.rs, kMfmaBf16ChunkK};
    RandomStream stream(seed, "r");
    std::vector<uint16_t> r;
    for (size_t b = 0; b < rotationMatrixElements(c.kind, c.rs, 256) / size_t(c.rs * c.rs); ++b) {
      std::vector<uint16_t> one = randomOrthogonalBf16(stream, c.rs);
      r.insert(r.end(), one.begin(), one.end());
    }
    RandomStream xs(seed, "x");
    std::vector<uint16_t> x = randomNormalBf16(xs, 3 * 256);
    std::vector<float> restored =
        unrotateRows(problem.rotation, rotatedRows(problem, x.data(), 3, r.data()), 256, r.data());
    std::vector<float> original;
    for (uint16_t v : x)
      original.push_back(bf16ToF32(v));
    EXPECT_LT(relativeRmsError(restored, original), c.tolerance);
  }
}

TEST(QuantMetrics, RelativeRmsAndClipping) {
  EXPECT_EQ(relativeRmsError(std::vector<float>{1, 2}, std::vector<float>{1, 2}), 0.0);
  EXPECT_DOUBLE_EQ(relativeRmsError(std::vector<float>{0, 0}, std::vector<float>{3, 4}), 1.0);
  EXPECT_TRUE(std::isinf(relativeRmsError(std::vector<float>{1}, std::vector<float>{0})));
  QuantizedRows rows;
  rows.rows = 1;
  rows.k = 32;
  rows.format = ElemFormat::E2M1;
  rows.scales = {127}; // scale 1: fp4 represents up to 6
  std::vector<float> values(32, 1.0f);
  values[0] = 6.0f;
  values[1] = 6.5f;
  values[2] = -7.0f;
  EXPECT_DOUBLE_EQ(clippedFraction(values, rows), 2.0 / 32);
}

} // namespace
} // namespace mxf::arrays
