//===- quality_report.cpp - Quantization quality of rotate_quant specs ----===//

#include "tools/mxforge/quality_report.h"

#include "numerics/a6w6.h"
#include "numerics/layouts.h"
#include "arrays/quant_metrics.h"
#include "arrays/reference_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

namespace mxf::cli {
namespace {

/// The q and s outputs of a rotate_quant run as plain-layout QuantizedRows.
QuantizedRows plainRows(const KernelSpec &spec, size_t rows, const arrays::ReferenceRun &run) {
  QuantizedRows out;
  out.rows = rows;
  out.k = static_cast<size_t>(spec.K);
  out.format = spec.fmt;
  out.codes = run.outputs.at("q").as<uint8_t>();
  const size_t cols = out.k / kMxBlock;
  out.scaleShape = {rows, cols};
  const std::vector<uint8_t> &scales = run.outputs.at("s").as<uint8_t>();
  if (spec.layout == ScaleLayout::A6W6Tiles) {
    // AITER's A6W6 tiles hold codes and scales; the reference wrote them.
    A6W6Operand plain =
        unpackA6W6({out.codes, scales}, rows, out.k).value();
    out.codes = std::move(plain.codes);
    out.scales = std::move(plain.scales);
    return out;
  }
  out.scales = spec.layout == ScaleLayout::Plain
                   ? scales
                   : unshuffleScalesA4W4(scales.data(), rows, cols, kA4W4RowPadding);
  return out;
}

struct Measured {
  double ms, relRms, clipped;
  arrays::RoundTripCheck check;
};

Result<Measured> measureOne(const KernelSpec &spec, int m, const arrays::NpyArrays &given,
                            uint64_t seed) {
  const auto start = std::chrono::steady_clock::now();
  Result<arrays::ReferenceRun> run = arrays::runReference(spec, m, given, seed);
  const auto stop = std::chrono::steady_clock::now();
  if (!run.ok())
    return run.status();
  const size_t rows = static_cast<size_t>(m);
  const QuantizedRows quantized = plainRows(spec, rows, run.value());
  const RotateQuantProblem problem = rotateQuantProblem(spec, seed);
  const uint16_t *x = run.value().inputs.at("x").as<uint16_t>().data();
  auto r = run.value().inputs.find("r");
  const uint16_t *rotation =
      r == run.value().inputs.end() ? nullptr : r->second.as<uint16_t>().data();
  const std::vector<float> rotated = arrays::rotatedRows(problem, x, rows, rotation);
  Measured out;
  out.ms = std::chrono::duration<double, std::milli>(stop - start).count();
  out.relRms = arrays::relativeRmsError(dequantizeRows(quantized), rotated);
  out.clipped = arrays::clippedFraction(rotated, quantized);
  out.check = arrays::checkRoundTrip(problem, x, rows, rotation, quantized);
  return out;
}

} // namespace

Result<QualityRow> measureQuality(const KernelSpec &spec, int m, const std::vector<uint16_t> &x,
                                  uint64_t seed) {
  if (spec.op != KernelOp::RotateQuant)
    return Result<QualityRow>::failure(
        std::string("quality rows are for rotate_quant specs, not ") + kernelOpName(spec.op));
  const size_t k = static_cast<size_t>(spec.K);
  if (m < 1 || x.size() < static_cast<size_t>(m) * k)
    return Result<QualityRow>::failure("activations hold fewer than M=" + std::to_string(m) +
                                       " rows of K=" + std::to_string(k));
  arrays::NpyArrays given;
  given.emplace("x", arrays::NpyArray::of<uint16_t>({static_cast<size_t>(m), k},
                                            std::vector<uint16_t>(x.begin(), x.begin() + m * k)));
  KernelSpec rtn = spec;
  rtn.RS = 0;
  rtn.rot = RotationKind::None;
  Result<Measured> rotated = measureOne(spec, m, given, seed);
  if (!rotated.ok())
    return rotated.status();
  Result<Measured> plain = measureOne(rtn, m, given, seed);
  if (!plain.ok())
    return plain.status();
  QualityRow row;
  row.spec = printSpec(spec);
  row.m = m;
  row.referenceMs = rotated.value().ms;
  row.relRms = rotated.value().relRms;
  row.rtnRelRms = plain.value().relRms;
  row.clipped = rotated.value().clipped;
  row.rtnClipped = plain.value().clipped;
  // Both quantizations must pass: the RTN run is a reference run too.
  row.boundRatio = std::max(rotated.value().check.boundRatio, plain.value().check.boundRatio);
  row.passed = rotated.value().check.ok() && plain.value().check.ok();
  return row;
}

TextTable qualityTable(const std::vector<QualityRow> &rows) {
  using Align = TextTable::Align;
  TextTable table;
  table.addColumn("spec", Align::Left);
  table.addColumn("M");
  table.addColumn("ref ms");
  table.addColumn("rel rms");
  table.addColumn("rtn rel rms");
  table.addColumn("clipped");
  table.addColumn("rtn clipped");
  table.addColumn("err/bound");
  table.addColumn("check", Align::Left);
  for (const QualityRow &row : rows) {
    // The short spec keeps the table within 120 columns; row.spec stays canonical.
    Result<KernelSpec> spec = parseSpec(row.spec);
    table.addRow({spec.ok() ? printSpecShort(spec.value()) : row.spec, fmt::format("{}", row.m), fmt::format("{:.3f}", row.referenceMs),
                  fmt::format("{:.4f}", row.relRms), fmt::format("{:.4f}", row.rtnRelRms),
                  fmt::format("{:.3f}%", 100 * row.clipped),
                  fmt::format("{:.3f}%", 100 * row.rtnClipped),
                  fmt::format("{:.3f}", row.boundRatio), row.ok() ? "ok" : "FAIL"});
  }
  return table;
}

} // namespace mxf::cli
