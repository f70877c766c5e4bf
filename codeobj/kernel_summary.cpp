//===- kernel_summary.cpp - What `mxforge inspect` reports ----------------===//

#include "codeobj/kernel_summary.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"

namespace mxf::codeobj {

namespace {

std::vector<std::string> warningsFor(const KernelSummary &summary) {
  std::vector<std::string> warnings;
  const KernelInfo &info = summary.kernel.info;
  // Scratch is memory traffic the kernel author usually did not mean to
  // write (a private array, or the register allocator giving up).
  if (info.scratchBytes > 0 || summary.scratchInstructions > 0)
    warnings.push_back("scratch in use: " + std::to_string(info.scratchBytes) +
                       " bytes per work-item, " + std::to_string(summary.scratchInstructions) +
                       " scratch instructions");
  if (info.vgprSpillCount > 0 || info.sgprSpillCount > 0)
    warnings.push_back("spills: " + std::to_string(info.vgprSpillCount) + " VGPRs, " +
                       std::to_string(info.sgprSpillCount) + " SGPRs");
  return warnings;
}

} // namespace

bool isGfx950Target(llvm::StringRef target) {
  llvm::StringRef rest = target;
  return rest.consume_front("amdgcn-amd-amdhsa--gfx950") && (rest.empty() || rest[0] == ':');
}

Status checkGfx950CodeObject(const CodeObjectImage &image) {
  if (!isGfx950Target(image.target))
    return Status::failure("target '" + image.target +
                           "' is not gfx950: the decoder, the emulator and the occupancy "
                           "rules here are gfx950's");
  if (image.machine != llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX950)
    return Status::failure("the ELF header's machine (e_flags 0x" +
                           llvm::utohexstr(image.machine) +
                           ") is not gfx950 (0x4f), unlike the metadata's target");
  return Status::success();
}

Result<CodeObjectSummary> summarizeCodeObject(llvm::ArrayRef<uint8_t> hsaco,
                                              const Disassembler &disassembler) {
  using R = Result<CodeObjectSummary>;
  Result<CodeObjectImage> image = readCodeObject(hsaco);
  if (!image.ok())
    return image.status();
  if (Status gfx950 = checkGfx950CodeObject(image.value()); !gfx950.ok())
    return gfx950;
  CodeObjectSummary summary;
  summary.target = image.value().target;
  summary.codeObjectVersion = image.value().codeObjectVersion;
  Result<std::optional<LaunchRecord>> launch = readLaunchRecord(hsaco);
  if (!launch.ok())
    return launch.status();
  summary.launch = launch.value();
  if (summary.launch) {
    // A record only makes sense for the one kernel of a code object we made.
    if (image.value().kernels.size() != 1)
      return R::failure("a launch record, but " + std::to_string(image.value().kernels.size()) +
                        " kernels: mxforge embeds one only in single-kernel code objects");
    if (Status agrees = summary.launch->checkAgainst(image.value().kernels.front().info);
        !agrees.ok())
      return R::failure("the embedded launch record disagrees with the kernel's metadata: " +
                        agrees.message());
  }
  for (KernelImage &kernel : image.value().kernels) {
    KernelSummary out;
    out.kernel = std::move(kernel);
    const KernelInfo &info = out.kernel.info;
    Result<std::vector<DecodedInstruction>> instructions =
        disassembler.disassemble(out.kernel.code, out.kernel.codeAddress);
    if (!instructions.ok())
      return R::failure("kernel '" + info.name + "': " + instructions.error());
    out.instructions = std::move(instructions.value());
    const bool privateBuffer = out.kernel.descriptor.enableSgprPrivateSegmentBuffer;
    for (const DecodedInstruction &instruction : out.instructions) {
      InstructionFamily family = classifyInstruction(instruction, privateBuffer);
      out.families.push_back(family);
      ++out.histogram[family];
    }
    out.scratchInstructions = out.histogram[InstructionFamily::Scratch];
    out.occupancy =
        computeOccupancy({info.vgprCount, info.sgprCount, info.ldsBytes, info.maxWorkgroupSize});
    out.warnings = warningsFor(out);
    summary.kernels.push_back(std::move(out));
  }
  return summary;
}

} // namespace mxf::codeobj
