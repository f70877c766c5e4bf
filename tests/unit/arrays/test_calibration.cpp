//===- test_calibration.cpp - Which layers a rotation helps ---------------===//
//
// Layers with known character: Gaussian rows (a Hadamard rotation keeps them
// Gaussian: no gain), rows with one 20-sigma outlier per 32 channels (the
// rotation spreads it: most of the error goes), rows of +-1 (exact in fp4
// without rotation, inexact after it: the rotation adds error). Then the
// threshold's decision and every refusal.
//
//===----------------------------------------------------------------------===//

#include "arrays/calibration.h"
#include "numerics/formats.h"
#include "tests/unit/test_seed.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace mxf::arrays {
namespace {

constexpr int kK = 1024;

KernelSpec hadamardSpec() {
  Result<KernelSpec> spec = parseSpec("rotate_quant:K=1024,RS=64,rot=hadamard,scale=rceil");
  EXPECT_TRUE(spec.ok()) << spec.error();
  return spec.value();
}

enum class Kind { Gaussian, Outliers, Signs };

LayerSamples layer(Kind kind, size_t rows, std::mt19937_64 &rng) {
  std::normal_distribution<float> normal;
  LayerSamples out;
  out.name = kind == Kind::Gaussian ? "gaussian" : kind == Kind::Outliers ? "outliers" : "signs";
  out.rows = rows;
  for (size_t i = 0; i < rows * kK; ++i) {
    float v = normal(rng);
    if (kind == Kind::Outliers && i % 32 == 5)
      v *= 20.0f;
    if (kind == Kind::Signs)
      v = v < 0 ? -1.0f : 1.0f;
    out.x.push_back(f32ToBf16(v));
  }
  return out;
}

TEST(Calibration, TheRotationHelpsOutliersOnly) {
  std::mt19937_64 rng(testing::testSeed("Calibration.TheRotationHelpsOutliersOnly"));
  const KernelSpec spec = hadamardSpec();
  Result<LayerCalibration> gaussian = calibrateLayer(spec, layer(Kind::Gaussian, 64, rng), nullptr, 0.05);
  Result<LayerCalibration> outliers = calibrateLayer(spec, layer(Kind::Outliers, 64, rng), nullptr, 0.05);
  Result<LayerCalibration> signs = calibrateLayer(spec, layer(Kind::Signs, 64, rng), nullptr, 0.05);
  ASSERT_TRUE(gaussian.ok() && outliers.ok() && signs.ok());
  // Gaussian rows stay Gaussian: the errors agree within a few percent.
  EXPECT_LT(std::fabs(gaussian.value().gain), 0.05);
  EXPECT_FALSE(gaussian.value().rotate);
  // A 20-sigma value per block crushes the other 31 without rotation.
  EXPECT_GT(outliers.value().gain, 0.3);
  EXPECT_TRUE(outliers.value().rotate);
  EXPECT_NEAR(outliers.value().gain,
              1 - outliers.value().rotatedRelRms / outliers.value().plainRelRms, 1e-12);
  // +-1 is exact in fp4 (a block of +-1 has a power-of-two scale that maps
  // it to a code): only the rotation makes error.
  EXPECT_EQ(signs.value().plainRelRms, 0.0);
  EXPECT_GT(signs.value().rotatedRelRms, 0.05);
  EXPECT_EQ(signs.value().gain, -1.0);
  EXPECT_FALSE(signs.value().rotate);
  EXPECT_EQ(outliers.value().rows, 64u);
  EXPECT_EQ(outliers.value().name, "outliers");
}

TEST(Calibration, TheThresholdDecides) {
  std::mt19937_64 rng(testing::testSeed("Calibration.TheThresholdDecides"));
  const KernelSpec spec = hadamardSpec();
  const LayerSamples samples = layer(Kind::Outliers, 32, rng);
  Result<LayerCalibration> measured = calibrateLayer(spec, samples, nullptr, 0.0);
  ASSERT_TRUE(measured.ok());
  const double gain = measured.value().gain;
  EXPECT_TRUE(calibrateLayer(spec, samples, nullptr, gain * 0.99).value().rotate);
  EXPECT_FALSE(calibrateLayer(spec, samples, nullptr, gain).value().rotate); // strictly more
  EXPECT_FALSE(calibrateLayer(spec, samples, nullptr, std::min(0.999, gain * 1.01)).value().rotate);
}

TEST(Calibration, BadInputIsRefusedByName) {
  const KernelSpec spec = hadamardSpec();
  EXPECT_TRUE(checkCalibration(spec, 0.05, false).ok());
  KernelSpec plain = spec;
  plain.RS = 0;
  plain.rot = RotationKind::None;
  EXPECT_NE(checkCalibration(plain, 0.05, false).message().find("RS=0"), std::string::npos);
  KernelSpec learned = spec;
  learned.rot = RotationKind::Learned;
  EXPECT_NE(checkCalibration(learned, 0.05, false).message().find("rotation matrix"),
            std::string::npos);
  EXPECT_TRUE(checkCalibration(learned, 0.05, true).ok());
  for (double bad : {-0.1, 1.0, std::nan("")})
    EXPECT_NE(checkCalibration(spec, bad, false).message().find("threshold"), std::string::npos)
        << bad;
  KernelSpec weights = spec;
  weights.op = KernelOp::QuantWeight;
  weights.N = 16;
  EXPECT_NE(checkCalibration(weights, 0.05, false).message().find("rotate_quant spec"),
            std::string::npos);

  LayerSamples empty;
  empty.name = "empty";
  EXPECT_NE(calibrateLayer(spec, empty, nullptr, 0.05).error().find("layer 'empty': no samples"),
            std::string::npos);
  LayerSamples ragged;
  ragged.name = "ragged";
  ragged.rows = 2;
  ragged.x.assign(kK + 7, 0x3F80);
  EXPECT_NE(calibrateLayer(spec, ragged, nullptr, 0.05).error().find("not 2 rows of K=1024"),
            std::string::npos);
  LayerSamples nan;
  nan.name = "nan";
  nan.rows = 1;
  nan.x.assign(kK, 0x3F80);
  nan.x[70] = 0x7FC0;
  EXPECT_NE(calibrateLayer(spec, nan, nullptr, 0.05).error().find("channel 70 is not finite"),
            std::string::npos);
}

} // namespace
} // namespace mxf::arrays
