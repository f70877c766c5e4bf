//===- test_e2e_rotate_quant.cpp - Compiled kernels vs numerics/ ----------===//
//
// Smoke test of the whole emulator on real compiled kernels: LLVM IR of
// rotate_quant kernels from the template driver (Inputs/*.O3.ll), compiled
// with llc-22 + ld.lld-22 at build time, run with random bf16 activations,
// and compared bit for bit with numerics' rotateQuant. Buffers are registered
// with their exact sizes for m rows, so any access past row m is an error.
//
//===----------------------------------------------------------------------===//

#include "emu_harness.h"

#include "numerics/formats.h"
#include "numerics/reference.h"
#include "numerics/rotation.h"

#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

namespace mxf::emu::test {
namespace {

struct E2eCase {
  const char *file;
  RotationKind rotation;
  size_t k;
  int rs;
  unsigned bucket;
};

std::shared_ptr<const LoadedCodeObject> loadInput(const char *file) {
  auto buffer = llvm::MemoryBuffer::getFile(std::string(MXFORGE_EMU_E2E_DIR) + "/" + file);
  if (!buffer)
    return nullptr;
  auto loaded = LoadedCodeObject::load(
      reinterpret_cast<const uint8_t *>((*buffer)->getBufferStart()), (*buffer)->getBufferSize());
  EXPECT_TRUE(loaded.ok()) << loaded.error();
  return loaded.ok() ? loaded.value() : nullptr;
}

const KernelArgInfo *arg(const KernelInfo &info, size_t explicitIndex) {
  size_t n = 0;
  for (const KernelArgInfo &a : info.args)
    if (a.valueKind.rfind("hidden_", 0) != 0 && n++ == explicitIndex)
      return &a;
  return nullptr;
}

std::vector<uint16_t> randomBf16(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> pick(0, 99);
  std::vector<uint16_t> x(n);
  for (size_t i = 0; i < n; ++i) {
    float v = normal(rng);
    if (pick(rng) == 0)
      v *= 40.0f; // outliers: blocks with a large amax
    if (i % 1024 < 32 && seed % 2)
      v = 0.0f; // a zero block
    x[i] = f32ToBf16(v);
  }
  return x;
}

void runCase(const E2eCase &c, unsigned m, uint32_t seed, unsigned threads) {
  SCOPED_TRACE(std::string(c.file) + " m=" + std::to_string(m) + " seed=" + std::to_string(seed));
  std::shared_ptr<const LoadedCodeObject> code = loadInput(c.file);
  ASSERT_TRUE(code);
  const std::vector<KernelInfo> infos = code->kernelInfos();
  ASSERT_EQ(infos.size(), 1u);
  const KernelInfo &info = infos[0];
  const bool learned = c.rotation == RotationKind::Learned;
  ASSERT_EQ(info.explicitArgCount(), learned ? 5u : 4u);
  EXPECT_TRUE(code->unsupportedInstructions(info.name).empty())
      << code->unsupportedInstructions(info.name)[0];

  std::vector<uint16_t> x = randomBf16(m * c.k, seed);
  std::vector<uint16_t> r;
  if (learned) {
    std::mt19937 rng(seed + 7);
    std::normal_distribution<float> normal(0.0f, 0.125f);
    r.resize(size_t(c.rs) * c.rs);
    for (uint16_t &v : r)
      v = f32ToBf16(normal(rng));
  }
  std::vector<uint8_t> q(m * c.k / 2, 0xAA), s(m * c.k / 32, 0xAA);

  const uint64_t xAddr = 0x100000000ull, rAddr = 0x200000000ull, qAddr = 0x300000000ull,
                 sAddr = 0x400000000ull;
  std::vector<EmuBuffer> buffers = {{xAddr, x.data(), x.size() * 2},
                                    {qAddr, q.data(), q.size()},
                                    {sAddr, s.data(), s.size()}};
  if (learned)
    buffers.push_back({rAddr, r.data(), r.size() * 2});
  std::vector<uint8_t> kernargs(info.kernargSize, 0);
  auto put = [&](size_t index, const void *value, size_t size) {
    const KernelArgInfo *a = arg(info, index);
    ASSERT_TRUE(a);
    ASSERT_EQ(a->size, size);
    std::memcpy(&kernargs[a->offset], value, size);
  };
  size_t i = 0;
  put(i++, &xAddr, 8);
  if (learned)
    put(i++, &rAddr, 8);
  put(i++, &qAddr, 8);
  put(i++, &sAddr, 8);
  const int32_t mArg = int32_t(m);
  put(i++, &mArg, 4);

  const uint32_t wg = std::min<uint32_t>(256, info.maxWorkgroupSize ? info.maxWorkgroupSize : 256);
  const uint32_t blocks = uint32_t(c.k / c.rs);
  const std::array<uint32_t, 3> grid = {(blocks + 3) / 4, (c.bucket + 15) / 16, 1};
  LaunchOptions options;
  options.threads = threads;
  Result<LaunchStats> stats =
      launch(*code, info.name, grid, {wg, 1, 1}, 0, kernargs, buffers, options);
  ASSERT_TRUE(stats.ok()) << stats.error();

  RotateQuantProblem problem;
  problem.k = c.k;
  problem.rotation.kind = c.rotation;
  problem.rotation.rs = c.rs;
  problem.quant.format = ElemFormat::E2M1;
  problem.quant.rule = ScaleRule::Even;
  Result<QuantizedRows> ref = rotateQuant(problem, x.data(), m, learned ? r.data() : nullptr);
  ASSERT_TRUE(ref.ok()) << ref.error();
  size_t codeMismatches = 0, scaleMismatches = 0;
  std::string first;
  for (size_t b = 0; b < q.size(); ++b)
    if (q[b] != ref.value().codes[b]) {
      if (codeMismatches++ == 0)
        first = "first code mismatch at byte " + std::to_string(b) + " (row " +
                std::to_string(b / (c.k / 2)) + ", channels " + std::to_string(2 * (b % (c.k / 2))) +
                "): emulator " + std::to_string(q[b]) + " reference " +
                std::to_string(ref.value().codes[b]);
    }
  for (size_t b = 0; b < s.size(); ++b)
    if (s[b] != ref.value().scales[b]) {
      if (scaleMismatches++ == 0 && first.empty())
        first = "first scale mismatch at " + std::to_string(b) + ": emulator " +
                std::to_string(s[b]) + " reference " + std::to_string(ref.value().scales[b]);
    }
  const LaunchStats &st = stats.value();
  std::printf("[ e2e    ] %s m=%u: %llu wave-instructions (valu %llu, salu %llu, vmem %llu, "
              "lds %llu, mfma %llu, cvt-scaled %llu), %llu waves, peak VGPR %d, "
              "%llu B read, %llu B written\n",
              c.file, m, (unsigned long long)st.instructions(),
              (unsigned long long)st.count(Family::Valu), (unsigned long long)st.count(Family::Salu),
              (unsigned long long)st.count(Family::Vmem), (unsigned long long)st.count(Family::Lds),
              (unsigned long long)st.count(Family::Mfma),
              (unsigned long long)st.count(Family::CvtScaled), (unsigned long long)st.waves,
              st.peakVgprIndex, (unsigned long long)st.globalBytesRead,
              (unsigned long long)st.globalBytesWritten);
  EXPECT_EQ(codeMismatches, 0u) << first;
  EXPECT_EQ(scaleMismatches, 0u) << first;
  EXPECT_GT(stats.value().count(Family::Mfma), 0u);
  EXPECT_GT(stats.value().count(Family::CvtScaled), 0u);
  EXPECT_EQ(stats.value().globalBytesWritten, q.size() + s.size());
}

const E2eCase kHadamard64 = {"rs64.hsaco", RotationKind::Hadamard, 4096, 64, 16};
const E2eCase kLearned64 = {"l.hsaco", RotationKind::Learned, 4096, 64, 1};

TEST(EmuE2e, HadamardRs64FullBucket) { runCase(kHadamard64, 16, 1, 2); }
TEST(EmuE2e, HadamardRs64RaggedM) { runCase(kHadamard64, 5, 2, 2); }
TEST(EmuE2e, HadamardRs64SingleRow) { runCase(kHadamard64, 1, 3, 1); }
TEST(EmuE2e, LearnedRs64SingleRow) { runCase(kLearned64, 1, 4, 2); }
TEST(EmuE2e, HadamardRs64OtherSeeds) {
  for (uint32_t seed = 10; seed < 14; ++seed)
    runCase(kHadamard64, 1 + seed % 16, seed, 2);
}

} // namespace
} // namespace mxf::emu::test
