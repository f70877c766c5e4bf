//===- test_witness_corpus.cpp - The emulator against an H200, byte for byte ===//
//
// One test per corpus case: the code object Triton compiled for gfx950,
// launched on the emulator with the inputs the H200 ran, every output byte
// compared with the H200's (or, for the documented inexact cases, within
// their bound). Then negative controls: a changed byte fails, and a launch
// file that disagrees with the code object is refused with a message.
//
//===----------------------------------------------------------------------===//

#include "tests/witness/witness_case.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>

namespace mxf::witness {
namespace {

const std::string kCorpus = MXFORGE_WITNESS_CORPUS;

std::vector<std::string> caseNames() {
  Result<std::vector<std::string>> names = corpusCaseNames(kCorpus);
  return names.ok() ? names.value() : std::vector<std::string>{"(manifest unreadable)"};
}

uint64_t freshSeed() {
  const uint64_t seed = std::random_device{}();
  std::printf("witness negative control seed: %llu\n", (unsigned long long)seed);
  return seed;
}

class WitnessCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(WitnessCorpus, EmulatorAgreesWithTheGpu) {
  Result<WitnessCase> c = loadCase(kCorpus, GetParam());
  ASSERT_TRUE(c.ok()) << c.error();
  Result<runtime::LaunchFileResult> run = runOnEmulator(c.value());
  ASSERT_TRUE(run.ok()) << run.error();
  size_t checked = 0;
  for (const Expectation &e : c.value().expectations) {
    Result<std::vector<uint8_t>> expected = readExpected(e);
    ASSERT_TRUE(expected.ok()) << expected.error();
    const runtime::LaunchFileOutput *actual = nullptr;
    for (const runtime::LaunchFileOutput &o : run.value().outputs)
      if (o.buffer == e.buffer)
        actual = &o;
    ASSERT_NE(actual, nullptr) << "no output " << e.buffer;
    const std::string diff = compareOutput(e, actual->bytes, expected.value());
    EXPECT_EQ(diff, "") << GetParam() << ": " << diff;
    if (e.kind != "bytes")
      std::printf("%s: %s compared as %s (%s)\n", GetParam().c_str(), e.buffer.c_str(),
                  e.kind.c_str(), e.reason.c_str());
    checked += actual->bytes.size();
  }
  std::printf("%s: %zu output bytes checked, %llu wave-instructions\n", GetParam().c_str(),
              checked, (unsigned long long)run.value().report.get("instructions"));
}

INSTANTIATE_TEST_SUITE_P(Cases, WitnessCorpus, ::testing::ValuesIn(caseNames()),
                         [](const ::testing::TestParamInfo<std::string> &info) {
                           std::string name = info.param;
                           for (char &ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch)))
                               ch = '_';
                           return name;
                         });

TEST(WitnessCorpusManifest, HoldsAtLeast24CasesWithProvenance) {
  Result<std::vector<std::string>> names = corpusCaseNames(kCorpus);
  ASSERT_TRUE(names.ok()) << names.error();
  EXPECT_GE(names.value().size(), 24u);
  Result<std::vector<std::string>> provenance = corpusProvenance(kCorpus);
  ASSERT_TRUE(provenance.ok()) << provenance.error();
  bool triton = false, gpu = false;
  for (const std::string &line : provenance.value()) {
    std::printf("provenance %s\n", line.c_str());
    triton |= line.rfind("triton: ", 0) == 0;
    gpu |= line.rfind("gpu: ", 0) == 0;
  }
  EXPECT_TRUE(triton && gpu) << "MANIFEST.json must say which Triton and which GPU";
}

/// The first case (in manifest order) whose launch has a by-value argument
/// and an output buffer: the subject of the negative controls.
WitnessCase controlCase() {
  for (const std::string &name : caseNames()) {
    Result<WitnessCase> c = loadCase(kCorpus, name);
    if (!c.ok())
      continue;
    bool scalar = false;
    for (const runtime::LaunchFileArg &arg : c.value().launch.args)
      scalar |= arg.kind == runtime::LaunchFileArg::Kind::I32;
    if (scalar)
      return std::move(c.value());
  }
  ADD_FAILURE() << "no corpus case with an i32 argument";
  return {};
}

TEST(WitnessNegativeControls, OneChangedOutputByteFails) {
  WitnessCase c = controlCase();
  ASSERT_FALSE(c.expectations.empty());
  Result<runtime::LaunchFileResult> run = runOnEmulator(c);
  ASSERT_TRUE(run.ok()) << run.error();
  const Expectation &e = c.expectations[0];
  Result<std::vector<uint8_t>> expected = readExpected(e);
  ASSERT_TRUE(expected.ok()) << expected.error();
  const runtime::LaunchFileOutput &actual = run.value().outputs.at(0);
  ASSERT_EQ(actual.buffer, e.buffer);
  std::mt19937_64 rng(freshSeed());
  std::vector<uint8_t> changed = expected.value();
  const size_t at = rng() % changed.size();
  changed[at] ^= uint8_t(1 + rng() % 255);
  Expectation exact = e;
  exact.kind = "bytes";
  EXPECT_EQ(compareOutput(exact, actual.bytes, expected.value()).empty(), e.kind == "bytes");
  const std::string diff = compareOutput(exact, actual.bytes, changed);
  EXPECT_NE(diff.find("byte " + std::to_string(at)), std::string::npos) << diff;
}

Status runStatus(const WitnessCase &c) {
  Result<runtime::LaunchFileResult> run = runOnEmulator(c);
  return run.ok() ? Status::success() : run.status();
}

TEST(WitnessNegativeControls, WrongArgumentSizeIsRefused) {
  WitnessCase c = controlCase();
  for (runtime::LaunchFileArg &arg : c.launch.args)
    if (arg.kind == runtime::LaunchFileArg::Kind::I32) {
      arg.kind = runtime::LaunchFileArg::Kind::I64;
      break;
    }
  Status s = runStatus(c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("i64), 8 bytes"), std::string::npos) << s.message();
}

TEST(WitnessNegativeControls, MissingArgumentIsRefused) {
  WitnessCase c = controlCase();
  c.launch.args.pop_back();
  Status s = runStatus(c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("is missing"), std::string::npos) << s.message();
}

TEST(WitnessNegativeControls, WrongKernelNameIsRefused) {
  WitnessCase c = controlCase();
  c.launch.kernel = "not_a_kernel";
  Status s = runStatus(c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("no kernel named 'not_a_kernel'"), std::string::npos) << s.message();
}

TEST(WitnessNegativeControls, BufferTooSmallStopsAtTheAccess) {
  WitnessCase c = controlCase();
  bool shrunk = false;
  for (runtime::LaunchFileArg &arg : c.launch.args)
    if (arg.kind == runtime::LaunchFileArg::Kind::Buffer && arg.inPath.empty() && arg.bytes > 4) {
      arg.bytes = 4; // the kernel writes more than 4 bytes of every output
      shrunk = true;
      break;
    }
  ASSERT_TRUE(shrunk);
  Status s = runStatus(c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("lane "), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("instruction '"), std::string::npos) << s.message();
}

} // namespace
} // namespace mxf::witness
