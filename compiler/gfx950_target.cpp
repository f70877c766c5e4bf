//===- gfx950_target.cpp - The pooled gfx950 TargetMachine and codegen ----===//

#include "compiler/gfx950_target.h"

#include "compiler/object_pool.h"
#include "compiler/pipeline.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

namespace mxf::compiler {
namespace {

constexpr const char *kTriple = "amdgcn-amd-amdhsa";

/// Leaked on purpose, as the context pool (compiler.cpp): no TargetMachine
/// is destroyed during static destruction at exit.
ObjectPool<Gfx950Target> &targetPool() {
  static auto *pool = new ObjectPool<Gfx950Target>();
  return *pool;
}

/// A code generation pipeline for `machine` writing to `out`.
Result<std::unique_ptr<llvm::legacy::PassManager>>
buildPipeline(llvm::TargetMachine &machine, llvm::raw_pwrite_stream &out,
              llvm::CodeGenFileType type) {
  auto pipeline = std::make_unique<llvm::legacy::PassManager>();
  // addPassesToEmitFile returns true when it cannot.
  if (machine.addPassesToEmitFile(*pipeline, out, nullptr, type))
    return Status::failure("the AMDGPU target cannot emit this file type");
  return pipeline;
}

/// Builds a pipeline for this one module, runs it and throws it away.
Status runFreshPipeline(llvm::TargetMachine &machine, llvm::Module &module,
                        llvm::SmallVectorImpl<char> &out, llvm::CodeGenFileType type) {
  out.clear();
  llvm::raw_svector_ostream stream(out);
  Result<std::unique_ptr<llvm::legacy::PassManager>> pipeline =
      buildPipeline(machine, stream, type);
  if (!pipeline.ok())
    return pipeline.status();
  pipeline.value()->run(module);
  return Status::success();
}

} // namespace

void initializeAmdgpuTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
    // Object emission parses inline assembly with the target's asm parser.
    LLVMInitializeAMDGPUAsmParser();
  });
}

Gfx950Target::Gfx950Target(std::unique_ptr<llvm::TargetMachine> machine)
    : machine_(std::move(machine)) {}

Gfx950Target::~Gfx950Target() = default;

Result<std::unique_ptr<Gfx950Target>> Gfx950Target::create() {
  initializeAmdgpuTarget();
  const llvm::Triple triple(kTriple);
  std::string targetError;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, targetError);
  if (!target)
    return Status::failure("LLVM has no AMDGPU target: " + targetError);
  // No feature string: xnack and sramecc stay "any", so one code object
  // loads whatever the device's setting.
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, kChipset, "", llvm::TargetOptions(), llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return Status::failure("cannot create the AMDGPU target machine for " +
                           std::string(kChipset));
  return std::unique_ptr<Gfx950Target>(new Gfx950Target(std::move(machine)));
}

Status Gfx950Target::emitObject(llvm::Module &module, bool freshPipeline,
                                llvm::SmallVectorImpl<char> &object) {
  if (freshPipeline)
    return runFreshPipeline(*machine_, module, object, llvm::CodeGenFileType::ObjectFile);
  object.clear();
  if (!objectPipeline_) {
    objectStream_ = std::make_unique<llvm::raw_svector_ostream>(objectBuffer_);
    Result<std::unique_ptr<llvm::legacy::PassManager>> pipeline =
        buildPipeline(*machine_, *objectStream_, llvm::CodeGenFileType::ObjectFile);
    if (!pipeline.ok())
      return pipeline.status();
    objectPipeline_ = std::move(pipeline.value());
  }
  // The stream writes straight into the buffer (raw_svector_ostream keeps
  // no buffer of its own), so emptying it starts the next object at 0.
  objectBuffer_.clear();
  objectPipeline_->run(module);
  object.append(objectBuffer_.begin(), objectBuffer_.end());
  return Status::success();
}

Status Gfx950Target::emitAssembly(llvm::Module &module, llvm::SmallVectorImpl<char> &assembly) {
  return runFreshPipeline(*machine_, module, assembly, llvm::CodeGenFileType::AssemblyFile);
}

void Gfx950Target::forgetPipeline() {
  objectPipeline_.reset();
  objectStream_.reset();
  objectBuffer_.clear();
}

Gfx950TargetLease::Gfx950TargetLease()
    : target_(targetPool().take([](const Gfx950Target &) { return true; })) {}

Gfx950TargetLease::~Gfx950TargetLease() { targetPool().give(std::move(target_)); }

Gfx950Target *Gfx950TargetLease::get(std::string &error) {
  if (target_)
    return target_.get();
  Result<std::unique_ptr<Gfx950Target>> created = Gfx950Target::create();
  if (!created.ok()) {
    error = created.error();
    return nullptr;
  }
  target_ = std::move(created.value());
  return target_.get();
}

} // namespace mxf::compiler
