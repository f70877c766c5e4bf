//===- hsaco_reader.h - Kernels of a gfx950 code object ----------*- C++ -*-===//
//
// The entry points of codeobj/ for everything that reads a code object: the
// runtime's KernelInfo (from the metadata note), the decoded kernel
// descriptor, and where each kernel's machine code is.
//
// Every kernel is checked against the ELF as well as the note: its
// descriptor symbol must be 64 bytes inside the file, its sizes must agree
// with the note, and its code must be a function symbol inside an executable
// section. Damaged input (the bundle loader will feed fuzzed data) is an
// error naming what is wrong, never a crash or a best guess.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_CODEOBJ_HSACO_READER_H
#define MXFORGE_CODEOBJ_HSACO_READER_H

#include "codeobj/kernel_descriptor.h"
#include "support/status.h"
#include "abi/kernel_info.h"
#include "abi/launch_record.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mxf::codeobj {

/// One kernel, located. The byte views point into the caller's buffer.
struct KernelImage {
  KernelInfo info;
  std::string descriptorSymbol;   // `.symbol`, e.g. "k.kd"
  uint64_t descriptorAddress = 0; // virtual address of the descriptor
  KernelDescriptor descriptor;
  uint64_t codeAddress = 0;     // descriptor address + entry byte offset
  llvm::ArrayRef<uint8_t> code; // the kernel's function symbol's bytes
};

struct CodeObjectImage {
  std::string target;               // `amdhsa.target`, e.g. amdgcn-amd-amdhsa--gfx950
  unsigned codeObjectVersion = 0;   // 5 or 6
  unsigned machine = 0;             // EF_AMDGPU_MACH_* of e_flags (0x04f: gfx950)
  std::vector<KernelImage> kernels; // in metadata order
};

/// The whole code object: target, version and every kernel, located.
Result<CodeObjectImage> readCodeObject(llvm::ArrayRef<uint8_t> hsaco);

/// The KernelInfo of every kernel (what the runtime and bundle manifests need).
Result<std::vector<KernelInfo>> readKernelInfos(llvm::ArrayRef<uint8_t> hsaco);

/// The launch record the compiler embedded (abi/launch_record.h,
/// kLaunchRecordSection), or an empty optional for a code object without
/// one (`compile --input`, other compilers). A damaged record is an error.
Result<std::optional<LaunchRecord>> readLaunchRecord(llvm::ArrayRef<uint8_t> hsaco);

/// The decoded descriptor of the kernel named `kernelName` (its `.name`).
Result<KernelDescriptor> readKernelDescriptor(llvm::ArrayRef<uint8_t> hsaco,
                                              llvm::StringRef kernelName);

} // namespace mxf::codeobj

#endif // MXFORGE_CODEOBJ_HSACO_READER_H
