//===- hsaco_reader.cpp - Kernels of a gfx950 code object -----------------===//

#include "codeobj/hsaco_reader.h"

#include "codeobj/elf_image.h"
#include "codeobj/metadata_note.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/BinaryFormat/ELF.h"

namespace mxf::codeobj {

namespace {

std::string hex(uint64_t value) { return "0x" + llvm::utohexstr(value); }

/// The descriptor's copies of the segment sizes are what the dispatcher
/// uses; the note's are what the runtime uses. They must agree, except that
/// a kernarg size of 0 in the descriptor is one the assembler left unset
/// (hand-written kernels such as AITER's f4gemm .co files): the note's then
/// stands for both.
Status checkAgainstNote(KernelDescriptor &kd, const KernelInfo &info) {
  auto mismatch = [&](const char *what, uint64_t inDescriptor, uint64_t inNote) {
    return Status::failure("kernel '" + info.name + "': the descriptor's " + what + " (" +
                           std::to_string(inDescriptor) + ") differs from the metadata's (" +
                           std::to_string(inNote) + ")");
  };
  if (kd.groupSegmentFixedSize != info.ldsBytes)
    return mismatch("group segment size", kd.groupSegmentFixedSize, info.ldsBytes);
  if (kd.privateSegmentFixedSize != info.scratchBytes)
    return mismatch("private segment size", kd.privateSegmentFixedSize, info.scratchBytes);
  if (kd.kernargSize == 0)
    kd.kernargSize = uint32_t(info.kernargSize);
  if (kd.kernargSize != info.kernargSize)
    return mismatch("kernarg size", kd.kernargSize, info.kernargSize);
  return Status::success();
}

Result<KernelImage> locateKernel(const ElfImage &elf, KernelMetadata metadata) {
  KernelImage kernel;
  kernel.info = std::move(metadata.info);
  kernel.info.codeObjectVersion = elf.codeObjectVersion();
  kernel.descriptorSymbol = std::move(metadata.descriptorSymbol);
  const std::string &name = kernel.info.name;

  Result<SymbolBytes> kdSymbol = elf.findSymbol(kernel.descriptorSymbol);
  if (!kdSymbol.ok())
    return Result<KernelImage>::failure("kernel '" + name + "': descriptor: " + kdSymbol.error());
  if (kdSymbol.value().bytes.size() != kKernelDescriptorSize)
    return Result<KernelImage>::failure(
        "kernel '" + name + "': descriptor symbol '" + kernel.descriptorSymbol + "' is " +
        std::to_string(kdSymbol.value().bytes.size()) + " bytes, expected 64");
  kernel.descriptorAddress = kdSymbol.value().address;
  kernel.descriptor = decodeKernelDescriptor(kdSymbol.value().bytes);
  if (Status agree = checkAgainstNote(kernel.descriptor, kernel.info); !agree.ok())
    return agree;

  // Unsigned arithmetic: a damaged offset may wrap, which the section lookup
  // below then rejects (signed overflow would be undefined).
  kernel.codeAddress =
      kernel.descriptorAddress + static_cast<uint64_t>(kernel.descriptor.kernelCodeEntryByteOffset);
  Result<SymbolBytes> function = elf.findSymbol(name);
  if (!function.ok())
    return Result<KernelImage>::failure("kernel '" + name + "': code: " + function.error());
  if (function.value().type != llvm::ELF::STT_FUNC)
    return Result<KernelImage>::failure("kernel '" + name + "': symbol '" + name +
                                        "' is not a function");
  if (function.value().address != kernel.codeAddress)
    return Result<KernelImage>::failure(
        "kernel '" + name + "': the descriptor's code entry " + hex(kernel.codeAddress) +
        " is not the start of function '" + name + "' at " + hex(function.value().address));
  // Hand-assembled code objects (AITER's f4gemm .co files) give the kernel
  // symbol no size: its code then runs to the end of its section.
  Result<llvm::ArrayRef<uint8_t>> code =
      function.value().size != 0
          ? elf.bytesAt(kernel.codeAddress, function.value().size, /*code=*/true)
          : elf.bytesToSectionEnd(kernel.codeAddress, /*code=*/true);
  if (!code.ok())
    return Result<KernelImage>::failure("kernel '" + name + "': code: " + code.error());
  kernel.code = code.value();
  return kernel;
}

} // namespace

Result<CodeObjectImage> readCodeObject(llvm::ArrayRef<uint8_t> hsaco) {
  Result<ElfImage> elf = ElfImage::open(hsaco);
  if (!elf.ok())
    return elf.status();
  Result<llvm::StringRef> note = elf.value().metadataNote();
  if (!note.ok())
    return note.status();
  Result<CodeObjectMetadata> metadata = parseMetadataNote(note.value());
  if (!metadata.ok())
    return metadata.status();
  CodeObjectImage image;
  image.target = metadata.value().target;
  if (image.target.empty()) {
    image.target = elf.value().targetFromFlags();
    if (image.target.empty())
      return Result<CodeObjectImage>::failure(
          "metadata note: 'amdhsa.target' is missing and the ELF header's machine (e_flags 0x" +
          llvm::utohexstr(elf.value().machine()) + ") is not gfx950");
    for (KernelMetadata &kernelMetadata : metadata.value().kernels)
      kernelMetadata.info.target = image.target;
  }
  image.codeObjectVersion = elf.value().codeObjectVersion();
  image.machine = elf.value().machine();
  llvm::StringSet<> names;
  for (KernelMetadata &kernelMetadata : metadata.value().kernels) {
    // Kernels are looked up by name (runtime, bundles, this API).
    if (!names.insert(kernelMetadata.info.name).second)
      return Result<CodeObjectImage>::failure("two kernels are named '" + kernelMetadata.info.name +
                                              "'");
    Result<KernelImage> kernel = locateKernel(elf.value(), std::move(kernelMetadata));
    if (!kernel.ok())
      return kernel.status();
    image.kernels.push_back(std::move(kernel.value()));
  }
  return image;
}

Result<std::vector<KernelInfo>> readKernelInfos(llvm::ArrayRef<uint8_t> hsaco) {
  Result<CodeObjectImage> image = readCodeObject(hsaco);
  if (!image.ok())
    return image.status();
  std::vector<KernelInfo> infos;
  for (KernelImage &kernel : image.value().kernels)
    infos.push_back(std::move(kernel.info));
  return infos;
}

Result<std::optional<LaunchRecord>> readLaunchRecord(llvm::ArrayRef<uint8_t> hsaco) {
  using R = Result<std::optional<LaunchRecord>>;
  Result<ElfImage> image = ElfImage::open(hsaco);
  if (!image.ok())
    return image.status();
  Result<std::optional<llvm::ArrayRef<uint8_t>>> section =
      image.value().sectionNamed(kLaunchRecordSection);
  if (!section.ok())
    return section.status();
  if (!section.value())
    return std::optional<LaunchRecord>();
  const llvm::ArrayRef<uint8_t> bytes = *section.value();
  if (bytes.size() != kLaunchRecordBytes)
    return R::failure(std::string("the ") + kLaunchRecordSection + " section holds " +
                      std::to_string(bytes.size()) + " bytes, not a launch record's " +
                      std::to_string(kLaunchRecordBytes));
  ByteReader in(bytes.data(), bytes.size());
  LaunchRecord record = decodeLaunchRecord(in);
  if (!in.ok())
    return R::failure(std::string("the ") + kLaunchRecordSection + " section: " + in.error());
  return std::optional<LaunchRecord>(record);
}

Result<KernelDescriptor> readKernelDescriptor(llvm::ArrayRef<uint8_t> hsaco,
                                              llvm::StringRef kernelName) {
  Result<CodeObjectImage> image = readCodeObject(hsaco);
  if (!image.ok())
    return image.status();
  std::string known;
  for (const KernelImage &kernel : image.value().kernels) {
    if (kernel.info.name == kernelName)
      return kernel.descriptor;
    known += (known.empty() ? "" : ", ") + kernel.info.name;
  }
  return Result<KernelDescriptor>::failure(
      "no kernel named '" + kernelName.str() +
      "' (the code object has: " + (known.empty() ? "none" : known) + ")");
}

} // namespace mxf::codeobj
