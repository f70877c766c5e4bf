//===- quantize_command.cpp - mxforge quantize: the command line ----------===//
//
// Options and their checks; the work is quantize_checkpoint.cpp.
//
//===----------------------------------------------------------------------===//

#include "tools/mxforge/commands.h"

#include "tools/mxforge/cli_support.h"
#include "tools/mxforge/quantize_kernel.h"
#include "weights/checkpoint/checkpoint_quantizer.h"

#include <optional>
#include <string_view>
#include <unistd.h>

namespace mxf::cli {
namespace {

namespace cl = llvm::cl;

cl::SubCommand quantizeCommand("quantize",
                               "Quantize the weights of a safetensors checkpoint (Quark MXFP4 "
                               "convention)");
cl::opt<std::string> inFlag("in", cl::sub(quantizeCommand), cl::value_desc("PATH"),
                            cl::desc("A .safetensors file or a sharded model.safetensors.index.json"),
                            cl::cat(mxforgeCategory()));
cl::opt<std::string> outFlag("out", cl::sub(quantizeCommand), cl::value_desc("PATH"),
                             cl::desc("The output file (a directory for a sharded input)"),
                             cl::cat(mxforgeCategory()));
cl::opt<std::string> specFlag("spec", cl::sub(quantizeCommand), cl::value_desc("SPEC"),
                              cl::desc("A quant_weight spec without K and N"),
                              cl::cat(mxforgeCategory()));
cl::opt<std::string> tensorsFlag("tensors", cl::sub(quantizeCommand), cl::value_desc("REGEX"),
                                 cl::desc("Quantize the tensors whose full name matches (POSIX "
                                          "extended regex)"),
                                 cl::cat(mxforgeCategory()));
cl::opt<std::string> rotationFlag("rotation", cl::sub(quantizeCommand), cl::value_desc("FILE"),
                                  cl::desc("Learned R: FILE.npy, FILE.safetensors[:TENSOR]"),
                                  cl::cat(mxforgeCategory()));
cl::opt<std::string> layerMaskFlag(
    "layer-mask", cl::sub(quantizeCommand), cl::value_desc("FILE.npy"),
    cl::desc("Rotate only the layers the mask marks (mxforge calibrate --mask): int32 "
             "[layers], 1 = rotate; a tensor's layer is the first number between dots in its "
             "name"),
    cl::cat(mxforgeCategory()));
cl::opt<std::string> threadsFlag("threads", cl::sub(quantizeCommand), cl::value_desc("N"),
                                 cl::desc("Worker threads (default: one per hardware thread)"),
                                 cl::cat(mxforgeCategory()));
cl::opt<bool> forceFlag("force", cl::sub(quantizeCommand),
                        cl::desc("Replace existing outputs"), cl::cat(mxforgeCategory()));
cl::opt<bool> checkFlag("check", cl::sub(quantizeCommand),
                        cl::desc("Dequantize what was written; print per-tensor relative error "
                                 "and clipped fraction"),
                        cl::cat(mxforgeCategory()));

cl::opt<std::string> deviceFlag("device", cl::sub(quantizeCommand), cl::value_desc("host|emu"),
                                cl::desc("Quantize on the host path (default) or with the gfx950 "
                                         "quant_weight kernel on the emulator (same bytes)"),
                                cl::init("host"), cl::cat(mxforgeCategory()));

int runSelected(llvm::raw_ostream &out, llvm::raw_ostream &err) {
  weights::QuantizeOptions options;
  for (auto [flag, name, target] :
       {std::tuple{&inFlag, "--in", &options.in}, std::tuple{&outFlag, "--out", &options.out},
        std::tuple{&specFlag, "--spec", &options.spec},
        std::tuple{&tensorsFlag, "--tensors", &options.tensors}}) {
    if (!flag->getNumOccurrences() || flag->getValue().empty())
      return reportError(err, std::string("quantize needs ") + name, kExitUsage);
    *target = flag->getValue();
  }
  if (rotationFlag.getNumOccurrences())
    options.rotation = rotationFlag.getValue();
  if (layerMaskFlag.getNumOccurrences())
    options.layerMask = layerMaskFlag.getValue();
  if (threadsFlag.getNumOccurrences()) {
    Result<int> threads = parseIntFlag("--threads", threadsFlag.getValue());
    if (!threads.ok())
      return reportError(err, threads.error(), kExitUsage);
    if (threads.value() < 1 || unsigned(threads.value()) > weights::kMaxQuantizeThreads)
      return reportError(err,
                         "--threads must be in 1.." + std::to_string(weights::kMaxQuantizeThreads),
                         kExitUsage);
    options.threads = unsigned(threads.value());
  }
  if (deviceFlag.getValue() != "host" && deviceFlag.getValue() != "emu")
    return reportError(err, "--device must be host or emu (got '" + deviceFlag.getValue() + "')",
                       kExitUsage);
  options.force = forceFlag;
  options.check = checkFlag;
  options.progress = isatty(STDERR_FILENO) == 1; // quiet in pipes and logs
  return runQuantize(options, deviceFlag.getValue(), out, err);
}

} // namespace

int runQuantize(const weights::QuantizeOptions &options, const std::string &device,
                llvm::raw_ostream &out, llvm::raw_ostream &err) {
  weights::QuantizeOptions withKernel = options;
  std::optional<KernelWeightQuantizer> kernel;
  if (device == "emu") {
    Result<KernelWeightQuantizer> opened = KernelWeightQuantizer::open();
    if (!opened.ok())
      return reportError(err, opened.error());
    kernel.emplace(std::move(opened.value()));
    withKernel.kernel = &*kernel;
  }
  auto sink = [](llvm::raw_ostream &stream) {
    return [&stream](std::string_view text) {
      stream << text;
      stream.flush(); // the progress line is rewritten in place
    };
  };
  Status status = weights::quantizeCheckpoint(withKernel, sink(out), sink(err));
  return status.ok() ? kExitSuccess : reportError(err, status.message());
}

Subcommand quantizeSubcommand() { return {&quantizeCommand, runSelected}; }

} // namespace mxf::cli
