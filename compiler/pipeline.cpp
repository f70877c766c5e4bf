//===- pipeline.cpp - The MLIR pass pipeline: mxf -> gpu -> rocdl ---------===//
//
// The passes are created directly (not parsed from text) so that the
// compiler needs nothing from MLIR's global pass registry; only a caller's
// textual lowering pipeline is looked up there.
//
//===----------------------------------------------------------------------===//

#include "compiler/pipeline.h"

#include "compiler/dump.h"

#include "mlir/Conversion/AMDGPUToROCDL/AMDGPUToROCDL.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace mxf::compiler {
namespace {

/// Hands the module to the dumper after every pass (and after a failed one,
/// in generic form, since the IR may then be invalid).
class DumpInstrumentation : public mlir::PassInstrumentation {
public:
  explicit DumpInstrumentation(StageDumper &dumper) : dumper_(dumper) {}

  void runAfterPass(mlir::Pass *pass, mlir::Operation *op) override { dump(pass, op, false); }
  void runAfterPassFailed(mlir::Pass *pass, mlir::Operation *op) override {
    dump(pass, op, true);
  }

private:
  void dump(mlir::Pass *pass, mlir::Operation *op, bool failed) {
    // Pass-manager adaptors (the nesting into gpu.module) have no argument;
    // the passes they run are reported on their own.
    llvm::StringRef argument = pass->getArgument();
    if (argument.empty())
      return;
    // Print the whole module, not just the gpu.module a nested pass ran on,
    // so that each file is a complete input for mlir-opt.
    mlir::Operation *top = op;
    while (mlir::Operation *parent = top->getParentOp())
      top = parent;
    std::string header = ("IR Dump After " + pass->getName() + " (" + argument + ")").str();
    if (failed)
      header += " Failed";
    dumper_.emit(failed ? (argument + "-failed").str() : argument.str(), "mlir", header,
                 [&](llvm::raw_ostream &os) {
                   mlir::OpPrintingFlags flags;
                   if (failed)
                     flags.printGenericOpForm();
                   top->print(os, flags);
                 });
  }

  StageDumper &dumper_;
};

/// A pass manager on builtin.module (PassManager cannot be moved, hence the
/// out-parameter style) that feeds the dumper and, when asked, verifies after
/// each pass.
///
/// Why not always: verifying the gpu-level IR (vector and memref ops check
/// their shapes) after each of the eight passes took ~1.2 ms of a warm
/// compile, 6% of it. Without it, runVerified checks the module once when
/// the stage ends: invalid IR still stops in the stage that made it, with
/// MLIR's diagnostics, before translation could trip over it; what is lost
/// is the name of the pass, which verifyEachPass (on for dumps) gives back.
void configurePassManager(mlir::PassManager &pm, StageDumper &dumper, bool verifyEachPass) {
  pm.enableVerifier(verifyEachPass);
  if (dumper.active())
    pm.addInstrumentation(std::make_unique<DumpInstrumentation>(dumper));
}

/// Runs `pm` on `module`; `failure` names the stage when a pass fails. When
/// the verifier did not run between passes, verifies the result once.
Status runVerified(mlir::PassManager &pm, mlir::ModuleOp module, bool verifyEachPass,
                   const std::string &failure) {
  if (mlir::failed(pm.run(module)))
    return Status::failure(failure);
  if (!verifyEachPass && mlir::failed(mlir::verify(module)))
    return Status::failure(failure + ": its output does not verify (CompileOptions::verifyEachPass "
                                     "or --dump-dir names the pass)");
  return Status::success();
}

void addRocdlPasses(mlir::OpPassManager &pm) {
  mlir::OpPassManager &gpu = pm.nest<mlir::gpu::GPUModuleOp>();
  // Structured control flow and index arithmetic first, so that the
  // conversions below only meet cf, arith, vector, memref, amdgpu and gpu.
  gpu.addPass(mlir::createLowerAffinePass());
  gpu.addPass(mlir::createSCFToControlFlowPass());
  gpu.addPass(mlir::memref::createExpandStridedMetadataPass());
  // Vector ops before the GPU conversion: convert-gpu-to-rocdl includes the
  // vector-to-llvm patterns but not the vector-to-vector lowerings that
  // convert-vector-to-llvm runs first (extract_strided_slice, transposes,
  // shape casts, ...); without them translation fails later (TOOLCHAIN.md).
  gpu.addPass(mlir::createConvertVectorToLLVMPass());
  mlir::ConvertAMDGPUToROCDLPassOptions amdgpuOptions;
  amdgpuOptions.chipset = kChipset;
  gpu.addPass(mlir::createConvertAMDGPUToROCDLPass(amdgpuOptions));
  mlir::ConvertGpuOpsToROCDLOpsOptions gpuOptions;
  gpuOptions.chipset = kChipset;
  // Kernel arguments are plain pointers (one 8-byte kernarg each), not
  // memref descriptors: small kernarg segments, a simple launch ABI.
  gpuOptions.useBarePtrCallConv = true;
  gpu.addPass(mlir::createConvertGpuOpsToROCDLOps(gpuOptions));
  gpu.addPass(mlir::createReconcileUnrealizedCastsPass());
}

/// Exactly one gpu.module: a code object holds one kernel, and compiling the
/// first of several would silently drop the others.
Status checkSingleGpuModule(mlir::ModuleOp module) {
  std::vector<std::string> names;
  for (auto gpuModule : module.getOps<mlir::gpu::GPUModuleOp>())
    names.push_back("@" + gpuModule.getName().str());
  if (names.size() == 1)
    return Status::success();
  if (names.empty())
    return Status::failure("the module holds no gpu.module (expected one, with one gpu.func "
                           "kernel, directly inside the top-level module)");
  return Status::failure("the module holds " + std::to_string(names.size()) + " gpu.modules (" +
                         llvm::join(names, ", ") + "); a code object is built from exactly one");
}

/// Names what the conversions left behind, with locations, so that an op
/// without a lowering is reported here rather than as a translation failure.
Status checkFullyConverted(mlir::ModuleOp module) {
  std::vector<std::string> leftovers;
  for (auto gpuModule : module.getOps<mlir::gpu::GPUModuleOp>()) {
    gpuModule.getBody()->walk([&](mlir::Operation *op) {
      llvm::StringRef ns = op->getName().getDialectNamespace();
      if (ns == mlir::LLVM::LLVMDialect::getDialectNamespace() ||
          ns == mlir::ROCDL::ROCDLDialect::getDialectNamespace())
        return;
      std::string entry;
      llvm::raw_string_ostream os(entry);
      os << "'" << op->getName() << "' at " << op->getLoc();
      if (leftovers.size() < 8)
        leftovers.push_back(entry);
      else if (leftovers.size() == 8)
        leftovers.push_back("...");
    });
  }
  if (leftovers.empty())
    return Status::success();
  return Status::failure("ops left unconverted (no lowering to the LLVM/ROCDL dialects): " +
                         llvm::join(leftovers, ", "));
}

} // namespace

Status runLowering(mlir::ModuleOp module, const Lowering &lowering, StageDumper &dumper,
                   bool verifyEachPass) {
  if (lowering.empty())
    return Status::success();
  mlir::PassManager pm(module->getContext(), mlir::ModuleOp::getOperationName(),
                       mlir::OpPassManager::Nesting::Explicit);
  configurePassManager(pm, dumper, verifyEachPass);
  if (lowering.addPasses) {
    lowering.addPasses(pm);
  } else {
    // Accept both "a,b" and the anchored "builtin.module(a,b)".
    llvm::StringRef text = llvm::StringRef(lowering.pipeline).trim();
    if (text.consume_front("builtin.module(")) {
      text = text.rtrim();
      if (!text.consume_back(")"))
        return Status::failure("lowering pipeline '" + lowering.pipeline +
                               "' has an unbalanced 'builtin.module('");
    }
    std::string parseError;
    llvm::raw_string_ostream errorStream(parseError);
    if (mlir::failed(mlir::parsePassPipeline(text, pm, errorStream)))
      return Status::failure("cannot parse lowering pipeline '" + lowering.pipeline +
                             "': " + llvm::StringRef(parseError).trim().str());
  }
  return runVerified(pm, module, verifyEachPass, "lowering to the gpu stage failed");
}

Status runRocdlConversion(mlir::ModuleOp module, StageDumper &dumper, bool verifyEachPass) {
  if (Status single = checkSingleGpuModule(module); !single.ok())
    return single;
  mlir::PassManager pm(module->getContext(), mlir::ModuleOp::getOperationName(),
                       mlir::OpPassManager::Nesting::Explicit);
  configurePassManager(pm, dumper, verifyEachPass);
  addRocdlPasses(pm);
  if (Status converted = runVerified(pm, module, verifyEachPass,
                                     "conversion to the LLVM and ROCDL dialects failed");
      !converted.ok())
    return converted;
  return checkFullyConverted(module);
}

std::string rocdlPipelineText() {
  mlir::OpPassManager pm(mlir::ModuleOp::getOperationName());
  addRocdlPasses(pm);
  std::string text;
  llvm::raw_string_ostream os(text);
  pm.printAsTextualPipeline(os);
  return text;
}

void registerPipelineDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::affine::AffineDialect, mlir::amdgpu::AMDGPUDialect,
                  mlir::arith::ArithDialect, mlir::cf::ControlFlowDialect,
                  mlir::func::FuncDialect, mlir::gpu::GPUDialect, mlir::index::IndexDialect,
                  mlir::LLVM::LLVMDialect, mlir::math::MathDialect, mlir::memref::MemRefDialect,
                  mlir::ROCDL::ROCDLDialect, mlir::scf::SCFDialect, mlir::ub::UBDialect,
                  mlir::vector::VectorDialect>();
  // convert-gpu-to-rocdl collects patterns from every loaded dialect's
  // ConvertToLLVMPatternInterface; without these, arith/cf/... ops inside
  // the kernel survive as unrealized casts (TOOLCHAIN.md step 3).
  mlir::arith::registerConvertArithToLLVMInterface(registry);
  mlir::cf::registerConvertControlFlowToLLVMInterface(registry);
  mlir::registerConvertFuncToLLVMInterface(registry);
  mlir::index::registerConvertIndexToLLVMInterface(registry);
  mlir::registerConvertMathToLLVMInterface(registry);
  mlir::registerConvertMemRefToLLVMInterface(registry);
  mlir::ub::registerConvertUBToLLVMInterface(registry);
  mlir::vector::registerConvertVectorToLLVMInterface(registry);
  // translateModuleToLLVMIR finds each dialect's translation through these.
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerGPUDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerROCDLDialectTranslation(registry);
}

} // namespace mxf::compiler
