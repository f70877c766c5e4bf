//===- serializer.cpp - rocdl-stage MLIR -> linked gfx950 code object -----===//
//
// MLIR's own gpu-module-to-binary would run <ROCM_PATH>/llvm/bin/ld.lld and
// want a ROCm install (TOOLCHAIN.md); this is the same path done in process
// with the LLVM and lld libraries.
//
//===----------------------------------------------------------------------===//

#include "compiler/serializer.h"

#include "compiler/dump.h"
#include "compiler/gfx950_target.h"
#include "compiler/pipeline.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "lld/Common/Driver.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <cstdlib>
#include <memory>
#include <mutex>

#include <unistd.h>

LLD_HAS_DRIVER(elf)

namespace mxf::compiler {
namespace {

/// Records LLVM's errors instead of letting LLVMContext::diagnose exit the
/// process (what it does for an error when no handler claims it).
class RecordingDiagnosticHandler : public llvm::DiagnosticHandler {
public:
  RecordingDiagnosticHandler(std::vector<std::string> &errors, llvm::raw_ostream *echo)
      : errors_(errors), echo_(echo) {}

  bool handleDiagnostics(const llvm::DiagnosticInfo &info) override {
    std::string text;
    llvm::raw_string_ostream os(text);
    llvm::DiagnosticPrinterRawOStream printer(os);
    info.print(printer);
    // Resource-limit diagnostics carry no source location; drop the
    // placeholder instead of printing it.
    constexpr llvm::StringLiteral kNoLocation = "<unknown>:0:0: ";
    if (llvm::StringRef(text).starts_with(kNoLocation))
      text.erase(0, kNoLocation.size());
    const char *severity = "note";
    switch (info.getSeverity()) {
    case llvm::DS_Error:
      severity = "error";
      break;
    case llvm::DS_Warning:
      severity = "warning";
      break;
    case llvm::DS_Remark:
      severity = "remark";
      break;
    case llvm::DS_Note:
      break;
    }
    if (echo_)
      *echo_ << "llvm: " << severity << ": " << text << "\n";
    if (info.getSeverity() == llvm::DS_Error)
      errors_.push_back("llvm: error: " + text);
    return true;
  }

private:
  std::vector<std::string> &errors_;
  llvm::raw_ostream *echo_;
};

std::string joinLines(const std::vector<std::string> &lines) {
  std::string out;
  for (const std::string &line : lines)
    out += "\n  " + line;
  return out;
}

/// Removes a directory tree when it goes out of scope: every return path of
/// linkCodeObject leaves nothing behind.
class TempDirectory {
public:
  explicit TempDirectory(llvm::SmallString<128> path) : path_(std::move(path)) {}
  ~TempDirectory() { llvm::sys::fs::remove_directories(path_, /*IgnoreErrors=*/true); }
  TempDirectory(const TempDirectory &) = delete;
  TempDirectory &operator=(const TempDirectory &) = delete;
  std::string file(llvm::StringRef name) const {
    llvm::SmallString<128> path(path_);
    llvm::sys::path::append(path, name);
    return std::string(path);
  }

private:
  llvm::SmallString<128> path_;
};

/// Where the link's private directory goes: under $TMPDIR (or TMP, TEMP,
/// TEMPDIR, as llvm::sys::path::system_temp_directory reads them) when one is
/// set, else under /dev/shm when that is a writable directory, else /tmp.
///
/// Why /dev/shm: lld reads and writes files, and a link creates and removes
/// a directory and two files. On a disk file system (ext4 on the CI machine)
/// that took 0.5 ms of a 0.75 ms link, and several ms while other processes
/// wrote to the disk; in memory the whole link takes 0.26 ms. An explicit
/// TMPDIR still wins: it is the user's choice (and the tests'). Read on every
/// link, not once: a program (a test) may set TMPDIR later.
const char *linkDirectoryPrefix() {
  constexpr const char *kUnderTemp = "mxforge-lld"; // relative: under system_temp_directory
  for (const char *name : {"TMPDIR", "TMP", "TEMP", "TEMPDIR"})
    if (const char *value = std::getenv(name); value && *value)
      return kUnderTemp;
  if (::access("/dev/shm", W_OK | X_OK) == 0 && llvm::sys::fs::is_directory("/dev/shm"))
    return "/dev/shm/mxforge-lld";
  return kUnderTemp;
}

/// lld's drivers keep process-wide state (its CommonLinkerContext); one link
/// at a time. After a link that cannot be repeated (lld::Result::canRunAgain
/// false: lld crashed and may have corrupted its state) every later link
/// fails instead of risking silent corruption.
std::mutex &lldMutex() {
  static std::mutex mutex;
  return mutex;
}
bool lldBroken = false; // guarded by lldMutex()

/// The kernel(s) of the gpu.module: llvm.func ops that carry rocdl.kernel.
std::vector<std::string> kernelNames(mlir::gpu::GPUModuleOp gpuModule) {
  std::vector<std::string> names;
  for (auto func : gpuModule.getOps<mlir::LLVM::LLVMFuncOp>())
    if (func->hasAttr(mlir::ROCDL::ROCDLDialect::getKernelFuncAttrName()))
      names.push_back(func.getName().str());
  return names;
}

/// O3 before code generation: without it bare pointers stay flat_load
/// instead of global_load, MFMA results go through AGPRs and the kernarg
/// segment balloons (TOOLCHAIN.md step 4).
///
/// Why not something lighter (measured on the 322 kernels of the matrix):
/// O2 gives the same code but costs the same; O1 changes the code of 301
/// kernels. O3's own pass list with four of its eight InstCombine runs left
/// out gives the same code for every kernel but saves only 5-10% of O3 (the
/// runs that matter are the expensive early ones), not worth a hand-kept
/// pipeline that later templates could outgrow.
/// Module-level assembly that puts `record` into its own non-allocated
/// section: it travels with the code object (a bare .hsaco can be launched
/// and inspected without its spec) but is never loaded onto the GPU. Module
/// assembly rather than a global: no symbol, no address space, nothing O3
/// could drop.
std::string launchRecordAssembly(const LaunchRecord &record) {
  ByteWriter writer;
  encodeLaunchRecord(writer, record);
  std::string text = std::string(".pushsection ") + kLaunchRecordSection + ",\"\",@progbits\n.byte ";
  for (size_t i = 0; i < writer.bytes().size(); ++i)
    text += (i ? "," : "") + std::to_string(writer.bytes()[i]);
  return text + "\n.popsection";
}

/// Names the kernel's IR arguments, which the AMDGPU metadata streamer
/// writes as each argument's `.name`. The ABI and the template declare the
/// same arguments; a count that differs is an internal error, not a guess.
Status nameKernelArguments(llvm::Module &module, const std::vector<std::string> &names) {
  for (llvm::Function &function : module) {
    if (function.getCallingConv() != llvm::CallingConv::AMDGPU_KERNEL)
      continue;
    if (function.arg_size() != names.size())
      return Status::failure("internal error: kernel " + function.getName().str() + " has " +
                             std::to_string(function.arg_size()) +
                             " arguments, the ABI declares " + std::to_string(names.size()));
    for (size_t i = 0; i < names.size(); ++i)
      function.getArg(unsigned(i))->setName(names[i]);
  }
  return Status::success();
}

void runO3(llvm::TargetMachine &tm, llvm::Module &module) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder passBuilder(&tm);
  passBuilder.registerModuleAnalyses(mam);
  passBuilder.registerCGSCCAnalyses(cgam);
  passBuilder.registerFunctionAnalyses(fam);
  passBuilder.registerLoopAnalyses(lam);
  passBuilder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager o3 =
      passBuilder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  o3.run(module, mam);
}

} // namespace

Result<std::vector<uint8_t>> linkCodeObject(std::string_view object,
                                            llvm::raw_ostream *diagnosticStream) {
  using R = Result<std::vector<uint8_t>>;
  llvm::SmallString<128> dirPath;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory(linkDirectoryPrefix(), dirPath))
    return R::failure("cannot create a temporary directory for lld: " + ec.message() +
                      " (set TMPDIR to a writable directory)");
  TempDirectory dir(dirPath);
  const std::string objectPath = dir.file("kernel.o");
  const std::string outputPath = dir.file("kernel.hsaco");
  {
    std::error_code ec;
    llvm::raw_fd_ostream file(objectPath, ec, llvm::sys::fs::OF_None);
    if (!ec) {
      file.write(object.data(), object.size());
      file.close();
      ec = file.error();
      file.clear_error();
    }
    if (ec)
      return R::failure("cannot write '" + objectPath + "' for lld: " + ec.message());
  }

  // --no-undefined: ops such as gpu.block_dim or math.tanh lower to calls
  // into ROCm's device libraries, which we do not link; a plain -shared link
  // would leave them undefined and the loader would fail at run time.
  // --threads=1: a kernel is one small object; no thread pool for it.
  // --no-mmap-output-file: lld writes the output in one go instead of
  // through a temporary file renamed into place, two file-system operations
  // fewer per link; the bytes are the same.
  const char *args[] = {"ld.lld", "-shared", "--no-undefined", "--threads=1",
                        "--no-mmap-output-file", "-o", outputPath.c_str(),
                        objectPath.c_str()};
  std::string lldOut, lldErr;
  llvm::raw_string_ostream lldOutStream(lldOut), lldErrStream(lldErr);
  int retCode = 0;
  {
    std::lock_guard<std::mutex> lock(lldMutex());
    if (lldBroken)
      return R::failure("lld crashed in an earlier link and cannot be run again in this process");
    lld::Result result =
        lld::lldMain(args, lldOutStream, lldErrStream, {{lld::Gnu, &lld::elf::link}});
    lldBroken = !result.canRunAgain;
    retCode = result.retCode;
  }
  // lld names the object by its path, a directory that is gone by the time
  // anyone reads the message; name it by its file name alone.
  std::string messages = llvm::StringRef(lldOut + lldErr).trim().str();
  for (size_t at = messages.find(objectPath); at != std::string::npos;
       at = messages.find(objectPath, at))
    messages.replace(at, objectPath.size(), "kernel.o");
  if (retCode != 0)
    return R::failure("lld failed (exit code " + std::to_string(retCode) + "):\n" +
                      (messages.empty() ? std::string("(no output)") : messages));
  if (diagnosticStream && !messages.empty())
    *diagnosticStream << messages << "\n";

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> linked = llvm::MemoryBuffer::getFile(
      outputPath, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!linked)
    return R::failure("cannot read lld's output '" + outputPath +
                      "': " + linked.getError().message());
  llvm::StringRef bytes = (*linked)->getBuffer();
  return std::vector<uint8_t>(bytes.bytes_begin(), bytes.bytes_end());
}

Status serializeGpuModule(mlir::ModuleOp module, const SerializeOptions &options,
                          SerializeOutput &output) {
  output.failedStage = CompileStage::Llvm;
  if (options.codeObjectVersion != 5 && options.codeObjectVersion != 6)
    return Status::failure("code object version " + std::to_string(options.codeObjectVersion) +
                           " is not supported (use 5 or 6)");
  auto gpuModules = module.getOps<mlir::gpu::GPUModuleOp>();
  if (std::distance(gpuModules.begin(), gpuModules.end()) != 1)
    return Status::failure("expected exactly one gpu.module at the top of the module");
  mlir::gpu::GPUModuleOp gpuModule = *gpuModules.begin();
  const std::vector<std::string> kernels = kernelNames(gpuModule);
  if (kernels.size() != 1)
    return Status::failure(
        "gpu.module @" + gpuModule.getName().str() + " holds " + std::to_string(kernels.size()) +
        " kernels" + (kernels.empty() ? "" : " (" + llvm::join(kernels, ", ") + ")") +
        "; a code object is built from exactly one gpu.func marked `kernel`");

  std::string targetError;
  Gfx950TargetLease targetLease;
  Gfx950Target *target = targetLease.get(targetError);
  if (!target)
    return Status::failure(targetError);
  llvm::TargetMachine *tm = &target->machine();
  const llvm::Triple &triple = tm->getTargetTriple();

  llvm::LLVMContext llvmContext;
  std::vector<std::string> llvmErrors;
  llvmContext.setDiagnosticHandler(
      std::make_unique<RecordingDiagnosticHandler>(llvmErrors, options.diagnosticStream));

  // A fixed module name: it ends up in the IR dumps and must not vary.
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(gpuModule, llvmContext, gpuModule.getName());
  if (!llvmModule)
    return Status::failure("translation to LLVM IR failed" + joinLines(llvmErrors));
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(tm->createDataLayout());
  // LLVM 22 emits code object v6 unless told otherwise (TOOLCHAIN.md).
  llvmModule->addModuleFlag(llvm::Module::Error, "amdhsa_code_object_version",
                            options.codeObjectVersion * 100);
  if (options.launchRecord)
    llvmModule->appendModuleInlineAsm(launchRecordAssembly(*options.launchRecord));
  if (options.argumentNames)
    if (Status named = nameKernelArguments(*llvmModule, *options.argumentNames); !named.ok())
      return named;

  StageDumper *dumper = options.dumper && options.dumper->active() ? options.dumper : nullptr;
  auto printModule = [&](llvm::raw_ostream &os) { llvmModule->print(os, nullptr); };
  if (dumper)
    dumper->emit("kernel", "ll", "LLVM IR before O3", printModule);

  runO3(*tm, *llvmModule);
  if (!llvmErrors.empty())
    return Status::failure("the LLVM O3 pipeline failed" + joinLines(llvmErrors));
  if (dumper)
    dumper->emit("kernel-O3", "ll", "LLVM IR after O3", printModule);
  if (options.stopAfter == CompileStage::Llvm) {
    llvm::raw_string_ostream os(output.text);
    printModule(os);
    return Status::success();
  }

  output.failedStage = CompileStage::Asm;
  // Code generation rewrites the module, so assembly for reading comes from
  // a copy; the object below is generated from the original.
  if (dumper || options.stopAfter == CompileStage::Asm) {
    std::unique_ptr<llvm::Module> copy = llvm::CloneModule(*llvmModule);
    llvm::SmallString<0> assembly;
    if (Status status = target->emitAssembly(*copy, assembly); !status.ok())
      return status;
    if (!llvmErrors.empty())
      return Status::failure("AMDGPU code generation failed" + joinLines(llvmErrors));
    if (dumper)
      dumper->emit("kernel", "s", "gfx950 assembly",
                   [&](llvm::raw_ostream &os) { os << assembly; });
    if (options.stopAfter == CompileStage::Asm) {
      output.text = std::string(assembly);
      return Status::success();
    }
  }
  llvm::SmallString<0> object;
  if (Status status = target->emitObject(*llvmModule, options.freshCodeGenPipeline, object);
      !status.ok())
    return status;
  if (!llvmErrors.empty()) {
    // Its passes may have stopped half way: the next compile builds anew.
    target->forgetPipeline();
    return Status::failure("AMDGPU code generation failed" + joinLines(llvmErrors));
  }

  output.failedStage = CompileStage::Hsaco;
  Result<std::vector<uint8_t>> linked =
      linkCodeObject(std::string_view(object.data(), object.size()), options.diagnosticStream);
  if (!linked.ok())
    return linked.status();
  output.hsaco = std::move(linked.value());
  if (dumper)
    dumper->emit("kernel", "hsaco", "code object", [&](llvm::raw_ostream &os) {
      os.write(reinterpret_cast<const char *>(output.hsaco.data()), output.hsaco.size());
    }, /*binary=*/true);
  return Status::success();
}

} // namespace mxf::compiler
