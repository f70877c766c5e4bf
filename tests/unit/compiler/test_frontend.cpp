//===- test_frontend.cpp - compileModule, compileSpec, the spec frontend --===//
//
// The MLIR-facing half of the compiler API: modules in a caller's context,
// and spec compiles through a stand-in frontend (the real one, mxf dialect +
// templates, is wired by the tool; here a frontend that parses a gpu-level
// kernel shows the plumbing: dialects, build, lowering, errors).
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend.h"
#include "tests/unit/compiler/test_kernels.h"
#include "tests/unit/compiler/test_support.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <atomic>

namespace mxf {
namespace {

using test::listDirectory;
using test::ScratchDir;

KernelSpec denseSpec() {
  Result<KernelSpec> spec = parseSpec("rotate_quant:K=4096,RS=64,rot=hadamard");
  EXPECT_TRUE(spec.ok()) << spec.error();
  return spec.value();
}

/// A frontend whose "template" is the gpu-level test kernel: enough to run
/// compileSpec end to end before the real templates exist.
SpecFrontend testFrontend() {
  SpecFrontend frontend;
  frontend.hasTemplate = [](KernelOp op) { return op == KernelOp::RotateQuant; };
  frontend.buildModule = [](const KernelSpec &,
                            mlir::MLIRContext &context) {
    return parseMlirModule(test::kQuantMfma, "template.mlir", context);
  };
  frontend.addLoweringPasses = [](mlir::OpPassManager &pm) {
    pm.addPass(mlir::createCanonicalizerPass());
  };
  return frontend;
}

/// Every test starts and ends without a frontend (it is process-wide).
class Frontend : public ::testing::Test {
protected:
  void SetUp() override { clearSpecFrontend(); }
  void TearDown() override { clearSpecFrontend(); }
};

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

TEST_F(Frontend, WithoutATemplateCompileSpecSaysSo) {
  const KernelSpec spec = denseSpec();
  Result<CodeObject> result = compileSpec(spec, {});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error(), "[stage mxf] " + printSpec(spec) +
                                ": no kernel template is registered for rotate_quant");

  // A frontend that lacks this op's template gives the same answer.
  setSpecFrontend(testFrontend());
  Result<KernelSpec> moe = parseSpec("rotate_quant_moe:K=4096,topk=2,E=8");
  ASSERT_TRUE(moe.ok()) << moe.error();
  Result<CodeObject> moeResult = compileSpec(moe.value(), {});
  ASSERT_FALSE(moeResult.ok());
  EXPECT_CONTAINS(moeResult.error(), "no kernel template is registered for rotate_quant_moe");
}

TEST_F(Frontend, InvalidSpecIsRejectedBeforeAnyIr) {
  setSpecFrontend(testFrontend());
  KernelSpec spec = denseSpec();
  spec.K = 100; // not a multiple of 32
  Result<CodeObject> result = compileSpec(spec, {});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().rfind("invalid spec: ", 0), 0u) << result.error();
}

TEST_F(Frontend, CompileSpecRunsBuildLoweringAndBackend) {
  std::atomic<int> registered{0};
  SpecFrontend frontend = testFrontend();
  frontend.registerDialects = [&](mlir::DialectRegistry &) { ++registered; };
  setSpecFrontend(std::move(frontend));
  ScratchDir dumps;
  CompileOptions options;
  options.dumpDir = dumps.path();
  const KernelSpec spec = denseSpec();
  Result<CodeObject> result = compileSpec(spec, options);
  ASSERT_TRUE(result.ok()) << result.error();
  EXPECT_EQ(result.value().spec, printSpec(spec));
  EXPECT_EQ(result.value().kernel.name, "quant_mfma");
  EXPECT_GE(registered.load(), 1);
  const std::vector<std::string> files = listDirectory(dumps.path());
  ASSERT_GE(files.size(), 2u);
  EXPECT_EQ(files[0], "00-input.mlir");
  EXPECT_EQ(files[1], "01-canonicalize.mlir"); // the frontend's lowering

  // Stopping after the gpu stage shows the lowered module.
  std::string gpuText;
  options.dumpDir.clear();
  options.stopAfter = "gpu";
  options.stageText = &gpuText;
  ASSERT_TRUE(compileSpec(spec, options).ok());
  EXPECT_CONTAINS(gpuText, "gpu.func @quant_mfma");
}

TEST_F(Frontend, BuildFailuresCarryTheFrontendsDiagnostics) {
  SpecFrontend frontend = testFrontend();
  frontend.buildModule = [](const KernelSpec &spec, mlir::MLIRContext &context)
      -> Result<mlir::OwningOpRef<mlir::ModuleOp>> {
    mlir::emitError(mlir::UnknownLoc::get(&context)) << "tile does not fit K=" << spec.K;
    return Result<mlir::OwningOpRef<mlir::ModuleOp>>::failure("template refused the spec");
  };
  setSpecFrontend(std::move(frontend));
  Result<CodeObject> result = compileSpec(denseSpec(), {});
  ASSERT_FALSE(result.ok());
  EXPECT_CONTAINS(result.error(), "[stage mxf] rotate_quant:K=4096");
  EXPECT_CONTAINS(result.error(), "building the mxf module failed: template refused the spec");
  EXPECT_CONTAINS(result.error(), "error: tile does not fit K=4096");
}

TEST_F(Frontend, TextualLoweringComesFromThePassRegistry) {
  SpecFrontend frontend = testFrontend();
  frontend.addLoweringPasses = nullptr;
  frontend.loweringPipeline = "no-such-lowering";
  setSpecFrontend(frontend);
  Result<CodeObject> unknown = compileSpec(denseSpec(), {});
  ASSERT_FALSE(unknown.ok());
  EXPECT_CONTAINS(unknown.error(), "[stage gpu] ");
  EXPECT_CONTAINS(unknown.error(), "cannot parse lowering pipeline 'no-such-lowering'");

  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  frontend.loweringPipeline = "builtin.module(canonicalize, cse)";
  setSpecFrontend(frontend);
  Result<CodeObject> ok = compileSpec(denseSpec(), {});
  EXPECT_TRUE(ok.ok()) << ok.error();
}

TEST_F(Frontend, ModuleInputIsLoweredOnlyWhenItHoldsFrontendOps) {
  // Pretend amdgpu is the frontend's dialect: the test kernel then counts as
  // frontend input and gets the lowering; with "mxf" it does not.
  for (const char *dialect : {"amdgpu", "mxf"}) {
    SCOPED_TRACE(dialect);
    SpecFrontend frontend = testFrontend();
    frontend.dialectNamespace = dialect;
    setSpecFrontend(std::move(frontend));
    ScratchDir dumps;
    CompileOptions options;
    options.dumpDir = dumps.path();
    Result<CodeObject> result = compileMlirText(test::kQuantMfma, "k.mlir", options);
    ASSERT_TRUE(result.ok()) << result.error();
    const std::vector<std::string> files = listDirectory(dumps.path());
    ASSERT_GE(files.size(), 2u);
    EXPECT_EQ(files[1] == "01-canonicalize.mlir", std::string(dialect) == "amdgpu");
  }
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
