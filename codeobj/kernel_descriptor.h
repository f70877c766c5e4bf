//===- kernel_descriptor.h - The 64-byte AMDHSA kernel descriptor -*- C++ -*-===//
//
// What the hardware dispatcher reads to start a kernel (AMDGPUUsage "Kernel
// Descriptor"; docs/GFX950_SEMANTICS.md §D): segment sizes, where the code
// starts, and the COMPUTE_PGM_RSRC1/2/3 registers. Decoded field by field for
// `mxforge inspect` and for the emulator, which sets up its initial SGPRs,
// VGPRs and MODE from it. Field positions come from LLVM's
// llvm/Support/AMDHSAKernelDescriptor.h, not from numbers typed here.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_CODEOBJ_KERNEL_DESCRIPTOR_H
#define MXFORGE_CODEOBJ_KERNEL_DESCRIPTOR_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>

namespace mxf::codeobj {

constexpr unsigned kKernelDescriptorSize = 64;

struct KernelDescriptor {
  // Raw words, little-endian in the file.
  uint32_t groupSegmentFixedSize = 0;    // +0: static LDS bytes
  uint32_t privateSegmentFixedSize = 0;  // +4: scratch bytes per work-item
  uint32_t kernargSize = 0;              // +8
  int64_t kernelCodeEntryByteOffset = 0; // +16: code start minus descriptor address
  uint32_t computePgmRsrc3 = 0;          // +44
  uint32_t computePgmRsrc1 = 0;          // +48
  uint32_t computePgmRsrc2 = 0;          // +52
  uint16_t kernelCodeProperties = 0;     // +56
  uint16_t kernargPreload = 0;           // +58

  // COMPUTE_PGM_RSRC1.
  uint32_t granulatedWorkitemVgprCount = 0;  // blocks of 8 (gfx90a+), minus one
  uint32_t granulatedWavefrontSgprCount = 0; // blocks of 8 on gfx9, minus one
  uint32_t priority = 0;
  uint32_t floatRoundMode32 = 0; // 0 = round to nearest even
  uint32_t floatRoundMode16_64 = 0;
  uint32_t floatDenormMode32 = 0; // 3 = keep denormals (no flush)
  uint32_t floatDenormMode16_64 = 0;
  bool priv = false;
  bool dx10Clamp = false;
  bool debugMode = false;
  bool ieeeMode = false;
  bool bulky = false;
  bool cdbgUser = false;
  bool fp16Overflow = false;

  // COMPUTE_PGM_RSRC2.
  bool enablePrivateSegment = false;
  uint32_t userSgprCount = 0;
  bool enableTrapHandler = false;
  bool enableWorkgroupIdX = false;
  bool enableWorkgroupIdY = false;
  bool enableWorkgroupIdZ = false;
  bool enableWorkgroupInfo = false;
  uint32_t enableVgprWorkitemId = 0; // 0: x, 1: x y, 2: x y z
  bool enableExceptionAddressWatch = false;
  bool enableExceptionMemory = false;
  uint32_t granulatedLdsSize = 0;
  uint32_t enableExceptions = 0; // the seven FP/int exception enables, bits [30:24] >> 24

  // COMPUTE_PGM_RSRC3 (gfx90a+ layout).
  uint32_t accumOffsetField = 0; // accum_offset / 4 - 1
  bool tgSplit = false;

  // kernel_code_properties.
  bool enableSgprPrivateSegmentBuffer = false;
  bool enableSgprDispatchPtr = false;
  bool enableSgprQueuePtr = false;
  bool enableSgprKernargSegmentPtr = false;
  bool enableSgprDispatchId = false;
  bool enableSgprFlatScratchInit = false;
  bool enableSgprPrivateSegmentSize = false;
  bool enableWavefrontSize32 = false;
  bool usesDynamicStack = false;

  // kernarg_preload.
  uint32_t kernargPreloadLength = 0; // dwords preloaded into SGPRs
  uint32_t kernargPreloadOffset = 0; // in dwords

  /// VGPRs the dispatcher allocates per lane (arch + AGPR, unified file).
  uint32_t allocatedVgprs() const { return (granulatedWorkitemVgprCount + 1) * 8; }
  /// SGPRs the dispatcher allocates per wave (gfx9 encoding granule 8).
  uint32_t allocatedSgprs() const { return (granulatedWavefrontSgprCount + 1) * 8; }
  /// First AGPR's index in the unified VGPR file.
  uint32_t accumOffset() const { return (accumOffsetField + 1) * 4; }
  /// User SGPRs the enable bits ask for, in their fixed order (§D): private
  /// segment buffer 4, dispatch ptr 2, queue ptr 2, kernarg ptr 2, dispatch
  /// id 2, flat scratch init 2, private segment size 1, then preloaded kernargs.
  uint32_t enabledUserSgprs() const;
};

/// Decodes the 64 bytes at `bytes` (which must hold at least 64).
KernelDescriptor decodeKernelDescriptor(llvm::ArrayRef<uint8_t> bytes);

} // namespace mxf::codeobj

#endif // MXFORGE_CODEOBJ_KERNEL_DESCRIPTOR_H
