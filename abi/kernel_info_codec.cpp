//===- kernel_info_codec.cpp - KernelInfo as bytes ------------------------===//

#include "abi/kernel_info_codec.h"

namespace mxf {

void encodeKernelInfo(ByteWriter &out, const KernelInfo &info) {
  out.string(info.name);
  out.string(info.target);
  out.u32(info.codeObjectVersion);
  out.u32(info.kernargSize);
  out.u32(info.kernargAlign);
  out.u32(info.vgprCount);
  out.u32(info.agprCount);
  out.u32(info.sgprCount);
  out.u32(info.vgprSpillCount);
  out.u32(info.sgprSpillCount);
  out.u32(info.ldsBytes);
  out.u32(info.scratchBytes);
  out.u32(info.maxWorkgroupSize);
  out.u32(info.wavefrontSize);
  out.u32(uint32_t(info.args.size()));
  for (const KernelArgInfo &arg : info.args) {
    out.string(arg.name);
    out.string(arg.valueKind);
    out.string(arg.addressSpace);
    out.u32(arg.offset);
    out.u32(arg.size);
  }
}

KernelInfo decodeKernelInfo(ByteReader &in) {
  KernelInfo info;
  info.name = in.string("kernel name", kMaxKernelInfoString);
  info.target = in.string("kernel target", kMaxKernelInfoString);
  info.codeObjectVersion = in.u32("code object version");
  info.kernargSize = in.u32("kernarg size");
  info.kernargAlign = in.u32("kernarg alignment");
  info.vgprCount = in.u32("vgpr count");
  info.agprCount = in.u32("agpr count");
  info.sgprCount = in.u32("sgpr count");
  info.vgprSpillCount = in.u32("vgpr spill count");
  info.sgprSpillCount = in.u32("sgpr spill count");
  info.ldsBytes = in.u32("lds bytes");
  info.scratchBytes = in.u32("scratch bytes");
  info.maxWorkgroupSize = in.u32("max workgroup size");
  info.wavefrontSize = in.u32("wavefront size");
  uint32_t argCount = in.u32("kernel argument count");
  if (!in.ok())
    return info;
  if (argCount > kMaxKernelArgs) {
    in.fail("kernel argument count " + std::to_string(argCount) + " exceeds the limit of " +
            std::to_string(kMaxKernelArgs));
    return info;
  }
  info.args.reserve(argCount);
  for (uint32_t i = 0; i < argCount && in.ok(); ++i) {
    KernelArgInfo arg;
    arg.name = in.string("argument name", kMaxKernelInfoString);
    arg.valueKind = in.string("argument value kind", kMaxKernelInfoString);
    arg.addressSpace = in.string("argument address space", kMaxKernelInfoString);
    arg.offset = in.u32("argument offset");
    arg.size = in.u32("argument size");
    if (in.ok() && (uint64_t(arg.offset) + arg.size > info.kernargSize || arg.size == 0))
      in.fail("argument " + std::to_string(i) + " (offset " + std::to_string(arg.offset) +
              ", size " + std::to_string(arg.size) + ") does not fit the kernarg segment of " +
              std::to_string(info.kernargSize) + " bytes");
    info.args.push_back(std::move(arg));
  }
  if (!in.ok())
    return info;
  if (info.name.empty())
    in.fail("kernel name is empty");
  else if (info.wavefrontSize != 32 && info.wavefrontSize != 64)
    in.fail("wavefront size " + std::to_string(info.wavefrontSize) + " is neither 32 nor 64");
  else if (info.maxWorkgroupSize == 0 || info.maxWorkgroupSize > 1024)
    in.fail("max workgroup size " + std::to_string(info.maxWorkgroupSize) +
            " is outside 1..1024");
  else if (info.kernargSize > 4096)
    in.fail("kernarg size " + std::to_string(info.kernargSize) + " exceeds 4096 bytes");
  // A launch aligns its kernarg buffer to this: 2^31 would allocate 2 GiB.
  else if (info.kernargAlign == 0 || info.kernargAlign > 256 ||
           (info.kernargAlign & (info.kernargAlign - 1)) != 0)
    in.fail("kernarg alignment " + std::to_string(info.kernargAlign) +
            " is not a power of two in 1..256");
  return info;
}

} // namespace mxf
