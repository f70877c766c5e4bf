//===- test_frontend.cpp - compileModule, compileSpec through the registry ===//
//
// The MLIR-facing half of the compiler API: modules in a caller's context,
// and spec compiles through the template registry (templates/registry.h):
// the code spec, the recorded launch geometry, and the errors for specs no
// template takes.
//
//===----------------------------------------------------------------------===//

#include "abi/operands.h"
#include "codeobj/hsaco_reader.h"
#include "codeobj/kernel_summary.h"
#include "compiler/frontend.h"
#include "spec/buckets.h"
#include "templates/registry.h"
#include "tests/unit/compiler/test_kernels.h"
#include "tests/unit/compiler/test_support.h"
#include "tests/support/parsed_spec.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace mxf {
namespace {

using test::listDirectory;
using test::ScratchDir;

using testing::parsed;

KernelSpec denseSpec() { return parsed("rotate_quant:K=4096,RS=64,rot=hadamard,M=1"); }

using Frontend = ::testing::Test;

TEST_F(Frontend, CompileModuleInACallersMultithreadedContext) {
  // The caller's context has the dialects to parse, multithreading on, and
  // none of the translations: compileModule adds what it needs, and dumps
  // work without disabling threads.
  mlir::DialectRegistry registry;
  registerCompilerDialects(registry);
  mlir::MLIRContext context(registry);
  ASSERT_TRUE(context.isMultithreadingEnabled());
  Result<mlir::OwningOpRef<mlir::ModuleOp>> module =
      parseMlirModule(test::kQuantMfma, "caller.mlir", context);
  ASSERT_TRUE(module.ok()) << module.error();
  ScratchDir dumps;
  CompileOptions options;
  options.dumpDir = dumps.path();
  Result<CodeObject> result = compileModule(module.value().get(), options, "caller's kernel");
  ASSERT_TRUE(result.ok()) << result.error();
  EXPECT_EQ(result.value().spec, "caller's kernel");
  EXPECT_EQ(result.value().kernel.name, "quant_mfma");
  EXPECT_EQ(listDirectory(dumps.path()).size(), 12u);
  // No spec, no template: nothing recorded how to launch it, in the result
  // or in the code object.
  EXPECT_EQ(result.value().launch.workgroupSize, 0u);
  Result<std::optional<LaunchRecord>> embedded = codeobj::readLaunchRecord(result.value().hsaco);
  ASSERT_TRUE(embedded.ok()) << embedded.error();
  EXPECT_FALSE(embedded.value().has_value());
}

TEST_F(Frontend, ParseErrorsCarryLocations) {
  std::unique_ptr<mlir::MLIRContext> context = createCompilerContext();
  EXPECT_FALSE(context->isMultithreadingEnabled());
  Result<mlir::OwningOpRef<mlir::ModuleOp>> module =
      parseMlirModule(test::kSyntaxError, "bad.mlir", *context);
  ASSERT_FALSE(module.ok());
  EXPECT_CONTAINS(module.error(), "cannot parse 'bad.mlir'");
  EXPECT_CONTAINS(module.error(), "bad.mlir:4:");
}

TEST_F(Frontend, SpecsNoTemplateTakesAreRefusedBeforeAnyIr) {
  // Every op has a template now; a valid GEMM spec it cannot generate (K
  // not a multiple of the scaled MFMA's 128 channels) is refused by name.
  Result<CodeObject> gemm = compileSpec(parsed("rotate_quant_gemm:K=4160,N=256"), {});
  ASSERT_FALSE(gemm.ok());
  EXPECT_CONTAINS(gemm.error(), "does not support K=4160");
  EXPECT_CONTAINS(checkCompilable(parsed("rotate_quant_gemm:K=4160,N=256")).message(),
                  "K must be a multiple of 128");
  EXPECT_TRUE(checkCompilable(parsed("rotate_quant_gemm:K=4096,N=256")).ok());

  Result<CodeObject> sr =
      compileSpec(parsed("rotate_quant:K=4096,RS=64,rot=hadamard_butterfly"), {});
  ASSERT_FALSE(sr.ok());
  EXPECT_CONTAINS(sr.error(), "[stage mxf] ");
  EXPECT_CONTAINS(sr.error(), "does not support rot=hadamard_butterfly at RS=64");

  KernelSpec invalid = denseSpec();
  invalid.K = 100; // not a multiple of 32
  Result<CodeObject> result = compileSpec(invalid, {});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().rfind("invalid spec: ", 0), 0u) << result.error();
}

TEST_F(Frontend, CompileSpecCompilesTheCodeSpecAndRecordsItsLaunch) {
  ScratchDir dumps;
  CompileOptions options;
  options.dumpDir = dumps.path();
  const KernelSpec spec = denseSpec();
  Result<CodeObject> result = compileSpec(spec, options);
  ASSERT_TRUE(result.ok()) << result.error();
  Result<KernelSpec> code = codeSpecFor(spec);
  ASSERT_TRUE(code.ok()) << code.error();
  EXPECT_EQ(code.value().M, kLargestMBucket);
  EXPECT_EQ(result.value().spec, printSpec(code.value()));
  EXPECT_EQ(result.value().kernel.name, kernelName(code.value()));
  const LaunchRecord &launch = result.value().launch;
  EXPECT_EQ(launch, findFamilyRules(KernelOp::RotateQuant)->launchRecord(code.value()));
  EXPECT_TRUE(launch.checkAgainst(result.value().kernel).ok());
  EXPECT_EQ(launch.maxRows, uint32_t(kLargestMBucket));
  EXPECT_EQ(launch.workgroupSize, 256u);
  EXPECT_EQ(launch.gridX, 4096u / 64 / 4);
  // The same record travels inside the code object.
  Result<std::optional<LaunchRecord>> embedded = codeobj::readLaunchRecord(result.value().hsaco);
  ASSERT_TRUE(embedded.ok()) << embedded.error();
  ASSERT_TRUE(embedded.value().has_value());
  EXPECT_EQ(*embedded.value(), launch);
  const std::vector<std::string> files = listDirectory(dumps.path());
  ASSERT_GE(files.size(), 2u);
  EXPECT_EQ(files[0], "00-input.mlir");
  EXPECT_CONTAINS(files[1], "mxf-lower-to-gpu");

  // Stopping after the gpu stage shows the template's kernel.
  std::string gpuText;
  options.dumpDir.clear();
  options.stopAfter = "gpu";
  options.stageText = &gpuText;
  ASSERT_TRUE(compileSpec(spec, options).ok());
  EXPECT_CONTAINS(gpuText, "gpu.func @" + kernelName(code.value()));
}

// The embedded record is read, never trusted: a damaged one, or one that
// disagrees with the kernel's metadata, makes the code object unreadable
// for inspect and unlaunchable for `run --hsaco`.
TEST_F(Frontend, TheEmbeddedLaunchRecordIsCheckedWhenRead) {
  Result<CodeObject> result = compileSpec(denseSpec(), {});
  ASSERT_TRUE(result.ok()) << result.error();
  const std::vector<uint8_t> &hsaco = result.value().hsaco;
  ByteWriter encoded;
  encodeLaunchRecord(encoded, result.value().launch);
  auto at = std::search(hsaco.begin(), hsaco.end(), encoded.bytes().begin(),
                        encoded.bytes().end());
  ASSERT_NE(at, hsaco.end()) << "the record's bytes are not in the code object";
  const size_t offset = size_t(at - hsaco.begin());
  std::unique_ptr<codeobj::Disassembler> disassembler =
      std::move(codeobj::Disassembler::create().value());
  ASSERT_TRUE(codeobj::summarizeCodeObject(hsaco, *disassembler).ok()); // the control

  std::vector<uint8_t> otherAbi = hsaco;
  otherAbi[offset] = 99; // abiVersion, the first u32
  Result<std::optional<LaunchRecord>> read = codeobj::readLaunchRecord(otherAbi);
  ASSERT_FALSE(read.ok());
  EXPECT_CONTAINS(read.error(), ".mxforge.launch section");
  EXPECT_CONTAINS(read.error(), "99");

  std::vector<uint8_t> otherLds = hsaco;
  otherLds[offset + 5 * 4] = 64; // ldsBytes: the kernel's metadata says 0
  read = codeobj::readLaunchRecord(otherLds);
  ASSERT_TRUE(read.ok()) << read.error(); // a valid record in itself...
  Result<codeobj::CodeObjectSummary> summary =
      codeobj::summarizeCodeObject(otherLds, *disassembler);
  ASSERT_FALSE(summary.ok()); // ...that is not this kernel's
  EXPECT_CONTAINS(summary.error(), "embedded launch record disagrees with the kernel's metadata");
}

TEST_F(Frontend, SpecsOfOneTilingClassCompileToOneCodeObject) {
  KernelSpec one = denseSpec(), many = denseSpec();
  many.M = 16;
  Result<CodeObject> a = compileSpec(one, {});
  Result<CodeObject> b = compileSpec(many, {});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a.value().spec, b.value().spec);
  EXPECT_TRUE(a.value().hsaco == b.value().hsaco);
  // A key the code does depend on gives another code object.
  KernelSpec other = denseSpec();
  other.RS = 32;
  Result<CodeObject> c = compileSpec(other, {});
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(a.value().hsaco == c.value().hsaco);
}

TEST_F(Frontend, AnExplicitLoweringPipelineWins) {
  CompileOptions options;
  options.loweringPipeline = "no-such-pass";
  Result<CodeObject> result = compileMlirText(test::kQuantMfma, "k.mlir", options);
  ASSERT_FALSE(result.ok());
  EXPECT_CONTAINS(result.error(), "[stage gpu] k.mlir: cannot parse lowering pipeline");
}

} // namespace
} // namespace mxf
