//===- launch_record.h - How to launch a code object, recorded with it -*- C++ -*-===//
//
// The compiler decides a kernel's launch geometry once, from its template's
// tiling, and records it next to the code object: in CodeObject, cache
// entries and bundle manifests. The runtime launches from this record and
// never calls tiling code; an engine that launches a kernel itself (its own
// stream, a graph, another runtime) reads the same record (docs/abi.md).
//
// The grid is a function of the launch's row count m:
//   grid = (gridX, ceil(roundUp(m, rowPadding) / rowsPerWorkgroup), 1)
// rowPadding is the row count the outputs are padded to (256 where the
// a4w4_shuffle scale layout fills its padding rows, else 1).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_ABI_LAUNCH_RECORD_H
#define MXFORGE_ABI_LAUNCH_RECORD_H

#include "abi/kernel_info.h"
#include "abi/versions.h"
#include "support/status.h"
#include "support/byte_io.h"

#include <array>
#include <cstdint>
#include <string>

namespace mxf {

struct LaunchRecord {
  uint32_t abiVersion = kKernelAbiVersion;
  uint32_t workgroupSize = 0;    // work-items along x (y = z = 1)
  uint32_t gridX = 0;            // workgroups along x, whatever m is
  uint32_t rowsPerWorkgroup = 0; // rows one workgroup covers along y
  uint32_t rowPadding = 1;       // m is rounded up to this before dividing
  uint32_t ldsBytes = 0;         // static LDS, as the code object's metadata says
  uint32_t maxRows = 0;          // the largest m this code object serves

  /// Workgroups for a launch of m rows (1 <= m <= maxRows; not checked here).
  std::array<uint32_t, 3> gridFor(uint32_t m) const;
  /// `1 <= m <= maxRows`, or an error naming m and the limit.
  Status checkRows(int64_t m) const;
  /// Internal consistency: the ABI version this runtime launches, no zero
  /// extent, a workgroup of whole waves within 1024 lanes, row padding a
  /// multiple of the rows per workgroup (or 1), LDS within 160 KiB.
  Status validate() const;
  /// Agreement with the code object's own metadata: the same LDS bytes and a
  /// workgroup within its `.max_flat_workgroup_size`.
  Status checkAgainst(const KernelInfo &kernel) const;
  /// "workgroup 256, grid (16, ceil(m/16), 1), LDS 0 B, 1 <= m <= 256, ABI 2".
  std::string describe() const;

  bool operator==(const LaunchRecord &other) const;
  bool operator!=(const LaunchRecord &other) const { return !(*this == other); }
};

/// The record's binary form in cache entries, bundle manifests and code
/// objects: seven little-endian u32 in declaration order.
constexpr size_t kLaunchRecordBytes = 7 * 4;

/// The ELF section of a code object that holds its record, so that a bare
/// .hsaco can be launched and inspected without its spec. Not allocated:
/// the loader never copies it to the GPU (docs/abi.md).
constexpr const char *kLaunchRecordSection = ".mxforge.launch";
void encodeLaunchRecord(ByteWriter &out, const LaunchRecord &record);
/// Reads one record; on damaged input `in` records the error. A record that
/// decodes but fails validate() is reported through `in` as well.
LaunchRecord decodeLaunchRecord(ByteReader &in);

} // namespace mxf

#endif // MXFORGE_ABI_LAUNCH_RECORD_H
