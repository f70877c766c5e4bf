//===- kernel_info_codec.h - KernelInfo as bytes (cache entries, bundles) -*- C++ -*-===//
//
// The binary form of a KernelInfo inside cache entries and bundle manifests,
// so that loading either needs no ELF parsing (the runtime links no LLVM).
// Every count and string length is bounded on decode: damaged input gives an
// error naming the field, never a huge allocation.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_RUNTIME_KERNEL_INFO_CODEC_H
#define MXFORGE_RUNTIME_KERNEL_INFO_CODEC_H

#include "support/status.h"
#include "abi/kernel_info.h"
#include "support/byte_io.h"

namespace mxf {

/// Limits decodeKernelInfo enforces (far above anything a kernel has).
constexpr size_t kMaxKernelArgs = 256;
constexpr size_t kMaxKernelInfoString = 1024;

void encodeKernelInfo(ByteWriter &out, const KernelInfo &info);
/// Reads one KernelInfo; on damaged input `in` records the error and the
/// result is meaningless (check in.ok()). Also rejects values no kernel can
/// have (an argument past the kernarg segment, a wavefront size other than
/// 32 or 64), so a decoded KernelInfo is safe to pack arguments with.
KernelInfo decodeKernelInfo(ByteReader &in);

} // namespace mxf

#endif // MXFORGE_RUNTIME_KERNEL_INFO_CODEC_H
