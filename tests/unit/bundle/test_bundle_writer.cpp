//===- test_bundle_writer.cpp - What encodeBundle refuses -----------------===//

#include "runtime/bundle.h"
#include "runtime/bundle_writer.h"
#include "spec/kernel_spec.h"
#include "tests/unit/bundle/bundle_test_support.h"
#include "tests/unit/test_seed.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

namespace mxf {
namespace {

using namespace mxf::testing;

class BundleWriter : public ::testing::Test {
protected:
  void SetUp() override {
    rng_.seed(testSeed(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    inputs_ = randomInputs(rng_, 3, 64, 256);
  }
  std::string encodeError() const {
    Result<std::vector<uint8_t>> bytes = encodeBundle(header_, inputs_);
    return bytes.ok() ? "(encoded)" : bytes.error();
  }
  std::string named(size_t i) const {
    return "bundle kernel " + std::to_string(i) + " ('" + inputs_[i].spec + "')";
  }
  std::mt19937_64 rng_;
  BundleHeaderInfo header_ = testHeader();
  std::vector<BundleInput> inputs_;
};

TEST_F(BundleWriter, AcceptsGoodInput) { EXPECT_EQ(encodeError(), "(encoded)"); }

TEST_F(BundleWriter, RejectsNonCanonicalSpecs) {
  inputs_[1].spec = "rotate_quant:K=4096";
  EXPECT_EQ(encodeError(), named(1) + ": the spec is not canonical; write '" +
                               printSpec(parseSpec("rotate_quant:K=4096").value()) + "'");
  inputs_[1].spec = " " + printSpec(parseSpec("rotate_quant:K=4096").value());
  EXPECT_EQ(encodeError().rfind(named(1) + ": the spec is not canonical", 0), 0u) << encodeError();
}

TEST_F(BundleWriter, RejectsInvalidSpecs) {
  inputs_[2].spec = "rotate_quant:K=100";
  std::string error = encodeError();
  EXPECT_EQ(error.rfind(named(2) + ": not a valid spec: ", 0), 0u) << error;
}

TEST_F(BundleWriter, RejectsDuplicateSpecs) {
  inputs_.push_back(inputs_[1]);
  inputs_.back().hsaco.push_back(1); // other bytes: still a duplicate
  EXPECT_EQ(encodeError(), named(3) + ": the spec repeats bundle kernel 1's");
}

TEST_F(BundleWriter, RejectsEmptyCodeObjects) {
  inputs_[0].hsaco.clear();
  EXPECT_EQ(encodeError(), named(0) + ": the code object is empty");
}

TEST_F(BundleWriter, RejectsKernelsForAnotherTarget) {
  inputs_[2].kernel.target = "amdgcn-amd-amdhsa--gfx942";
  EXPECT_EQ(encodeError(), named(2) + ": kernel '" + inputs_[2].kernel.name +
                               "' is for target 'amdgcn-amd-amdhsa--gfx942', the bundle's is "
                               "'amdgcn-amd-amdhsa--gfx950'");
  // Target features are part of the name: gfx950:sramecc+ is another target here.
  inputs_[2].kernel.target = std::string(kBundleTarget) + ":sramecc+";
  EXPECT_NE(encodeError().find("is for target 'amdgcn-amd-amdhsa--gfx950:sramecc+'"),
            std::string::npos);
}

TEST_F(BundleWriter, RejectsKernelInfosTheLoaderWouldReject) {
  inputs_[1].kernel.wavefrontSize = 48;
  EXPECT_EQ(encodeError(), named(1) + ": kernel '" + inputs_[1].kernel.name +
                               "' has a KernelInfo the loader would reject: wavefront size 48 "
                               "is neither 32 nor 64");
  inputs_[1].kernel.wavefrontSize = 64;
  inputs_[1].kernel.args.back().offset = inputs_[1].kernel.kernargSize;
  EXPECT_NE(encodeError().find("does not fit the kernarg segment"), std::string::npos);
}

TEST_F(BundleWriter, RejectsBadHeaders) {
  header_.formatVersion = 1;
  EXPECT_EQ(encodeError(), "cannot write bundle format version 1, this writer writes 3");
  header_ = testHeader();
  header_.llvmVersion.assign(300, 'x');
  EXPECT_EQ(encodeError(),
            "bundle header: the LLVM version is 300 bytes, more than the limit of 256");
  header_ = testHeader();
  header_.target.clear();
  EXPECT_EQ(encodeError(), "bundle header: the target is empty");
}

TEST_F(BundleWriter, FileErrorsNameThePathAndWriteNothing) {
  TempDir dir;
  std::string path = dir.file("bad.mxfb");
  inputs_[0].hsaco.clear();
  Status status = writeBundleFile(path, header_, inputs_);
  EXPECT_EQ(status.message(), path + ": " + named(0) + ": the code object is empty");
  struct stat info;
  EXPECT_NE(::stat(path.c_str(), &info), 0);

  inputs_[0].hsaco = {1, 2, 3};
  std::string nowhere = dir.file("no/such/dir/k.mxfb");
  status = writeBundleFile(nowhere, header_, inputs_);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message().rfind(nowhere + ": ", 0), 0u) << status.message();
}

} // namespace
} // namespace mxf
