//===- kernel_args.h - Kernel arguments and the kernarg segment ---*- C++ -*-===//
//
// A kernel's arguments live in its kernarg segment, at the offsets and sizes
// its code object's metadata lists (`.args`). The caller names only the
// explicit arguments, in order; the hidden ones that follow (block counts,
// group sizes, ... of the AMDHSA code object v5 ABI) are filled here from the
// launch's dimensions. Nothing about any particular kernel is hard-coded: the
// layout always comes from the KernelInfo, so a kernel whose arguments change
// needs no runtime change, and a call that no longer matches is an error that
// names the argument, never a silently misplaced byte.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_RUNTIME_KERNEL_ARGS_H
#define MXFORGE_RUNTIME_KERNEL_ARGS_H

#include "support/status.h"
#include "runtime/device_types.h"
#include "abi/kernel_info.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <type_traits>
#include <vector>

namespace mxf::runtime {

/// One explicit argument as the caller gives it: a device pointer (for a
/// `global_buffer`) or the bytes of a value (for a `by_value`).
class KernelArg {
public:
  enum class Kind { Pointer, Value };

  /// The start of `buffer`, plus `byteOffset` (checked against its size when
  /// packed, so a pointer into a buffer cannot point past it).
  static KernelArg buffer(const DeviceBuffer &buffer, uint64_t byteOffset = 0) {
    KernelArg arg(Kind::Pointer);
    arg.address_ = buffer.address == 0 ? 0 : buffer.address + byteOffset;
    arg.bufferSize_ = buffer.size;
    arg.byteOffset_ = byteOffset;
    arg.fromBuffer_ = true;
    return arg;
  }
  /// A raw device address (memory this runtime did not allocate).
  static KernelArg pointer(uint64_t address) {
    KernelArg arg(Kind::Pointer);
    arg.address_ = address;
    return arg;
  }
  /// A null pointer the caller means (a kernel's unused scratch pointer, as
  /// Triton passes its global and profile scratch): a null from pointer() or
  /// buffer() is refused as a mistake, this one is not.
  static KernelArg nullPointer() {
    KernelArg arg(Kind::Pointer);
    arg.intendedNull_ = true;
    return arg;
  }
  /// The object representation of `value`: its size must equal the
  /// argument's `.size` exactly (a uint64_t for a 4-byte argument is an error,
  /// not a truncation).
  template <typename T> static KernelArg value(const T &value) {
    static_assert(std::is_trivially_copyable_v<T>, "by_value arguments are copied bytewise");
    return bytes(&value, sizeof(T));
  }
  static KernelArg bytes(const void *data, size_t size) {
    KernelArg arg(Kind::Value);
    arg.bytes_.resize(size);
    if (size)
      std::memcpy(arg.bytes_.data(), data, size);
    return arg;
  }

  Kind kind() const { return kind_; }
  uint64_t address() const { return address_; }
  const std::vector<uint8_t> &valueBytes() const { return bytes_; }
  bool fromBuffer() const { return fromBuffer_; }
  bool intendedNull() const { return intendedNull_; }
  uint64_t bufferSize() const { return bufferSize_; }
  uint64_t byteOffset() const { return byteOffset_; }

private:
  explicit KernelArg(Kind kind) : kind_(kind) {}

  Kind kind_;
  uint64_t address_ = 0;
  uint64_t bufferSize_ = 0; // only when fromBuffer_
  uint64_t byteOffset_ = 0; // only when fromBuffer_
  bool fromBuffer_ = false;
  bool intendedNull_ = false;
  std::vector<uint8_t> bytes_;
};

/// The explicit arguments of one launch, in the kernel's order.
class KernelArgs {
public:
  KernelArgs() = default;
  KernelArgs(std::initializer_list<KernelArg> args) : args_(args) {}

  KernelArgs &add(KernelArg arg) {
    args_.push_back(std::move(arg));
    return *this;
  }
  KernelArgs &buffer(const DeviceBuffer &buffer, uint64_t byteOffset = 0) {
    return add(KernelArg::buffer(buffer, byteOffset));
  }
  template <typename T> KernelArgs &value(const T &v) { return add(KernelArg::value(v)); }

  size_t size() const { return args_.size(); }
  const KernelArg &operator[](size_t i) const { return args_[i]; }
  /// Replaces argument i (a checked launch's placeholder by the buffer
  /// allocated for it). Precondition: i < size().
  void replace(size_t i, KernelArg arg) { args_[i] = std::move(arg); }

private:
  std::vector<KernelArg> args_;
};

/// A packed kernarg segment: exactly `KernelInfo::kernargSize` bytes, aligned
/// to at least `kernargAlign` and 16 (the hip runtime and the emulator both
/// read it with wide loads).
class KernargBuffer {
public:
  static constexpr size_t kMinAlign = 16;

  KernargBuffer() = default;
  KernargBuffer(size_t size, size_t align);

  uint8_t *data() { return storage_.get(); }
  const uint8_t *data() const { return storage_.get(); }
  size_t size() const { return size_; }
  size_t alignment() const { return align_; }

private:
  struct AlignedDelete {
    size_t align;
    void operator()(uint8_t *p) const;
  };
  std::unique_ptr<uint8_t, AlignedDelete> storage_{nullptr, AlignedDelete{kMinAlign}};
  size_t size_ = 0;
  size_t align_ = kMinAlign;
};

/// The launch facts the hidden arguments are made of.
struct LaunchGeometry {
  Dim3 grid;      // workgroups per dimension
  Dim3 workgroup; // work-items per workgroup
  uint32_t dynamicLdsBytes = 0;
};

/// Checks `geometry` against what the hardware and `info` allow: no zero
/// extent, a workgroup within `.max_flat_workgroup_size` (and 1024), every
/// grid dimension's work-item count within 32 bits (the dispatch packet's
/// grid_size fields), static plus dynamic LDS within gfx950's 160 KiB.
Status checkLaunchGeometry(const KernelInfo &info, const LaunchGeometry &geometry);

/// Lays out `args` and the hidden arguments of `info` for one launch with
/// `geometry`. Errors name the kernel, the argument (index and name) and what
/// was expected.
Result<KernargBuffer> packKernelArgs(const KernelInfo &info, const KernelArgs &args,
                                     const LaunchGeometry &geometry);

/// The gfx950 LDS size per workgroup (MI355X: 160 KiB).
inline constexpr uint32_t kGfx950LdsBytes = 160 * 1024;

} // namespace mxf::runtime

#endif // MXFORGE_RUNTIME_KERNEL_ARGS_H
