//===- kernel_args.cpp - Packing the kernarg segment from metadata --------===//
//
// Every check happens before a byte is written, and every message names the
// kernel and the argument (its index among all `.args`, its name and kind),
// because a mismatch here means the caller and the code object disagree
// about the ABI, and "invalid argument" from a GPU runtime tells no one which.
//
//===----------------------------------------------------------------------===//

#include "runtime/kernel_args.h"
#include "runtime/hidden_args.h"

#include <algorithm>
#include <new>
#include <string>
#include <utility>

namespace mxf::runtime {

//===--- KernargBuffer ----------------------------------------------------===//

void KernargBuffer::AlignedDelete::operator()(uint8_t *p) const {
  ::operator delete(p, std::align_val_t(align));
}

KernargBuffer::KernargBuffer(size_t size, size_t align)
    : storage_(nullptr, AlignedDelete{std::max(align, kMinAlign)}), size_(size),
      align_(std::max(align, kMinAlign)) {
  // Never a zero-byte allocation, so data() is non-null even for a kernel
  // without arguments (hip wants a pointer either way).
  size_t bytes = std::max<size_t>(size, 1);
  bytes = (bytes + align_ - 1) / align_ * align_;
  storage_.reset(static_cast<uint8_t *>(::operator new(bytes, std::align_val_t(align_))));
  std::memset(storage_.get(), 0, bytes);
}

//===--- Descriptions for messages ------------------------------------------===//

namespace {

bool isHidden(const KernelArgInfo &arg) { return arg.valueKind.rfind("hidden_", 0) == 0; }

std::string quoted(const std::string &name) { return name.empty() ? "unnamed" : "'" + name + "'"; }

/// "argument 2 ('n', by_value, 4 bytes)"; `index` counts all `.args`.
std::string describe(const KernelArgInfo &arg, size_t index) {
  return "argument " + std::to_string(index) + " (" + quoted(arg.name) + ", " + arg.valueKind +
         ", " + std::to_string(arg.size) + " bytes)";
}

std::string kernelPrefix(const KernelInfo &info) { return "kernel " + quoted(info.name) + ": "; }

/// "0 'x': global_buffer, 1 'n': by_value 4 bytes" for a count mismatch.
std::string explicitSignature(const KernelInfo &info) {
  std::string out;
  size_t index = 0;
  for (const KernelArgInfo &arg : info.args) {
    if (isHidden(arg))
      continue;
    if (!out.empty())
      out += ", ";
    out += std::to_string(index++) + " " + quoted(arg.name) + ": " + arg.valueKind;
    if (arg.valueKind == "by_value")
      out += " " + std::to_string(arg.size) + " bytes";
  }
  return out.empty() ? "none" : out;
}

std::string describeGiven(const KernelArg &given) {
  if (given.kind() == KernelArg::Kind::Pointer)
    return "a device pointer";
  return std::to_string(given.valueBytes().size()) + " bytes of by_value data";
}

bool isPowerOfTwo(uint64_t v) { return v && (v & (v - 1)) == 0; }

/// Writes the low `size` bytes of `value`, little-endian (the kernarg
/// segment's byte order on AMDGPU, whatever the host's).
void storeLittleEndian(uint8_t *at, uint64_t value, uint32_t size) {
  for (uint32_t i = 0; i < size; ++i)
    at[i] = i < 8 ? uint8_t(value >> (8 * i)) : 0;
}

/// The checks on the metadata itself: every argument inside the segment,
/// known kinds at their ABI sizes. A failure here is a damaged KernelInfo
/// (hand-made or from a stale manifest), not a caller mistake.
Status checkLayout(const KernelInfo &info) {
  if (info.kernargAlign != 0 && !isPowerOfTwo(info.kernargAlign))
    return Status::failure(kernelPrefix(info) + "'.kernarg_segment_align' is " +
                           std::to_string(info.kernargAlign) + ", expected a power of two");
  for (size_t i = 0; i < info.args.size(); ++i) {
    const KernelArgInfo &arg = info.args[i];
    if (uint64_t(arg.offset) + arg.size > info.kernargSize)
      return Status::failure(kernelPrefix(info) + describe(arg, i) + " at bytes [" +
                             std::to_string(arg.offset) + ", " +
                             std::to_string(uint64_t(arg.offset) + arg.size) + ") runs past the " +
                             std::to_string(info.kernargSize) + "-byte kernarg segment");
    if (isHidden(arg)) {
      uint32_t abiSize = hiddenArgValue(arg.valueKind, LaunchGeometry{}).abiSize;
      if (abiSize != 0 && arg.size != abiSize)
        return Status::failure(kernelPrefix(info) + describe(arg, i) + ": the code object " +
                               "v5 ABI gives " + arg.valueKind + " " + std::to_string(abiSize) +
                               " bytes");
      continue;
    }
    if (arg.valueKind == "global_buffer") {
      if (arg.size != 8)
        return Status::failure(kernelPrefix(info) + describe(arg, i) +
                               ": a global_buffer is an 8-byte pointer");
      continue;
    }
    if (arg.valueKind == "by_value")
      continue;
    return Status::failure(kernelPrefix(info) + describe(arg, i) + ": value kind '" +
                           arg.valueKind +
                           "' is not supported by the mxforge runtime (only global_buffer, "
                           "by_value and hidden_* are)");
  }
  return Status::success();
}

/// Checks that `given` fits the explicit argument `arg`.
Status checkExplicit(const KernelInfo &info, const KernelArgInfo &arg, size_t index,
                     const KernelArg &given) {
  auto fail = [&](const std::string &what) {
    return Status::failure(kernelPrefix(info) + describe(arg, index) + ": " + what);
  };
  if (arg.valueKind == "global_buffer") {
    if (given.kind() != KernelArg::Kind::Pointer)
      return fail("expected a device buffer, got " + describeGiven(given));
    if (given.address() == 0 && !given.intendedNull())
      return fail("got a null pointer; pass a live device buffer");
    if (given.fromBuffer() && given.byteOffset() > given.bufferSize())
      return fail("the pointer is " + std::to_string(given.byteOffset()) +
                  " bytes into a buffer of " + std::to_string(given.bufferSize()) +
                  " bytes, past its end");
    return Status::success();
  }
  // by_value: the exact size, so that a uint64_t for a 4-byte argument (or
  // an int for an 8-byte one) is caught rather than truncated or padded.
  if (given.kind() != KernelArg::Kind::Value)
    return fail("expected " + std::to_string(arg.size) + " bytes of by_value data, got a " +
                "device pointer");
  if (given.valueBytes().size() != arg.size)
    return fail("expected " + std::to_string(arg.size) + " bytes, got " +
                std::to_string(given.valueBytes().size()));
  return Status::success();
}

} // namespace

//===--- Launch geometry ----------------------------------------------------===//

Status checkLaunchGeometry(const KernelInfo &info, const LaunchGeometry &geometry) {
  static const char *const kAxis[3] = {"x", "y", "z"};
  for (int d = 0; d < 3; ++d) {
    if (geometry.grid[d] == 0)
      return Status::failure(kernelPrefix(info) + "grid." + kAxis[d] +
                             " is 0; every dimension needs at least one workgroup");
    if (geometry.workgroup[d] == 0)
      return Status::failure(kernelPrefix(info) + "workgroup." + kAxis[d] +
                             " is 0; every dimension needs at least one work-item");
    // The dispatch packet's grid_size is 32-bit per dimension.
    uint64_t items = uint64_t(geometry.grid[d]) * geometry.workgroup[d];
    if (items > UINT32_MAX)
      return Status::failure(kernelPrefix(info) + "grid." + kAxis[d] + " " +
                             std::to_string(geometry.grid[d]) + " x workgroup." + kAxis[d] + " " +
                             std::to_string(geometry.workgroup[d]) + " = " + std::to_string(items) +
                             " work-items, more than 2^32 - 1");
  }
  uint64_t flat = geometry.workgroup.product();
  uint64_t limit = info.maxWorkgroupSize ? std::min<uint32_t>(info.maxWorkgroupSize, 1024) : 1024;
  if (flat > limit)
    return Status::failure(
        kernelPrefix(info) + "a workgroup of " + std::to_string(geometry.workgroup.x) + "x" +
        std::to_string(geometry.workgroup.y) + "x" + std::to_string(geometry.workgroup.z) + " = " +
        std::to_string(flat) + " work-items exceeds its maximum of " + std::to_string(limit) +
        (info.maxWorkgroupSize ? " ('.max_flat_workgroup_size')" : ""));
  uint64_t lds = uint64_t(info.ldsBytes) + geometry.dynamicLdsBytes;
  if (lds > kGfx950LdsBytes)
    return Status::failure(kernelPrefix(info) + std::to_string(info.ldsBytes) +
                           " bytes of static LDS + " + std::to_string(geometry.dynamicLdsBytes) +
                           " of dynamic LDS exceed gfx950's " + std::to_string(kGfx950LdsBytes) +
                           " bytes per workgroup");
  return Status::success();
}

//===--- Packing ---------------------------------------------------------------===//

Result<KernargBuffer> packKernelArgs(const KernelInfo &info, const KernelArgs &args,
                                     const LaunchGeometry &geometry) {
  if (Status layout = checkLayout(info); !layout.ok())
    return layout;
  if (Status dims = checkLaunchGeometry(info, geometry); !dims.ok())
    return dims;
  size_t explicitCount = info.explicitArgCount();
  if (args.size() != explicitCount)
    return Status::failure(kernelPrefix(info) + "takes " + std::to_string(explicitCount) +
                           " explicit argument" + (explicitCount == 1 ? "" : "s") + " (" +
                           explicitSignature(info) + "), got " + std::to_string(args.size()));
  size_t next = 0;
  for (size_t i = 0; i < info.args.size(); ++i)
    if (!isHidden(info.args[i]))
      if (Status s = checkExplicit(info, info.args[i], i, args[next++]); !s.ok())
        return s;

  KernargBuffer buffer(info.kernargSize, info.kernargAlign);
  next = 0;
  for (const KernelArgInfo &arg : info.args) {
    uint8_t *at = buffer.data() + arg.offset;
    if (isHidden(arg)) {
      storeLittleEndian(at, hiddenArgValue(arg.valueKind, geometry).value, arg.size);
      continue;
    }
    const KernelArg &given = args[next++];
    if (given.kind() == KernelArg::Kind::Pointer)
      storeLittleEndian(at, given.address(), arg.size);
    else if (arg.size)
      std::memcpy(at, given.valueBytes().data(), arg.size);
  }
  return Result<KernargBuffer>(std::move(buffer));
}

} // namespace mxf::runtime
