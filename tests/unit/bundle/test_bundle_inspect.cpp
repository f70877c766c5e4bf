//===- test_bundle_inspect.cpp - mxforge inspect on bundles ---------------===//
//
// Bundles of real gfx950 code objects: those the codeobj tests build from
// tests/unit/codeobj/Inputs at build time (MXFORGE_CODEOBJ_TEST_DIR), each
// under a made-up canonical spec, with the KernelInfo read back from the code
// object as the compiler does.
//
//===----------------------------------------------------------------------===//

#include "codeobj/hsaco_reader.h"
#include "runtime/bundle.h"
#include "runtime/bundle_writer.h"
#include "spec/kernel_spec.h"
#include "support/file_io.h"
#include "tests/unit/bundle/bundle_test_support.h"
#include "tools/mxforge/inspect_command.h"

#include <gtest/gtest.h>

#include <fstream>

namespace mxf {
namespace {

using namespace mxf::testing;

struct InspectRun {
  int status;
  std::string out, err;
};

InspectRun inspect(std::vector<std::string> files, bool kernels = false, bool disasm = false) {
  cli::InspectOptions options;
  options.files = std::move(files);
  options.kernels = kernels;
  options.disassembly = disasm;
  InspectRun run;
  llvm::raw_string_ostream out(run.out), err(run.err);
  run.status = cli::runInspect(options, out, err);
  out.flush();
  err.flush();
  return run;
}

/// A bundle input from one of the codeobj tests' code objects: its first
/// kernel's KernelInfo, read back from the ELF.
BundleInput realInput(const std::string &hsacoName, const std::string &spec) {
  BundleInput input;
  Result<std::vector<uint8_t>> bytes =
      readFileBytes(std::string(MXFORGE_CODEOBJ_TEST_DIR) + "/" + hsacoName);
  EXPECT_TRUE(bytes.ok()) << bytes.error();
  if (!bytes.ok())
    return input;
  input.hsaco = bytes.value();
  Result<std::vector<KernelInfo>> infos = codeobj::readKernelInfos(input.hsaco);
  EXPECT_TRUE(infos.ok()) << infos.error();
  if (infos.ok())
    input.kernel = infos.value().front();
  input.launch.workgroupSize = 64;
  input.launch.gridX = 1;
  input.launch.rowsPerWorkgroup = 16;
  input.launch.ldsBytes = input.kernel.ldsBytes;
  input.launch.maxRows = 256;
  input.spec = printSpec(parseSpec(spec).value());
  return input;
}

class BundleInspect : public ::testing::Test {
protected:
  void SetUp() override {
    inputs_.push_back(realInput("lds_v5.hsaco", "rotate_quant:K=4096,RS=64,M=16"));
    inputs_.push_back(realInput("mfma_cvt.hsaco", "rotate_quant:K=4096,RS=64,M=32"));
    inputs_.push_back(realInput("scratch.hsaco", "rotate_quant:K=8192,RS=128,M=1"));
    path_ = dir_.file("decode.mxfb");
  }
  void write() {
    Status written = writeBundleFile(path_, testHeader(), inputs_);
    ASSERT_TRUE(written.ok()) << written.message();
  }
  bool contains(const std::string &text, const std::string &part) {
    return text.find(part) != std::string::npos;
  }
  TempDir dir_;
  std::string path_;
  std::vector<BundleInput> inputs_;
};

// Free text from the file is escaped: a version string or kernel name with
// ESC, newlines or NUL cannot clear the terminal or forge report lines.
TEST_F(BundleInspect, TextFromTheFileIsEscaped) {
  BundleHeaderInfo header = testHeader();
  header.mxforgeVersion = std::string("0.1\x1b[2J\nFORGED", 14) + std::string(1, '\0');
  Status written = writeBundleFile(path_, header, inputs_);
  ASSERT_TRUE(written.ok()) << written.message();
  InspectRun run = inspect({path_});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_TRUE(contains(run.out, "  mxforge version:    0.1\\x1b[2J\\x0aFORGED\\x00\n"))
      << run.out;
  EXPECT_EQ(run.out.find('\x1b'), std::string::npos);
  EXPECT_EQ(run.out.find(std::string(1, '\0')), std::string::npos);
}

TEST_F(BundleInspect, ListsTheHeaderAndTheKernels) {
  write();
  InspectRun run = inspect({path_});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.err, "");
  Result<Bundle> bundle = Bundle::load(path_);
  ASSERT_TRUE(bundle.ok()) << bundle.error();
  std::string expectedHeader = "decode.mxfb: mxforge bundle, 3 kernels, " +
                               std::to_string(bundle.value().bytes().size()) +
                               " bytes\n"
                               "  format version:     3\n"
                               "  kernel ABI:         2\n"
                               "  template revision:  " +
                               std::to_string(kTemplateRevision) +
                               "\n"
                               "  mxforge version:    " +
                               testHeader().mxforgeVersion +
                               "\n"
                               "  LLVM version:       22.1.0\n"
                               "  target:             amdgcn-amd-amdhsa--gfx950\n\n";
  EXPECT_EQ(run.out.substr(0, expectedHeader.size()), expectedHeader) << run.out;
  // The table: a header row, a rule, one row per kernel in file (spec) order.
  size_t header = run.out.find("\n  #  ");
  ASSERT_NE(header, std::string::npos) << run.out;
  std::string headerRow = run.out.substr(header + 1, run.out.find('\n', header + 1) - header - 1);
  size_t column = 0;
  for (const char *name : {"VGPRs", "AGPRs", "SGPRs", "LDS", "scratch", "waves/SIMD", "bytes",
                           "wg", "grid.x", "rows/wg", "max m", "code", "origin", "sha256", "spec",
                           "kernel"}) {
    column = headerRow.find(std::string(" ") + name, column);
    ASSERT_NE(column, std::string::npos) << name << " in " << headerRow;
  }
  for (size_t i = 0; i < bundle.value().size(); ++i) {
    const Bundle::Kernel &kernel = bundle.value().kernels()[i];
    const KernelInfo &info = kernel.kernel;
    size_t at = run.out.find("  " + kernel.spec + " ");
    ASSERT_NE(at, std::string::npos) << kernel.spec << "\n" << run.out;
    size_t begin = run.out.rfind('\n', at) + 1, end = run.out.find('\n', at);
    std::string tail = run.out.substr(at, end - at);
    EXPECT_EQ(tail.substr(tail.size() - info.name.size() - 2), "  " + info.name) << tail;
    std::string line = run.out.substr(begin, at - begin);
    std::vector<std::string> cells;
    for (size_t p = 0; p < line.size();) {
      size_t start = line.find_first_not_of(' ', p);
      if (start == std::string::npos)
        break;
      size_t end = line.find(' ', start);
      cells.push_back(line.substr(start, end - start));
      p = end == std::string::npos ? line.size() : end;
    }
    std::vector<std::string> expected = {std::to_string(i),
                                         std::to_string(info.vgprCount),
                                         std::to_string(info.agprCount),
                                         std::to_string(info.sgprCount),
                                         std::to_string(info.ldsBytes),
                                         std::to_string(info.scratchBytes),
                                         "",
                                         std::to_string(kernel.hsacoSize),
                                         std::to_string(kernel.launch.workgroupSize),
                                         std::to_string(kernel.launch.gridX),
                                         std::to_string(kernel.launch.rowsPerWorkgroup),
                                         std::to_string(kernel.launch.maxRows),
                                         "#" + std::to_string(i),
                                         bundleCodeOriginName(kernel.origin),
                                         kernel.checksum.hex().substr(0, 12)};
    ASSERT_EQ(cells.size(), expected.size()) << line;
    for (size_t c = 0; c < cells.size(); ++c) {
      if (c != 6) {
        EXPECT_EQ(cells[c], expected[c]) << "column " << c << " of: " << line;
      }
    }
    // Waves per SIMD: lds_reverse's 64 KiB of LDS with 256-item workgroups
    // allow 2; the others are not limited.
    EXPECT_EQ(cells[6], info.name == "lds_reverse" ? "2" : "8") << line;
  }
  // Without --kernels, no per-kernel report.
  EXPECT_FALSE(contains(run.out, "occupancy:"));
}

TEST_F(BundleInspect, KernelsFlagReportsEachCodeObject) {
  write();
  InspectRun run = inspect({path_}, /*kernels=*/true);
  ASSERT_EQ(run.status, 0) << run.err;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    Result<Bundle> bundle = Bundle::load(path_);
    const Bundle::Kernel &kernel = bundle.value().kernels()[i];
    EXPECT_TRUE(
        contains(run.out, "\n[" + std::to_string(i) + "] " + kernel.spec + ": code object v"))
        << run.out;
    EXPECT_TRUE(contains(run.out, "\nkernel " + kernel.kernel.name + "\n")) << run.out;
  }
  EXPECT_TRUE(contains(run.out, "occupancy: 2 waves/SIMD, limited by lds")) << run.out;
  EXPECT_TRUE(contains(run.out, "WARNING: scratch in use")) << run.out;
  EXPECT_FALSE(contains(run.out, "WARNING: the manifest")) << run.out;
  EXPECT_FALSE(contains(run.out, "disassembly:"));

  InspectRun disasm = inspect({path_}, /*kernels=*/false, /*disasm=*/true);
  ASSERT_EQ(disasm.status, 0) << disasm.err;
  EXPECT_TRUE(contains(disasm.out, "disassembly:"));
  EXPECT_TRUE(contains(disasm.out, "s_endpgm"));
}

TEST_F(BundleInspect, WarnsWhenTheManifestDisagreesWithTheCodeObject) {
  inputs_[0].kernel.vgprCount += 8;
  write();
  InspectRun run = inspect({path_}, /*kernels=*/true);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_TRUE(contains(run.out, "WARNING: the manifest's KernelInfo differs from the code "
                                "object's: VGPRs " +
                                    std::to_string(inputs_[0].kernel.vgprCount) + " vs " +
                                    std::to_string(inputs_[0].kernel.vgprCount - 8)))
      << run.out;
  // A manifest naming a kernel its code object does not define no longer
  // loads at all (BundleSeal.*), so inspect reports the loader's error.
  inputs_[1].kernel.name = "not_there";
  write();
  InspectRun refused = inspect({path_}, /*kernels=*/true);
  EXPECT_EQ(refused.status, 1);
  EXPECT_TRUE(contains(refused.err, "the code object does not define kernel 'not_there'"))
      << refused.err;
}

// Issue 34: the checksums seal bytes, so a bundle re-sealed with two entries'
// code objects swapped, each entry still naming its own spec's kernel,
// passed every check and launched the other spec's code. The loader now
// requires each code object to define the kernel its entry names.
TEST_F(BundleInspect, SwappedCodeUnderTheRightNamesDoesNotLoad) {
  const std::string named = inputs_[0].kernel.name, holder = inputs_[1].kernel.name;
  ASSERT_NE(named, holder);
  std::swap(inputs_[0].hsaco, inputs_[1].hsaco);
  write();
  Result<Bundle> loaded = Bundle::load(path_);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error().find("the code object does not define kernel '" + named +
                                "' (no symbol '" + named + ".kd'): it holds another kernel's "
                                "code)"),
            std::string::npos)
      << loaded.error();
  // The same entries unswapped load: the check is not a false alarm.
  std::swap(inputs_[0].hsaco, inputs_[1].hsaco);
  write();
  Result<Bundle> control = Bundle::load(path_);
  ASSERT_TRUE(control.ok()) << control.error();
}

// An ELF whose section table lies outside the code object is an error, never
// a read past it.
TEST_F(BundleInspect, ADamagedElfSectionTableIsAnError) {
  std::vector<uint8_t> &elf = inputs_[2].hsaco;
  ASSERT_GT(elf.size(), 64u);
  for (int i = 0; i < 8; ++i)
    elf[0x28 + i] = 0xff; // e_shoff
  write();
  Result<Bundle> loaded = Bundle::load(path_);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error().find("the code object's ELF is damaged: ELF section header 0 lies "
                                "outside the file"),
            std::string::npos)
      << loaded.error();
}

TEST_F(BundleInspect, ABundledObjectThatIsNotACodeObjectIsAnError) {
  inputs_[1].hsaco.assign(512, 0x5a);
  write();
  InspectRun table = inspect({path_});
  EXPECT_EQ(table.status, 0) << table.err; // the table needs only the manifest
  InspectRun run = inspect({path_}, /*kernels=*/true);
  EXPECT_EQ(run.status, 1);
  EXPECT_TRUE(contains(run.err, "error: '" + path_ + "' kernel 1 ('" + inputs_[1].spec +
                                    "') is not a valid gfx950 code object: "))
      << run.err;
  // The others are still reported.
  EXPECT_TRUE(contains(run.out, "\nkernel lds_reverse\n"));
  EXPECT_TRUE(contains(run.out, "\nkernel private_array\n"));
}

TEST_F(BundleInspect, DamagedBundlesAreTheLoadersErrors) {
  write();
  Result<std::vector<uint8_t>> good = readFileBytes(path_);
  ASSERT_TRUE(good.ok());
  auto writeFile = [&](const std::string &name, const std::vector<uint8_t> &bytes) {
    std::string path = dir_.file(name);
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
    return path;
  };
  std::vector<uint8_t> cut(good.value().begin(), good.value().begin() + 1000);
  std::string truncated = writeFile("cut.mxfb", cut);
  InspectRun run = inspect({truncated});
  EXPECT_EQ(run.status, 1);
  EXPECT_EQ(run.err, "error: " + truncated + ": truncated (1000 of " +
                         std::to_string(good.value().size()) + " bytes)\n");
  EXPECT_EQ(run.out, "");

  std::string magicOnly = writeFile("magic.mxfb", {'M', 'X', 'F', 'B'});
  run = inspect({magicOnly});
  EXPECT_EQ(run.status, 1);
  EXPECT_EQ(run.err, "error: " + magicOnly +
                         ": truncated (4 bytes, shorter than the 64-byte bundle header)\n");

  std::vector<uint8_t> flipped = good.value();
  flipped[flipped.size() / 2] ^= 4;
  std::string corrupted = writeFile("flipped.mxfb", flipped);
  run = inspect({path_, corrupted, path_});
  EXPECT_EQ(run.status, 1);
  EXPECT_EQ(run.err, "error: " + corrupted + ": corrupted (file checksum mismatch)\n");
  // Both good copies are still reported.
  size_t first = run.out.find("decode.mxfb: mxforge bundle");
  ASSERT_NE(first, std::string::npos);
  EXPECT_NE(run.out.find("decode.mxfb: mxforge bundle", first + 1), std::string::npos);
}

} // namespace
} // namespace mxf
