//===- kernel_descriptor.cpp - The 64-byte AMDHSA kernel descriptor -------===//

#include "codeobj/kernel_descriptor.h"

#include "llvm/Support/AMDHSAKernelDescriptor.h"
#include "llvm/Support/Endian.h"

#include <cassert>
#include <cstddef>

namespace mxf::codeobj {

namespace {

using llvm::amdhsa::kernel_descriptor_t;

template <typename T> T field(llvm::ArrayRef<uint8_t> bytes, size_t offset) {
  return llvm::support::endian::read<T, llvm::endianness::little>(bytes.data() + offset);
}

// The layout this decoder assumes is LLVM's; fail the build if it moves.
static_assert(sizeof(kernel_descriptor_t) == kKernelDescriptorSize);
static_assert(offsetof(kernel_descriptor_t, kernel_code_entry_byte_offset) == 16);
static_assert(offsetof(kernel_descriptor_t, compute_pgm_rsrc3) == 44);
static_assert(offsetof(kernel_descriptor_t, compute_pgm_rsrc1) == 48);
static_assert(offsetof(kernel_descriptor_t, compute_pgm_rsrc2) == 52);
static_assert(offsetof(kernel_descriptor_t, kernel_code_properties) == 56);
static_assert(offsetof(kernel_descriptor_t, kernarg_preload) == 58);

} // namespace

// AMDHSA_BITS_GET(SRC, MSK) is ((SRC & MSK) >> MSK##_SHIFT), MSK an enum of
// AMDHSAKernelDescriptor.h.
#define GET(SRC, MSK) static_cast<uint32_t>(AMDHSA_BITS_GET(SRC, llvm::amdhsa::MSK))

KernelDescriptor decodeKernelDescriptor(llvm::ArrayRef<uint8_t> bytes) {
  assert(bytes.size() >= kKernelDescriptorSize && "a kernel descriptor is 64 bytes");
  KernelDescriptor kd;
  kd.groupSegmentFixedSize =
      field<uint32_t>(bytes, offsetof(kernel_descriptor_t, group_segment_fixed_size));
  kd.privateSegmentFixedSize =
      field<uint32_t>(bytes, offsetof(kernel_descriptor_t, private_segment_fixed_size));
  kd.kernargSize = field<uint32_t>(bytes, offsetof(kernel_descriptor_t, kernarg_size));
  kd.kernelCodeEntryByteOffset =
      field<int64_t>(bytes, offsetof(kernel_descriptor_t, kernel_code_entry_byte_offset));
  kd.computePgmRsrc3 = field<uint32_t>(bytes, offsetof(kernel_descriptor_t, compute_pgm_rsrc3));
  kd.computePgmRsrc1 = field<uint32_t>(bytes, offsetof(kernel_descriptor_t, compute_pgm_rsrc1));
  kd.computePgmRsrc2 = field<uint32_t>(bytes, offsetof(kernel_descriptor_t, compute_pgm_rsrc2));
  kd.kernelCodeProperties =
      field<uint16_t>(bytes, offsetof(kernel_descriptor_t, kernel_code_properties));
  kd.kernargPreload = field<uint16_t>(bytes, offsetof(kernel_descriptor_t, kernarg_preload));

  const uint32_t rsrc1 = kd.computePgmRsrc1;
  kd.granulatedWorkitemVgprCount = GET(rsrc1, COMPUTE_PGM_RSRC1_GRANULATED_WORKITEM_VGPR_COUNT);
  kd.granulatedWavefrontSgprCount = GET(rsrc1, COMPUTE_PGM_RSRC1_GRANULATED_WAVEFRONT_SGPR_COUNT);
  kd.priority = GET(rsrc1, COMPUTE_PGM_RSRC1_PRIORITY);
  kd.floatRoundMode32 = GET(rsrc1, COMPUTE_PGM_RSRC1_FLOAT_ROUND_MODE_32);
  kd.floatRoundMode16_64 = GET(rsrc1, COMPUTE_PGM_RSRC1_FLOAT_ROUND_MODE_16_64);
  kd.floatDenormMode32 = GET(rsrc1, COMPUTE_PGM_RSRC1_FLOAT_DENORM_MODE_32);
  kd.floatDenormMode16_64 = GET(rsrc1, COMPUTE_PGM_RSRC1_FLOAT_DENORM_MODE_16_64);
  kd.priv = GET(rsrc1, COMPUTE_PGM_RSRC1_PRIV);
  kd.dx10Clamp = GET(rsrc1, COMPUTE_PGM_RSRC1_GFX6_GFX11_ENABLE_DX10_CLAMP);
  kd.debugMode = GET(rsrc1, COMPUTE_PGM_RSRC1_DEBUG_MODE);
  kd.ieeeMode = GET(rsrc1, COMPUTE_PGM_RSRC1_GFX6_GFX11_ENABLE_IEEE_MODE);
  kd.bulky = GET(rsrc1, COMPUTE_PGM_RSRC1_BULKY);
  kd.cdbgUser = GET(rsrc1, COMPUTE_PGM_RSRC1_CDBG_USER);
  kd.fp16Overflow = GET(rsrc1, COMPUTE_PGM_RSRC1_GFX9_PLUS_FP16_OVFL);

  const uint32_t rsrc2 = kd.computePgmRsrc2;
  kd.enablePrivateSegment = GET(rsrc2, COMPUTE_PGM_RSRC2_ENABLE_PRIVATE_SEGMENT);
  kd.userSgprCount = GET(rsrc2, COMPUTE_PGM_RSRC2_GFX6_GFX120_USER_SGPR_COUNT);
  kd.enableTrapHandler = GET(rsrc2, COMPUTE_PGM_RSRC2_GFX6_GFX11_ENABLE_TRAP_HANDLER);
  kd.enableWorkgroupIdX = GET(rsrc2, COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_X);
  kd.enableWorkgroupIdY = GET(rsrc2, COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_Y);
  kd.enableWorkgroupIdZ = GET(rsrc2, COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_Z);
  kd.enableWorkgroupInfo = GET(rsrc2, COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_INFO);
  kd.enableVgprWorkitemId = GET(rsrc2, COMPUTE_PGM_RSRC2_ENABLE_VGPR_WORKITEM_ID);
  kd.enableExceptionAddressWatch = GET(rsrc2, COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_ADDRESS_WATCH);
  kd.enableExceptionMemory = GET(rsrc2, COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_MEMORY);
  kd.granulatedLdsSize = GET(rsrc2, COMPUTE_PGM_RSRC2_GRANULATED_LDS_SIZE);
  kd.enableExceptions = (rsrc2 >> 24) & 0x7f;

  const uint32_t rsrc3 = kd.computePgmRsrc3;
  kd.accumOffsetField = GET(rsrc3, COMPUTE_PGM_RSRC3_GFX90A_ACCUM_OFFSET);
  kd.tgSplit = GET(rsrc3, COMPUTE_PGM_RSRC3_GFX90A_TG_SPLIT);

  const uint32_t props = kd.kernelCodeProperties;
  kd.enableSgprPrivateSegmentBuffer =
      GET(props, KERNEL_CODE_PROPERTY_ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER);
  kd.enableSgprDispatchPtr = GET(props, KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_PTR);
  kd.enableSgprQueuePtr = GET(props, KERNEL_CODE_PROPERTY_ENABLE_SGPR_QUEUE_PTR);
  kd.enableSgprKernargSegmentPtr = GET(props, KERNEL_CODE_PROPERTY_ENABLE_SGPR_KERNARG_SEGMENT_PTR);
  kd.enableSgprDispatchId = GET(props, KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_ID);
  kd.enableSgprFlatScratchInit = GET(props, KERNEL_CODE_PROPERTY_ENABLE_SGPR_FLAT_SCRATCH_INIT);
  kd.enableSgprPrivateSegmentSize =
      GET(props, KERNEL_CODE_PROPERTY_ENABLE_SGPR_PRIVATE_SEGMENT_SIZE);
  kd.enableWavefrontSize32 = GET(props, KERNEL_CODE_PROPERTY_ENABLE_WAVEFRONT_SIZE32);
  kd.usesDynamicStack = GET(props, KERNEL_CODE_PROPERTY_USES_DYNAMIC_STACK);

  const uint32_t preload = kd.kernargPreload;
  kd.kernargPreloadLength = GET(preload, KERNARG_PRELOAD_SPEC_LENGTH);
  kd.kernargPreloadOffset = GET(preload, KERNARG_PRELOAD_SPEC_OFFSET);
  return kd;
}

#undef GET

uint32_t KernelDescriptor::enabledUserSgprs() const {
  return 4 * enableSgprPrivateSegmentBuffer + 2 * enableSgprDispatchPtr + 2 * enableSgprQueuePtr +
         2 * enableSgprKernargSegmentPtr + 2 * enableSgprDispatchId +
         2 * enableSgprFlatScratchInit + enableSgprPrivateSegmentSize + kernargPreloadLength;
}

} // namespace mxf::codeobj
