//===- launch_record.cpp - How to launch a code object, recorded with it --===//

#include "abi/launch_record.h"

#include "support/printable.h"

#include <string>

namespace mxf {
namespace {

uint32_t ceilDiv(uint64_t a, uint64_t b) { return uint32_t((a + b - 1) / b); }

/// gfx950's LDS per workgroup (MI355X: 160 KiB) and the hardware's
/// workgroup limit.
constexpr uint32_t kMaxLdsBytes = 160 * 1024;
constexpr uint32_t kMaxWorkgroupSize = 1024;

std::string str(uint64_t v) { return std::to_string(v); }

} // namespace

std::array<uint32_t, 3> LaunchRecord::gridFor(uint32_t m) const {
  const uint64_t padding = rowPadding ? rowPadding : 1;
  const uint64_t rows = (uint64_t(m) + padding - 1) / padding * padding;
  return {gridX, ceilDiv(rows, rowsPerWorkgroup ? rowsPerWorkgroup : 1), 1};
}

Status LaunchRecord::checkRows(int64_t m) const {
  if (m < 1 || m > int64_t(maxRows))
    return Status::failure("m=" + std::to_string(m) + " is outside 1.." + str(maxRows) +
                           " (the rows this code object serves)");
  return Status::success();
}

Status LaunchRecord::validate() const {
  auto bad = [](const std::string &what) {
    return Status::failure("launch record: " + what);
  };
  if (abiVersion != uint32_t(kKernelAbiVersion))
    return bad("kernel ABI " + str(abiVersion) + ", this runtime launches ABI " +
               str(kKernelAbiVersion));
  if (workgroupSize == 0 || workgroupSize % 64 != 0 || workgroupSize > kMaxWorkgroupSize)
    return bad("workgroup size " + str(workgroupSize) + " is not a multiple of 64 in 64.." +
               str(kMaxWorkgroupSize));
  if (gridX == 0)
    return bad("grid x is 0");
  if (rowsPerWorkgroup == 0)
    return bad("rows per workgroup is 0");
  if (rowPadding == 0 || (rowPadding != 1 && rowPadding % rowsPerWorkgroup != 0))
    return bad("row padding " + str(rowPadding) + " is neither 1 nor a multiple of the " +
               str(rowsPerWorkgroup) + " rows per workgroup");
  if (maxRows == 0)
    return bad("it serves no rows (maxRows is 0)");
  if (ldsBytes > kMaxLdsBytes)
    return bad("LDS " + str(ldsBytes) + " bytes is over gfx950's " + str(kMaxLdsBytes));
  return Status::success();
}

Status LaunchRecord::checkAgainst(const KernelInfo &kernel) const {
  // The name comes from a code object that may be damaged (a bundle, a
  // cache entry): escaped, so the message stays one printable line.
  const std::string name = printable(kernel.name);
  if (Status valid = validate(); !valid.ok())
    return Status::failure(name + ": " + valid.message());
  if (ldsBytes != kernel.ldsBytes)
    return Status::failure(name + ": the launch record says " + str(ldsBytes) +
                           " LDS bytes, the code object's metadata " + str(kernel.ldsBytes));
  if (kernel.maxWorkgroupSize != 0 && workgroupSize > kernel.maxWorkgroupSize)
    return Status::failure(name + ": the launch record's workgroup of " +
                           str(workgroupSize) + " is over the code object's " +
                           ".max_flat_workgroup_size " + str(kernel.maxWorkgroupSize));
  return Status::success();
}

std::string LaunchRecord::describe() const {
  std::string rows = rowPadding > 1 ? "pad" + str(rowPadding) + "(m)" : std::string("m");
  return "workgroup " + str(workgroupSize) + ", grid (" + str(gridX) + ", ceil(" + rows + "/" +
         str(rowsPerWorkgroup) + "), 1), LDS " + str(ldsBytes) + " B, 1 <= m <= " +
         str(maxRows) + ", ABI " + str(abiVersion);
}

bool LaunchRecord::operator==(const LaunchRecord &o) const {
  return abiVersion == o.abiVersion && workgroupSize == o.workgroupSize && gridX == o.gridX &&
         rowsPerWorkgroup == o.rowsPerWorkgroup && rowPadding == o.rowPadding &&
         ldsBytes == o.ldsBytes && maxRows == o.maxRows;
}

void encodeLaunchRecord(ByteWriter &out, const LaunchRecord &record) {
  out.u32(record.abiVersion);
  out.u32(record.workgroupSize);
  out.u32(record.gridX);
  out.u32(record.rowsPerWorkgroup);
  out.u32(record.rowPadding);
  out.u32(record.ldsBytes);
  out.u32(record.maxRows);
}

LaunchRecord decodeLaunchRecord(ByteReader &in) {
  LaunchRecord record;
  record.abiVersion = in.u32("launch record ABI version");
  record.workgroupSize = in.u32("launch record workgroup size");
  record.gridX = in.u32("launch record grid x");
  record.rowsPerWorkgroup = in.u32("launch record rows per workgroup");
  record.rowPadding = in.u32("launch record row padding");
  record.ldsBytes = in.u32("launch record LDS bytes");
  record.maxRows = in.u32("launch record row limit");
  if (in.ok())
    if (Status valid = record.validate(); !valid.ok())
      in.fail(valid.message());
  return record;
}

} // namespace mxf
