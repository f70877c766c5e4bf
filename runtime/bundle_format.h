//===- bundle_format.h - Where each field of a bundle lies --------*- C++ -*-===//
//
// The fixed header's field offsets and the size of a manifest entry's fixed
// parts, shared by the writer, the loader and the tests that damage bundles
// on purpose. docs/bundle.md has the same table with words.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_RUNTIME_BUNDLE_FORMAT_H
#define MXFORGE_RUNTIME_BUNDLE_FORMAT_H

#include "runtime/bundle.h"

#include <cstddef>
#include <cstdint>

namespace mxf::bundle_format {

// Fixed header: 64 bytes, all integers little-endian.
constexpr size_t kMagicOffset = 0;             // 8 bytes "MXFBUNDL"
constexpr size_t kFormatVersionOffset = 8;     // u32
constexpr size_t kKernelAbiOffset = 12;        // u32
constexpr size_t kTemplateRevisionOffset = 16; // u32
constexpr size_t kKernelCountOffset = 20;      // u32
constexpr size_t kFileSizeOffset = 24;         // u64, trailer included
constexpr size_t kManifestOffsetOffset = 32;   // u64
constexpr size_t kManifestSizeOffset = 40;     // u64
constexpr size_t kDataOffsetOffset = 48;       // u64
constexpr size_t kDataSizeOffset = 56;         // u64
static_assert(kDataSizeOffset + 8 == kBundleHeaderSize, "the fixed header is 64 bytes");

/// The smallest manifest entry: an empty spec (u32 length), the smallest
/// encoded KernelInfo (two empty strings, 12 u32 fields and an argument
/// count), the launch record,
/// the code object's offset and size (u64 each) and its SHA-256 (format 3
/// adds the u32 origin after it; the format 2 size bounds both). The loader
/// bounds the kernel count by it before reserving anything.
constexpr size_t kMinManifestEntrySize = 4 + (4 + 4 + 13 * 4) + kLaunchRecordBytes + 8 + 8 + 32;

constexpr uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

} // namespace mxf::bundle_format

#endif // MXFORGE_RUNTIME_BUNDLE_FORMAT_H
