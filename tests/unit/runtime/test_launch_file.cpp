//===- test_launch_file.cpp - Launch files: parse, check, run on emu ------===//
//
// runtime/launch_file.h through the emu device with write_ids.hsaco (a
// kernel mxforge did not template: `out[gid] = gid` for gid < n, and
// out[n] = the grid's block count). Every bad file is refused with a
// message naming the problem, before any launch.
//
//===----------------------------------------------------------------------===//

#include "runtime/emu_device.h"
#include "runtime/launch_file.h"

#include "arrays/npy.h"
#include "tests/support/scratch_directory.h"

#include "codeobj/hsaco_reader.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

namespace mxf::runtime {
namespace {

std::vector<uint8_t> readWriteIds() {
  std::ifstream in(WRITE_IDS_HSACO, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << WRITE_IDS_HSACO;
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

/// write_ids' KernelInfo as its metadata note gives it (as the CLI reads it).
std::vector<KernelInfo> writeIdsInfos() {
  Result<std::vector<KernelInfo>> infos = codeobj::readKernelInfos(readWriteIds());
  EXPECT_TRUE(infos.ok()) << infos.error();
  return infos.ok() ? infos.value() : std::vector<KernelInfo>{};
}

/// A launch of write_ids over 2 workgroups of 64 with n = `n`.
std::string writeIdsFile(const std::string &args, const std::string &extra = "") {
  return R"({"code_object": "write_ids.hsaco", "grid": [2, 1, 1], "block": [64, 1, 1],
             "dynamic_lds": 0, "args": [)" +
         args + "]" + extra + "}";
}

Result<LaunchFileResult> parseAndRun(const std::string &text) {
  Result<LaunchFile> file = parseLaunchFile(text, "/tmp/dir/case.json");
  if (!file.ok())
    return file.status();
  Result<std::unique_ptr<Device>> device = openEmuDevice();
  if (!device.ok())
    return device.status();
  return runLaunchFile(*device.value(), file.value(), readWriteIds(), writeIdsInfos());
}

TEST(LaunchFile, ParsesEveryArgumentKind) {
  Result<LaunchFile> file = parseLaunchFile(
      R"({"code_object": "k.hsaco", "kernel": "k", "grid": [4, 2], "block": [256],
          "dynamic_lds": 1024, "unknown_key": {"ignored": true},
          "args": [{"buffer": "x", "in": "x.npy"}, {"buffer": "y", "out": "/abs/y.npy", "bytes": 16},
                   {"buffer": "a", "in": "a.npy", "out": "sub/a2.npy"}, {"buffer": null, "bytes": 0},
                   {"i32": -5}, {"u32": 4294967295}, {"i64": -9223372036854775808},
                   {"u64": 18446744073709551615}, {"f32": 0.5}]})",
      "dir/case.json");
  ASSERT_TRUE(file.ok()) << file.error();
  const LaunchFile &f = file.value();
  EXPECT_EQ(f.codeObjectPath, "dir/k.hsaco");
  EXPECT_EQ(f.kernel, "k");
  EXPECT_EQ(f.grid.x, 4u);
  EXPECT_EQ(f.grid.y, 2u);
  EXPECT_EQ(f.grid.z, 1u);
  EXPECT_EQ(f.block.x, 256u);
  EXPECT_EQ(f.dynamicLds, 1024u);
  ASSERT_EQ(f.args.size(), 9u);
  EXPECT_EQ(f.args[0].inPath, "dir/x.npy");
  EXPECT_EQ(f.args[1].outPath, "/abs/y.npy");
  EXPECT_EQ(f.args[1].bytes, 16u);
  EXPECT_EQ(f.args[2].outPath, "dir/sub/a2.npy");
  EXPECT_EQ(f.args[3].kind, LaunchFileArg::Kind::Scratch);
  EXPECT_EQ(f.args[4].bits, 0xfffffffbu);
  EXPECT_EQ(f.args[5].bits, 0xffffffffu);
  EXPECT_EQ(f.args[6].bits, 0x8000000000000000ull);
  EXPECT_EQ(f.args[7].bits, ~0ull);
  EXPECT_EQ(f.args[8].bits, 0x3f000000u);
  EXPECT_EQ(f.args[8].kernargBytes(), 4u);
  EXPECT_EQ(f.args[6].kernargBytes(), 8u);
}

TEST(LaunchFile, BadFilesNameTheProblem) {
  const std::pair<const char *, const char *> cases[] = {
      {"[1]", "must hold a JSON object"},
      {R"({"grid": [1], "block": [64], "args": []})", "\"code_object\""},
      {R"({"code_object": "k", "block": [64], "args": []})", "missing \"grid\""},
      {R"({"code_object": "k", "grid": [0], "block": [64], "args": []})", "\"grid\"[0]"},
      {R"({"code_object": "k", "grid": [1,1,1,1], "block": [64], "args": []})", "1 to 3"},
      {R"({"code_object": "k", "grid": [1], "block": [64], "dynamic_lds": 200000, "args": []})",
       "\"dynamic_lds\""},
      {R"({"code_object": "k", "grid": [1], "block": [64]})", "\"args\""},
      {R"({"code_object": "k", "grid": [1], "block": [64], "args": [{"i32": 2147483648}]})",
       "is not an integer in [-2^31, 2^31)"},
      {R"({"code_object": "k", "grid": [1], "block": [64], "args": [{"u32": -1}]})",
       "\"u32\""},
      {R"({"code_object": "k", "grid": [1], "block": [64], "args": [{"f32": 1e39}]})",
       "a finite float32"},
      {R"({"code_object": "k", "grid": [1], "block": [64], "args": [{"i32": 1, "u32": 1}]})",
       "has both"},
      {R"({"code_object": "k", "grid": [1], "block": [64], "args": [{"buffer": "y", "out": "y.npy"}]})",
       "needs \"bytes\""},
      {R"({"code_object": "k", "grid": [1], "block": [64], "args": [{"buffer": "y"}]})",
       "neither \"in\" nor \"out\""},
      {R"({"code_object": "k", "grid": [1], "block": [64], "args": [{"buffer": null}]})",
       "needs \"bytes\""},
      {R"({"code_object": "k", "grid": [1], "block": [64], "args": [{"buffer": null, "bytes": 4, "in": "a"}]})",
       "no \"in\" or \"out\""},
      {R"({"code_object": "k", "grid": [1], "block": [64],
           "args": [{"buffer": "a", "in": "a.npy"}, {"buffer": "a", "in": "b.npy"}]})",
       "reuses the name"},
      {R"({"code_object": "k", "grid": [1], "block": [64], "args": [7]})", "\"args\"[0]"},
  };
  for (const auto &[text, expected] : cases) {
    Result<LaunchFile> file = parseLaunchFile(text, "case.json");
    ASSERT_FALSE(file.ok()) << text;
    EXPECT_NE(file.error().find(expected), std::string::npos) << text << "\n" << file.error();
    EXPECT_EQ(file.error().rfind("case.json: ", 0), 0u) << file.error();
  }
}

TEST(LaunchFile, RunsWriteIdsAndPoisonsWhatItDoesNotWrite) {
  // 128 work-items, n = 100: out[0..99] = gid, out[100] = 2 block counts,
  // out[101..] keep the poison.
  Result<LaunchFileResult> result =
      parseAndRun(writeIdsFile(R"({"buffer": "out", "out": "out.npy", "bytes": 512}, {"i32": 100})"));
  ASSERT_TRUE(result.ok()) << result.error();
  ASSERT_EQ(result.value().outputs.size(), 1u);
  const LaunchFileOutput &out = result.value().outputs[0];
  EXPECT_EQ(out.path, "/tmp/dir/out.npy");
  ASSERT_EQ(out.bytes.size(), 512u);
  for (uint32_t i = 0; i < 128; ++i) {
    uint32_t value;
    std::memcpy(&value, &out.bytes[4 * i], 4);
    const uint32_t expected = i < 100 ? i : i == 100 ? 2 : 0xA5A5A5A5u;
    ASSERT_EQ(value, expected) << "out[" << i << "]";
  }
  EXPECT_GT(result.value().report.get("instructions"), 0u);
}

TEST(LaunchFile, ArgumentMismatchesAreRefusedBeforeAnythingRuns) {
  const std::pair<std::string, const char *> cases[] = {
      {R"({"buffer": "out", "out": "o.npy", "bytes": 512})", "argument 1 'n' (by_value, 4 bytes at offset 8) is missing"},
      {R"({"buffer": "out", "out": "o.npy", "bytes": 512}, {"i32": 1}, {"i32": 2})",
       "one too many"},
      {R"({"buffer": "out", "out": "o.npy", "bytes": 512}, {"i64": 100})", "8 bytes"},
      {R"({"i32": 100}, {"i32": 100})", "a scalar needs a by_value"},
      {R"({"buffer": "out", "out": "o.npy", "bytes": 512}, {"buffer": "n", "out": "n.npy", "bytes": 4})",
       "a pointer needs a global_buffer"},
  };
  for (const auto &[args, expected] : cases) {
    Result<LaunchFileResult> result = parseAndRun(writeIdsFile(args));
    ASSERT_FALSE(result.ok()) << args;
    EXPECT_NE(result.error().find(expected), std::string::npos) << args << "\n" << result.error();
  }
}

TEST(LaunchFile, WrongKernelNameListsTheKernels) {
  Result<LaunchFileResult> result = parseAndRun(writeIdsFile(
      R"({"buffer": "out", "out": "o.npy", "bytes": 512}, {"i32": 100})", R"(, "kernel": "nope")"));
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().find("no kernel named 'nope'"), std::string::npos) << result.error();
  EXPECT_NE(result.error().find("write_ids"), std::string::npos) << result.error();
  // The .kd symbol names the kernel too.
  Result<LaunchFileResult> kd = parseAndRun(writeIdsFile(
      R"({"buffer": "out", "out": "o.npy", "bytes": 512}, {"i32": 100})",
      R"(, "kernel": "write_ids.kd")"));
  EXPECT_TRUE(kd.ok()) << kd.error();
}

TEST(LaunchFile, BufferTooSmallForTheKernelIsAnErrorNamingTheAccess) {
  // n = 128 but the buffer holds 100 dwords: the store of gid 100 misses.
  Result<LaunchFileResult> result =
      parseAndRun(writeIdsFile(R"({"buffer": "out", "out": "o.npy", "bytes": 400}, {"i32": 128})"));
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().find("global_store_dword"), std::string::npos) << result.error();
  EXPECT_NE(result.error().find("lane"), std::string::npos) << result.error();
}

TEST(LaunchFile, InputsAreReadAsRawBytesAndNeverPoisoned) {
  testing::ScratchDirectory dir;
  ASSERT_TRUE(dir.ok());
  // An in+out buffer: write_ids overwrites out[0..9] and out[10] = 1; the
  // rest keeps the input's bytes (an f16 array, whatever its dtype).
  std::vector<uint16_t> halves(64);
  for (size_t i = 0; i < halves.size(); ++i)
    halves[i] = uint16_t(0x3c00 + i);
  Result<std::string> npy = arrays::encodeNpy(arrays::NpyArray::of<uint16_t>({64}, halves));
  ASSERT_TRUE(npy.ok());
  std::string f16 = npy.value();
  f16.replace(f16.find("<u2"), 3, "<f2"); // the same bytes, as an f16 array
  std::ofstream(dir.file("a.npy"), std::ios::binary) << f16;
  std::ofstream(dir.file("write_ids.hsaco"), std::ios::binary)
      .write(reinterpret_cast<const char *>(readWriteIds().data()), long(readWriteIds().size()));
  const std::string text = R"({"code_object": "write_ids.hsaco", "grid": [1], "block": [64],
      "args": [{"buffer": "a", "in": "a.npy", "out": "b.npy"}, {"i32": 10}]})";
  Result<LaunchFile> file = parseLaunchFile(text, dir.file("case.json"));
  ASSERT_TRUE(file.ok()) << file.error();
  Result<std::unique_ptr<Device>> device = openEmuDevice();
  ASSERT_TRUE(device.ok());
  Result<LaunchFileResult> result =
      runLaunchFile(*device.value(), file.value(), readWriteIds(), writeIdsInfos());
  ASSERT_TRUE(result.ok()) << result.error();
  const std::vector<uint8_t> &bytes = result.value().outputs.at(0).bytes;
  ASSERT_EQ(bytes.size(), 128u);
  for (uint32_t i = 0; i < 32; ++i) {
    uint32_t value;
    std::memcpy(&value, &bytes[4 * i], 4);
    const uint32_t input = uint32_t(halves[2 * i]) | (uint32_t(halves[2 * i + 1]) << 16);
    ASSERT_EQ(value, i < 10 ? i : i == 10 ? 1 : input) << "dword " << i;
  }
  // A missing input is named.
  std::remove(dir.file("a.npy").c_str());
  Result<LaunchFileResult> missing =
      runLaunchFile(*device.value(), file.value(), readWriteIds(), writeIdsInfos());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("a.npy"), std::string::npos) << missing.error();
}

} // namespace
} // namespace mxf::runtime
