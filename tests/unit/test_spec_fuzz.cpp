//===- test_spec_fuzz.cpp - Randomized and exhaustive spec properties -----===//
//
// The properties spec/kernel_spec.h promises, checked on far more inputs than
// anyone would write by hand:
//  - every mutated text is either accepted, with print(parse(t)) a fixed point
//    of parse-then-print, or rejected with a non-empty one-line message, and
//    never crashes or reads outside the input (each input lives in a buffer of
//    exactly its size, so AddressSanitizer sees any over-read);
//  - over grids of specs built in code, validateSpec agrees with an
//    independent statement of the rules, parse(print(s)) == s for the valid
//    ones and parse(print(s)) fails with validateSpec's message for the rest;
//  - omitting defaulted keys and shuffling the rest does not change the spec.
//
//===----------------------------------------------------------------------===//

#include "spec/kernel_spec.h"

#include "tests/unit/test_seed.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace mxf {
namespace {

/// splitmix64: cheap, so that the fuzz loop's time goes to the parser.
class Rng {
public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, bound); bound > 0.
  size_t below(size_t bound) { return static_cast<size_t>(next() % bound); }
  bool oneIn(size_t n) { return below(n) == 0; }
  template <typename T> const T &pick(const std::vector<T> &values) {
    return values[below(values.size())];
  }

private:
  uint64_t state_;
};

// Valid specs of every op, canonical and short, as mutation starting points.
const std::vector<std::string> kSeeds = {
    "rotate_quant:K=4096,RS=64,rot=hadamard,M=16,fmt=fp4,scale=even,round=rne,inter=f32,"
    "layout=plain,arch=gfx950",
    "rotate_quant:K=4096",
    "rotate_quant:RS=128,K=16384,fmt=fp8_e5m2,scale=rceil_recip,round=sr,M=1",
    "rotate_quant_moe:K=7168,RS=128,rot=learned,M=64,topk=8,E=256,block=64,fmt=fp8_e4m3,"
    "scale=rceil,round=sr,inter=bf16,layout=a4w4_shuffle,arch=gfx950",
    "rotate_quant_moe:K=2048,topk=2,E=8",
    "rotate_quant_moe:E=128,topk=4,K=4096,RS=32,rot=hadamard_butterfly,block=128,fmt=fp6_e3m2",
    "rotate_quant_gemm:K=4096,N=14336,RS=32,rot=hadamard_butterfly,M=1,fmt=fp4,scale=floor,"
    "round=rne,inter=f32,layout=a4w4_shuffle,wlayout=preshuffle_16x16,arch=gfx950",
    "rotate_quant_gemm:K=8192,N=1024",
    "quant_weight:K=2048,N=512,RS=256,rot=learned_per_block,fmt=fp6_e2m3,scale=even126,"
    "round=rne,inter=bf16,layout=plain,wlayout=plain,arch=gfx950",
    "quant_weight:N=4096,K=4096,wlayout=preshuffle_16x16,RS=64",
};

// Pieces a mutation may insert: every key, op and enum spelling, numbers
// around each bound, and syntax.
const std::vector<std::string> kTokens = {
    "K",
    "RS",
    "rot",
    "rconv",
    "xr",
    "xrt",
    "M",
    "topk",
    "E",
    "block",
    "stage",
    "emask",
    "N",
    "fmt",
    "scale",
    "round",
    "inter",
    "layout",
    "wlayout",
    "arch",
    "rotate_quant",
    "rotate_quant_moe",
    "rotate_quant_gemm",
    "quant_weight",
    "none",
    "hadamard",
    "hadamard_butterfly",
    "learned",
    "learned_per_block",
    "fp4",
    "fp6_e2m3",
    "fp6_e3m2",
    "fp8_e4m3",
    "fp8_e5m2",
    "floor",
    "even",
    "rceil",
    "rceil_recip",
    "ceil",
    "even126",
    "rne",
    "sr",
    "f32",
    "bf16",
    "plain",
    "a4w4_shuffle",
    "preshuffle_16x16",
    "w6a16_16x128",
    "gfx950",
    "gfx942",
    "0",
    "1",
    "8",
    "9",
    "16",
    "20",
    "31",
    "32",
    "64",
    "96",
    "128",
    "256",
    "512",
    "1024",
    "1025",
    "4096",
    "4128",
    "65536",
    "65568",
    "1048576",
    "1048592",
    "999999999",
    "1000000000",
    "-1",
    "+32",
    "0x40",
    "=",
    ",",
    ":",
    ",,",
    "==",
    " ",
    "\t",
    "\n",
    std::string(1, '\0'),
    "\xff",
    "\xc3\xa9",
};

/// Every key=value item of the seeds (from all ops), for splicing.
std::vector<std::string> seedItems() {
  std::vector<std::string> items;
  for (const std::string &seed : kSeeds) {
    size_t pos = seed.find(':') + 1;
    while (pos <= seed.size()) {
      size_t comma = seed.find(',', pos);
      if (comma == std::string::npos)
        comma = seed.size();
      items.push_back(seed.substr(pos, comma - pos));
      pos = comma + 1;
    }
  }
  return items;
}

/// [begin, end) of the item-sized segments of `text` split at ',' and ':'.
std::vector<std::pair<size_t, size_t>> segments(const std::string &text) {
  std::vector<std::pair<size_t, size_t>> out;
  size_t begin = 0;
  for (size_t i = 0; i <= text.size(); ++i)
    if (i == text.size() || text[i] == ',' || text[i] == ':') {
      out.emplace_back(begin, i);
      begin = i + 1;
    }
  return out;
}

/// One random edit of `text`.
void mutate(std::string &text, Rng &rng, const std::vector<std::string> &items) {
  size_t size = text.size();
  switch (rng.below(14)) {
  case 0: // insert a random byte (NUL and high bytes included)
    text.insert(text.begin() + rng.below(size + 1), static_cast<char>(rng.below(256)));
    return;
  case 1: { // delete a short range
    if (size == 0)
      return;
    size_t at = rng.below(size);
    text.erase(at, 1 + rng.below(8));
    return;
  }
  case 2: // replace a byte
    if (size)
      text[rng.below(size)] = static_cast<char>(rng.below(256));
    return;
  case 3: { // duplicate a segment somewhere
    auto parts = segments(text);
    auto [b, e] = parts[rng.below(parts.size())];
    std::string copy = text.substr(b, e - b);
    text.insert(rng.below(size + 1), rng.oneIn(2) ? "," + copy : copy);
    return;
  }
  case 4: { // swap two segments
    auto parts = segments(text);
    if (parts.size() < 2)
      return;
    size_t i = rng.below(parts.size()), j = rng.below(parts.size());
    if (i == j)
      return;
    if (i > j)
      std::swap(i, j);
    auto [bi, ei] = parts[i];
    auto [bj, ej] = parts[j];
    std::string first = text.substr(bi, ei - bi), second = text.substr(bj, ej - bj);
    text.replace(bj, ej - bj, first); // the later one first: keeps bi, ei valid
    text.replace(bi, ei - bi, second);
    return;
  }
  case 5: // splice an item of some op (often another op) after a comma or at the end
  case 6: {
    const std::string &item = rng.pick(items);
    size_t comma = text.find(',', rng.below(size + 1));
    if (comma == std::string::npos)
      text += "," + item;
    else
      text.insert(comma + 1, item + ",");
    return;
  }
  case 7: { // replace a segment with a spliced item
    auto parts = segments(text);
    if (parts.size() < 2)
      return;
    auto [b, e] = parts[1 + rng.below(parts.size() - 1)]; // not the op
    text.replace(b, e - b, rng.pick(items));
    return;
  }
  case 8: { // a huge or odd number as some value
    auto parts = segments(text);
    auto [b, e] = parts[rng.below(parts.size())];
    size_t eq = text.find('=', b);
    if (eq == std::string::npos || eq >= e)
      return;
    std::string digits(1 + rng.below(rng.oneIn(4) ? 40 : 11), '0');
    for (char &d : digits)
      d = static_cast<char>('0' + rng.below(10));
    text.replace(eq + 1, e - eq - 1, digits);
    return;
  }
  case 9: { // a known token as some value
    auto parts = segments(text);
    auto [b, e] = parts[rng.below(parts.size())];
    size_t eq = text.find('=', b);
    if (eq == std::string::npos || eq >= e)
      return;
    text.replace(eq + 1, e - eq - 1, rng.pick(kTokens));
    return;
  }
  case 10: // insert a token anywhere
    text.insert(rng.below(size + 1), rng.pick(kTokens));
    return;
  case 11: { // drop an item (its key falls back to the default, or goes missing)
    auto parts = segments(text);
    auto [b, e] = parts[rng.below(parts.size())];
    text.erase(b, e - b + (e < size ? 1 : 0));
    return;
  }
  case 12: // outer whitespace (trimmed) or a truncation
    if (rng.oneIn(2))
      text = (rng.oneIn(2) ? " \t" : "\n") + text + (rng.oneIn(2) ? "\r\n" : " ");
    else
      text.resize(rng.below(size + 1));
    return;
  case 13: // now and then, blow past the length limit
    if (size <= kMaxSpecLength && rng.oneIn(16))
      text.append(kMaxSpecLength - size + rng.below(3), rng.oneIn(2) ? ' ' : ',');
    return;
  }
}

TEST(SpecFuzz, MutatedSpecsParseToFixedPointsOrFailCleanly) {
  Rng rng(mxf::testing::testSeed("SpecFuzz.MutatedSpecsParseToFixedPointsOrFailCleanly"));
  const std::vector<std::string> items = seedItems();
  constexpr size_t kIterations = 1000000;
  // Accepted canonical texts feed later iterations, so mutations stack on
  // inputs that got past the earlier checks.
  std::vector<std::string> pool = kSeeds;
  size_t accepted = 0, rejected = 0, failures = 0;
  auto start = std::chrono::steady_clock::now();
  for (size_t iter = 0; iter < kIterations && failures < 10; ++iter) {
    std::string text = rng.oneIn(2) ? rng.pick(kSeeds) : rng.pick(pool);
    for (size_t edits = 1 + rng.below(3); edits > 0; --edits)
      mutate(text, rng, items);
    // Exactly sized heap copy: the byte after the input is a redzone, not
    // the std::string's NUL terminator.
    std::unique_ptr<char[]> buffer(new char[text.size() ? text.size() : 1]);
    std::memcpy(buffer.get(), text.data(), text.size());
    Result<KernelSpec> parsed = parseSpec(std::string_view(buffer.get(), text.size()));
    if (!parsed.ok()) {
      ++rejected;
      if (parsed.error().empty() || parsed.error().find('\n') != std::string::npos) {
        ++failures;
        ADD_FAILURE() << "bad message for '" << text << "': '" << parsed.error() << "'";
      }
      continue;
    }
    ++accepted;
    std::string printed = printSpec(parsed.value());
    Result<KernelSpec> reparsed = parseSpec(printed);
    if (!reparsed.ok() || reparsed.value() != parsed.value() ||
        printSpec(reparsed.value()) != printed || !validateSpec(parsed.value()).ok()) {
      ++failures;
      ADD_FAILURE() << "'" << text << "' parsed and printed as '" << printed << "', which "
                    << (reparsed.ok() ? "prints as '" + printSpec(reparsed.value()) + "'"
                                      : "fails: " + reparsed.error());
      continue;
    }
    if (pool.size() < 4096)
      pool.push_back(printed);
    else
      pool[rng.below(pool.size())] = printed;
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("[ fuzz     ] %zu accepted, %zu rejected in %.2f s\n", accepted, rejected, seconds);
  EXPECT_EQ(failures, 0u);
  // Both outcomes must be common, or the mutations explore only one side.
  EXPECT_GT(accepted, kIterations / 100);
  EXPECT_GT(rejected, kIterations / 100);
}

// --- Grids of specs built in code --------------------------------------------

/// The rules of docs/spec.md, restated independently of spec_validation.cpp.
/// Only for specs whose enums are in range and foreign fields at defaults.
bool expectedValid(const KernelSpec &s) {
  auto in = [](int v, std::initializer_list<int> set) {
    for (int x : set)
      if (v == x)
        return true;
    return false;
  };
  bool hasM = s.op != KernelOp::QuantWeight;
  bool hasN = s.op == KernelOp::RotateQuantGemm || s.op == KernelOp::QuantWeight;
  if (s.K < 32 || s.K > 65536 || s.K % 32)
    return false;
  if (!in(s.RS, {0, 32, 64, 128, 256}) || (s.RS == 0) != (s.rot == RotationKind::None))
    return false;
  if (s.RS && s.K % s.RS)
    return false;
  if (s.rconv != RotationConvention::XR && s.rot != RotationKind::Learned &&
      s.rot != RotationKind::LearnedPerBlock)
    return false;
  if (hasM && !in(s.M, {1, 2, 4, 8, 16, 32, 64, 128, 256}))
    return false;
  if (s.op == KernelOp::RotateQuantMoe &&
      (s.E < 1 || s.E > 1024 || s.topk < 1 || s.topk > s.E || s.topk > 127 ||
       !in(s.block, {16, 32, 64, 128}) || !in(s.stage, {1, 2}) || !in(s.emask, {0, 1})))
    return false;
  if (hasN && (s.N < 16 || s.N > 1048576 || s.N % 16))
    return false;
  // Both ops: fp4 (A4W4) or fp6_e2m3 (W6A16).
  if ((s.op == KernelOp::RotateQuantGemm || s.op == KernelOp::QuantWeight) &&
      s.fmt != ElemFormat::E2M1 && s.fmt != ElemFormat::E2M3)
    return false;
  if (s.wlayout == WeightLayout::Preshuffle16x16 && (s.fmt != ElemFormat::E2M1 || s.K % 64))
    return false;
  if (s.wlayout == WeightLayout::W6A16Tile16x128 &&
      (!hasN || s.fmt != ElemFormat::E2M3 || s.K % 128))
    return false;
  return s.arch == "gfx950";
}

struct GridStats {
  size_t valid = 0, invalid = 0, failures = 0;
};

void checkGridSpec(const KernelSpec &spec, GridStats &stats) {
  Status status = validateSpec(spec);
  std::string printed = printSpec(spec);
  if (status.ok() != expectedValid(spec)) {
    ++stats.failures;
    ADD_FAILURE() << printed << ": validateSpec says " << (status.ok() ? "valid" : status.message())
                  << ", the rules say " << (expectedValid(spec) ? "valid" : "invalid");
    return;
  }
  Result<KernelSpec> parsed = parseSpec(printed);
  if (status.ok()) {
    ++stats.valid;
    if (!parsed.ok() || parsed.value() != spec || printSpec(parsed.value()) != printed) {
      ++stats.failures;
      ADD_FAILURE() << printed << " does not round-trip: "
                    << (parsed.ok() ? printSpec(parsed.value()) : parsed.error());
    }
    return;
  }
  ++stats.invalid;
  // Printing writes every key, so the parser's only objection is the
  // validator's, word for word.
  if (parsed.ok() || parsed.error() != status.message()) {
    ++stats.failures;
    ADD_FAILURE() << printed << ": parse says '" << (parsed.ok() ? "ok" : parsed.error())
                  << "', validateSpec says '" << status.message() << "'";
  }
}

constexpr RotationKind kRots[] = {RotationKind::None, RotationKind::Hadamard,
                                  RotationKind::HadamardButterfly, RotationKind::Learned,
                                  RotationKind::LearnedPerBlock};

TEST(SpecGrid, ShapesRoundTripAndMatchTheRules) {
  const std::vector<int> ks = {0, 32, 64, 96, 100, 4096, 4128, 65536, 65568};
  const std::vector<int> rss = {0, 32, 48, 64, 128, 256};
  const std::vector<int> ms = {0, 1, 3, 16, 256, 512};
  const std::vector<std::pair<int, int>> topkE = {{1, 1}, {8, 256}, {9, 8}, {0, 8}, {1, 1025}};
  const std::vector<int> blocks = {32, 64, 128, 16, 80};
  const std::vector<int> ns = {16, 20, 4096, 1048576, 1048592};
  GridStats stats;
  size_t counter = 0; // cycles the numerics through all their values
  for (KernelOp op : kAllKernelOps) {
    bool moe = op == KernelOp::RotateQuantMoe;
    bool hasN = op == KernelOp::RotateQuantGemm || op == KernelOp::QuantWeight;
    bool hasM = op != KernelOp::QuantWeight;
    for (int K : ks)
      for (int RS : rss)
        for (RotationKind rot : kRots)
          for (int M : hasM ? ms : std::vector<int>{16})
            for (auto [topk, E] : moe ? topkE : std::vector<std::pair<int, int>>{{0, 0}})
              for (int block : moe ? blocks : std::vector<int>{32})
                for (int N : hasN ? ns : std::vector<int>{0})
                  for (int wl = 0; wl < (hasN ? 3 : 1); ++wl)
                    for (ElemFormat fmt : kAllElemFormats) {
                      KernelSpec s;
                      s.op = op;
                      s.K = K;
                      s.RS = RS;
                      s.rot = rot;
                      s.M = M;
                      s.topk = topk;
                      s.E = E;
                      s.block = block;
                      if (moe) { // every stage/emask pair, one bad value of each now and then
                        s.stage = 1 + int(counter % 2) + (counter % 97 == 0 ? 2 : 0);
                        s.emask = int((counter / 2) % 2) + (counter % 89 == 0 ? 2 : 0);
                      }
                      s.N = N;
                      s.wlayout = static_cast<WeightLayout>(wl);
                      s.fmt = fmt;
                      ++counter;
                      s.scale = kAllScaleRules[counter % 6];
                      s.round = static_cast<Rounding>(counter % 2);
                      s.inter = static_cast<Intermediate>((counter / 2) % 2);
                      s.layout = static_cast<ScaleLayout>((counter / 3) % 2);
                      // Both conventions of a learned rotation (printSpec
                      // does not carry rconv for the others, so a foreign
                      // xrt there is SpecParse's negative case instead).
                      if (isLearned(rot))
                        s.rconv = static_cast<RotationConvention>((counter / 5) % 2);
                      checkGridSpec(s, stats);
                      if (stats.failures > 10)
                        return;
                    }
  }
  std::printf("[ grid     ] %zu valid, %zu invalid\n", stats.valid, stats.invalid);
  EXPECT_EQ(stats.failures, 0u);
  EXPECT_GT(stats.valid, 1000u);
}

TEST(SpecGrid, NumericsRoundTripAndMatchTheRules) {
  GridStats stats;
  for (KernelOp op : kAllKernelOps) {
    bool hasW = op == KernelOp::RotateQuantGemm || op == KernelOp::QuantWeight;
    for (int RS : {0, 64, 256})
      for (RotationKind rot : kRots)
        for (ElemFormat fmt : kAllElemFormats)
          for (ScaleRule scale : kAllScaleRules)
            for (int round = 0; round < 2; ++round)
              for (int inter = 0; inter < 2; ++inter)
                for (int layout = 0; layout < 2; ++layout)
                  for (int wl = 0; wl < (hasW ? 3 : 1); ++wl)
                    for (const char *arch : {"gfx950", "gfx942"}) {
                      KernelSpec s;
                      s.op = op;
                      s.K = 4096;
                      s.RS = RS;
                      s.rot = rot;
                      if (op == KernelOp::RotateQuantMoe) {
                        s.topk = 8;
                        s.E = 64;
                      }
                      if (hasW)
                        s.N = 2048;
                      s.fmt = fmt;
                      s.scale = scale;
                      s.round = static_cast<Rounding>(round);
                      s.inter = static_cast<Intermediate>(inter);
                      s.layout = static_cast<ScaleLayout>(layout);
                      s.wlayout = static_cast<WeightLayout>(wl);
                      s.arch = arch;
                      checkGridSpec(s, stats);
                      if (stats.failures > 10)
                        return;
                    }
  }
  std::printf("[ grid     ] %zu valid, %zu invalid\n", stats.valid, stats.invalid);
  EXPECT_EQ(stats.failures, 0u);
  EXPECT_GT(stats.valid, 1000u);
}

/// The text a key takes when left out (docs/spec.md), given the spec's other
/// values; empty for required keys.
std::string defaultText(const KernelSpec &spec, std::string_view key) {
  if (key == "RS")
    return "0";
  if (key == "rot")
    return spec.RS == 0 ? "none" : "hadamard";
  if (key == "M")
    return "16";
  if (key == "block")
    return "32";
  if (key == "fmt")
    return "fp4";
  if (key == "scale")
    return "even";
  if (key == "round")
    return "rne";
  if (key == "inter")
    return "f32";
  if (key == "layout")
    return spec.op == KernelOp::RotateQuantMoe ? "a4w4_shuffle" : "plain";
  if (key == "wlayout")
    return "plain";
  if (key == "rconv")
    return "xr";
  if (key == "arch")
    return "gfx950";
  return std::string();
}

TEST(SpecFuzz, OmittedDefaultsAndShuffledKeysGiveTheSameSpec) {
  Rng rng(mxf::testing::testSeed("SpecFuzz.OmittedDefaultsAndShuffledKeysGiveTheSameSpec"));
  size_t checked = 0, omitted = 0;
  for (size_t iter = 0; iter < 20000; ++iter) {
    // A random valid spec: draw fields until the validator accepts.
    KernelSpec s;
    s.op = kAllKernelOps[rng.below(4)];
    s.RS = std::vector<int>{0, 32, 64, 128, 256}[rng.below(5)];
    s.rot = s.RS == 0 ? RotationKind::None : kRots[1 + rng.below(4)];
    s.K = 256 * (1 + static_cast<int>(rng.below(256)));
    if (isLearned(s.rot))
      s.rconv = static_cast<RotationConvention>(rng.below(2));
    if (s.op != KernelOp::QuantWeight)
      s.M = 1 << rng.below(9);
    if (s.op == KernelOp::RotateQuantMoe) {
      s.E = 1 + static_cast<int>(rng.below(1024));
      s.topk = 1 + static_cast<int>(rng.below(std::min(s.E, 127)));
      s.block = 32 << rng.below(3);
    }
    if (s.op == KernelOp::RotateQuantGemm || s.op == KernelOp::QuantWeight) {
      s.N = 16 * (1 + static_cast<int>(rng.below(65536)));
      s.wlayout = static_cast<WeightLayout>(rng.below(3));
    }
    s.fmt = s.op == KernelOp::RotateQuantGemm || s.op == KernelOp::QuantWeight
                ? static_cast<ElemFormat>(rng.below(2))
                : kAllElemFormats[rng.below(5)];
    if (s.wlayout == WeightLayout::Preshuffle16x16 && s.fmt != ElemFormat::E2M1)
      s.wlayout = WeightLayout::Plain;
    if (s.wlayout == WeightLayout::W6A16Tile16x128 &&
        s.fmt != ElemFormat::E2M3)
      s.wlayout = WeightLayout::Plain; // K is a multiple of 256 here
    s.scale = kAllScaleRules[rng.below(std::size(kAllScaleRules))];
    s.round = static_cast<Rounding>(rng.below(2));
    if (s.fmt == ElemFormat::E2M3 && rng.oneIn(3))
      s.round = Rounding::Rna; // AITER A6W6's rounding, fp6_e2m3 only
    s.inter = static_cast<Intermediate>(rng.below(2));
    s.layout = static_cast<ScaleLayout>(rng.below(2));
    if (s.op == KernelOp::RotateQuant && s.RS > 0) {
      s.select = static_cast<RotationSelect>(rng.below(3));
      if (s.select == RotationSelect::Mask)
        s.layers = 1 + static_cast<int>(rng.below(65536));
    }
    ASSERT_TRUE(validateSpec(s).ok()) << printSpec(s) << ": " << validateSpec(s).message();

    // Items of the canonical text; drop some that equal their default.
    std::string canonical = printSpec(s);
    std::vector<std::string> items;
    size_t pos = canonical.find(':') + 1;
    for (std::string_view key : specKeys(s.op)) {
      if (key == "rconv" && !isLearned(s.rot)) // not part of the text
        continue;
      if ((key == "select" && s.select == RotationSelect::Off) ||
          (key == "layers" && s.select != RotationSelect::Mask))
        continue;
      size_t comma = canonical.find(',', pos);
      std::string item = canonical.substr(pos, comma == std::string::npos ? comma : comma - pos);
      pos = comma + 1;
      std::string value = item.substr(key.size() + 1);
      if (value == defaultText(s, key) && rng.oneIn(2)) {
        ++omitted;
        continue;
      }
      items.push_back(item);
    }
    for (size_t i = items.size(); i > 1; --i) // Fisher-Yates
      std::swap(items[i - 1], items[rng.below(i)]);
    std::string text = std::string(kernelOpName(s.op)) + ":";
    for (size_t i = 0; i < items.size(); ++i)
      text += (i ? "," : "") + items[i];

    Result<KernelSpec> parsed = parseSpec(text);
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.error();
    ASSERT_EQ(parsed.value(), s) << text << " parsed as " << printSpec(parsed.value())
                                 << ", expected " << canonical;
    ++checked;
  }
  EXPECT_EQ(checked, 20000u);
  EXPECT_GT(omitted, 20000u);
}

} // namespace
} // namespace mxf
