//===- test_bundle_extract.cpp - mxforge bundle extract's file names -------===//
//
// Issue 34: `bundle extract` named each file after its kernel, so two entries
// whose different code objects carry one kernel name (a damaged or hand-made
// bundle) were written as one file, the second dropped. Such code objects are
// now named by entry index; entries sharing one code object still share one
// file.
//
//===----------------------------------------------------------------------===//

#include "runtime/bundle.h"
#include "runtime/bundle_writer.h"
#include "support/file_io.h"
#include "tests/unit/bundle/bundle_test_support.h"
#include "tests/unit/test_seed.h"
#include "tools/mxforge/bundle_extract.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

namespace mxf {
namespace {

using namespace mxf::testing;

struct ExtractRun {
  int status;
  std::string out, err;
};

ExtractRun extract(const std::string &bundle, const std::string &directory) {
  cli::ExtractOptions options;
  options.bundle = bundle;
  options.outputDirectory = directory;
  ExtractRun run;
  llvm::raw_string_ostream out(run.out), err(run.err);
  run.status = cli::runBundleExtract(options, out, err);
  out.flush();
  err.flush();
  return run;
}

std::vector<uint8_t> readOrEmpty(const std::string &path) {
  Result<std::vector<uint8_t>> bytes = readFileBytes(path);
  return bytes.ok() ? bytes.value() : std::vector<uint8_t>{};
}

/// launch_records.tsv's `file` column, by spec.
std::map<std::string, std::string> filesBySpec(const std::string &tsv) {
  std::map<std::string, std::string> files;
  std::istringstream lines(tsv);
  std::string line;
  std::getline(lines, line); // the header
  while (std::getline(lines, line)) {
    std::vector<std::string> cells;
    std::istringstream row(line);
    for (std::string cell; std::getline(row, cell, '\t');)
      cells.push_back(cell);
    if (cells.size() >= 3)
      files[cells[0]] = cells[2];
  }
  return files;
}

TEST(BundleExtract, CodeObjectsSharingAKernelNameGetOneFileEach) {
  std::mt19937_64 rng(testSeed("BundleExtract.CodeObjectsSharingAKernelNameGetOneFileEach"));
  std::vector<BundleInput> inputs = randomInputs(rng, 4, 64, 256);
  // Entries 0 and 1: one kernel name, different code. Entry 2 shares entry
  // 0's code and name (one tiling class). Entry 3 is unrelated.
  inputs[1].kernel.name = inputs[0].kernel.name;
  inputs[2].kernel = inputs[0].kernel;
  inputs[2].launch = inputs[0].launch;
  inputs[2].hsaco = inputs[0].hsaco;
  ASSERT_NE(inputs[0].hsaco, inputs[1].hsaco);
  TempDir dir;
  const std::string bundlePath = dir.file("collide.mxfb");
  Status written = writeBundleFile(bundlePath, testHeader(), inputs);
  ASSERT_TRUE(written.ok()) << written.message();
  Result<Bundle> bundle = Bundle::load(bundlePath);
  ASSERT_TRUE(bundle.ok()) << bundle.error();

  const std::string out = dir.file("out");
  ExtractRun run = extract(bundlePath, out);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("extracted 4 kernels (3 code objects)"), std::string::npos) << run.out;
  const std::vector<uint8_t> tsv = readOrEmpty(out + "/launch_records.tsv");
  std::map<std::string, std::string> files = filesBySpec(std::string(tsv.begin(), tsv.end()));
  ASSERT_EQ(files.size(), 4u);
  // Every entry's file holds exactly that entry's code.
  for (const BundleInput &input : inputs) {
    SCOPED_TRACE(input.spec);
    ASSERT_TRUE(files.count(input.spec));
    EXPECT_EQ(readOrEmpty(out + "/" + files[input.spec]), input.hsaco);
  }
  EXPECT_NE(files[inputs[0].spec], files[inputs[1].spec]) << "one file for two code objects";
  EXPECT_EQ(files[inputs[0].spec], files[inputs[2].spec]) << "one code object, one file";
  // The colliding ones are named by the index of the first entry holding them.
  for (size_t input : {size_t(0), size_t(1)}) {
    const Bundle::Kernel *kernel = bundle.value().find(inputs[input].spec);
    size_t first = bundle.value().size();
    for (size_t i = 0; i < bundle.value().size(); ++i)
      if (bundle.value().kernels()[i].checksum == kernel->checksum) {
        first = i;
        break;
      }
    EXPECT_EQ(files[inputs[input].spec],
              inputs[0].kernel.name + ".entry" + std::to_string(first) + ".hsaco");
  }
  EXPECT_EQ(files[inputs[3].spec], inputs[3].kernel.name + ".hsaco") << "no collision, plain name";
}

} // namespace
} // namespace mxf
