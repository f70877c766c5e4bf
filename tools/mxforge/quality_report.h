//===- quality_report.h - Quantization quality of rotate_quant specs -*- C++ -*-===//
//
// One table row per (spec, M): reference time, error of rotated quantization
// against plain RTN on the same activations, clipping, and the round-trip
// checks of quant_metrics.h. `mxforge demo` prints it today; later the same
// rows carry emulated-kernel columns.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TOOLS_MXFORGE_QUALITY_REPORT_H
#define MXFORGE_TOOLS_MXFORGE_QUALITY_REPORT_H

#include "support/status.h"
#include "spec/kernel_spec.h"
#include "tools/mxforge/text_table.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mxf::cli {

struct QualityRow {
  std::string spec; // canonical
  int m = 0;
  double referenceMs = 0; // wall time of the reference run
  double relRms = 0;      // dequant(q) vs the rotated input
  double rtnRelRms = 0;   // the same spec with RS=0 (plain RTN) vs x
  double clipped = 0;     // fraction of rotated elements beyond their block's range
  double rtnClipped = 0;
  double boundRatio = 0; // arrays::RoundTripCheck::boundRatio, the worse of the two runs
  bool passed = false;   // arrays::RoundTripCheck::ok() of both runs
  bool ok() const { return passed; }
};

/// Runs the rotate_quant `spec` on the first m rows of x ([>= m, K] bf16;
/// a learned rotation is generated from `seed`) and the same spec without
/// rotation, and measures both.
Result<QualityRow> measureQuality(const KernelSpec &spec, int m, const std::vector<uint16_t> &x,
                                  uint64_t seed);

/// The rows as a table: spec, M, ref ms, rel rms, rtn rel rms, clipped,
/// rtn clipped, err/bound, check.
TextTable qualityTable(const std::vector<QualityRow> &rows);

} // namespace mxf::cli

#endif // MXFORGE_TOOLS_MXFORGE_QUALITY_REPORT_H
