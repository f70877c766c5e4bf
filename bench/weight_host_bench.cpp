//===- weight_host_bench.cpp - quant_weight on the host: fast vs reference ===//
//
// One table: million weight elements per second of weights::quantWeightHost
// at 1 and 2 threads against numerics' quantWeight (the baseline, one
// thread, timed in the same run on fewer rows: it is ~100x slower), by RS,
// rotation and format, on normal(0, 0.02) bf16 weights (K = 4096). Every
// host result is also compared with the reference's bytes on the rows both
// computed, so a fast but wrong row cannot hide in the table. Median of
// repeats; this machine's numbers; nothing asserts.
//
//   weight_host_bench [--rows N] [--repeats R]
//
//===----------------------------------------------------------------------===//

#include "bench/bench_support.h"
#include "numerics/formats.h"
#include "numerics/reference.h"
#include "weights/host_quantizer.h"

#include <fmt/core.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using mxf::bench::Clock;
using mxf::bench::median;
using mxf::bench::millisSince;

struct Row {
  mxf::RotationKind kind;
  int rs;
  mxf::ElemFormat format;
  mxf::WeightLayout wlayout = mxf::WeightLayout::Plain;
};

std::vector<uint16_t> normalBf16(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 0.02f);
  std::vector<uint16_t> out(n);
  for (uint16_t &v : out)
    v = mxf::f32ToBf16(normal(rng));
  return out;
}

std::vector<uint16_t> learnedMatrices(int rs, size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> noise(0.0f, 0.02f);
  std::vector<uint16_t> out(count * size_t(rs) * rs);
  for (size_t i = 0; i < out.size(); ++i) {
    size_t r = (i / rs) % rs, c = i % rs;
    float sign = (__builtin_popcount(unsigned(r & c)) & 1) ? -1.0f : 1.0f;
    out[i] = mxf::f32ToBf16(sign / std::sqrt(float(rs)) * (1.0f + noise(rng)));
  }
  return out;
}

} // namespace

int main(int argc, char **argv) {
  size_t rows = 2048, refRows = 64;
  int repeats = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--rows"))
      rows = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--repeats"))
      repeats = std::atoi(argv[i + 1]);
  }
  const size_t k = 4096;
  using mxf::ElemFormat;
  using mxf::RotationKind;
  std::vector<Row> table = {{RotationKind::None, 0, ElemFormat::E2M1},
                            {RotationKind::None, 0, ElemFormat::E2M3}};
  for (int rs : {32, 64, 128, 256})
    for (RotationKind kind : {RotationKind::Hadamard, RotationKind::Learned,
                              RotationKind::LearnedPerBlock, RotationKind::HadamardButterfly})
      for (ElemFormat format : {ElemFormat::E2M1, ElemFormat::E2M3})
        table.push_back({kind, rs, format});
  // The W6A16 tiles cost one scatter of 24-byte lanes per row; the first
  // refRows rows are still the first bytes (tiles are row-tile major).
  table.push_back({RotationKind::Hadamard, 64, ElemFormat::E2M3, mxf::WeightLayout::W6A16Tile16x128});

  const std::vector<uint16_t> w = normalBf16(rows * k, 1);
  fmt::print("quant_weight on the host, K={} N={} (reference: N={}), bf16 normal(0, 0.02),\n"
             "scale=even round=rne inter=f32 layout=plain, wlayout=plain unless named; Melem/s = million "
             "weight elements per second, median of {}\n\n",
             k, rows, refRows, repeats);
  fmt::print("{:<20} {:>4} {:<22} {:>9} {:>9} {:>9} {:>9} {:>7} {:>6}\n", "rot", "RS", "fmt",
             "ref", "1T", "2T", "1T/ref", "2T/ref", "2T/1T");
  bool allEqual = true;
  for (const Row &row : table) {
    mxf::RotateQuantProblem p;
    p.k = k;
    p.rotation = {row.kind, row.rs, 32};
    p.quant.format = row.format;
    std::vector<uint16_t> r = mxf::isLearned(row.kind)
                                  ? learnedMatrices(row.rs,
                                                    row.kind == RotationKind::Learned ? 1 : k / row.rs, 2)
                                  : std::vector<uint16_t>();
    const uint16_t *rotation = r.empty() ? nullptr : r.data();

    auto start = Clock::now();
    mxf::Result<mxf::QuantizedRows> ref =
        mxf::quantWeight(p, row.wlayout, w.data(), refRows, rotation);
    const double refMs = millisSince(start);
    if (!ref.ok()) {
      fmt::print(stderr, "error: {}\n", ref.error());
      return 1;
    }
    double rates[2];
    for (unsigned threads : {1u, 2u}) {
      std::vector<double> ms;
      for (int rep = 0; rep < repeats; ++rep) {
        start = Clock::now();
        mxf::Result<mxf::QuantizedRows> host = mxf::weights::quantWeightHost(
            p, row.wlayout, w.data(), rows, rotation, threads);
        ms.push_back(millisSince(start));
        if (!host.ok()) {
          fmt::print(stderr, "error: {}\n", host.error());
          return 1;
        }
        const size_t refCodes = ref.value().codes.size(), refScales = ref.value().scales.size();
        if (std::memcmp(host.value().codes.data(), ref.value().codes.data(), refCodes) ||
            std::memcmp(host.value().scales.data(), ref.value().scales.data(), refScales))
          allEqual = false;
      }
      rates[threads - 1] = double(rows * k) / (median(ms) * 1e3);
    }
    const double refRate = double(refRows * k) / (refMs * 1e3);
    std::string format = mxf::formatInfo(row.format).specName;
    if (row.wlayout != mxf::WeightLayout::Plain)
      format += std::string(" ") + mxf::weightLayoutName(row.wlayout);
    fmt::print("{:<20} {:>4} {:<22} {:>9.2f} {:>9.1f} {:>9.1f} {:>8.0f}x {:>6.0f}x {:>5.2f}x\n",
               mxf::rotationKindName(row.kind), row.rs, format,
               refRate, rates[0], rates[1], rates[0] / refRate, rates[1] / refRate,
               rates[1] / rates[0]);
  }
  fmt::print("\nhost bytes equal to the reference's on the first {} rows: {}\n", refRows,
             allEqual ? "yes, every row" : "NO");
  return allEqual ? 0 : 1;
}
