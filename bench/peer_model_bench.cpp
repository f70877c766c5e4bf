//===- peer_model_bench.cpp - The MI355X model against published times -----===//
//
// docs/estimate.md's check: AITER's hand-written MXFP4 GEMMs
// (bench/peers/aiter_f4gemm.h), whose MI355X times AITER's tuner published,
// run through the emulator and the model, each estimate beside its published
// time. Nothing here asserts; tests/unit/bench checks that the model still
// gives docs/estimate.md's table.
//
//   peer_model_bench [--rows CSV]   the table with the model's constants
//   peer_model_bench --fit          also searches the fitted constants
//                                   (HBM fraction, round trip, fixed time)
//                                   for the least mean |log error|
//
//===----------------------------------------------------------------------===//

#include "bench/bench_support.h"
#include "bench/mi355x_model.h"
#include "bench/peers/aiter_f4gemm.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

using mxf::bench::F4GemmRow;
using mxf::bench::Mi355xFit;

struct Fitted {
  Mi355xFit fit;
  double meanLogError = 0;
};

using mxf::bench::median;

/// Counts of every row at one round-trip latency.
mxf::Result<std::vector<mxf::bench::CountedF4Gemm>>
countRows(const std::vector<F4GemmRow> &rows, const Mi355xFit &fit) {
  std::vector<mxf::bench::CountedF4Gemm> counted;
  for (const F4GemmRow &row : rows) {
    auto c = mxf::bench::countF4Gemm(row, MXFORGE_PEERS_DIR "/aiter_f4gemm",
                                     mxf::bench::mi355xTimelineCosts(fit));
    if (!c.ok())
      return c.status();
    counted.push_back(std::move(c.value()));
  }
  return counted;
}

/// For each round trip in a grid: every HBM fraction, with the fixed time
/// that makes the median error 0; the least mean |log error| wins.
int fit(const std::vector<F4GemmRow> &rows) {
  Fitted best{{}, 1e9};
  fmt::print("fit: round trip (cycles), HBM fraction, fixed us -> mean |log error|\n");
  for (uint32_t latency = 500; latency <= 4000; latency += 250) {
    Mi355xFit trial{0.8, latency, 0};
    auto counted = countRows(rows, trial);
    if (!counted.ok()) {
      fmt::print(stderr, "error: {}\n", counted.error());
      return 1;
    }
    for (double fraction = 0.60; fraction <= 0.951; fraction += 0.05) {
      trial.achievableBandwidth = fraction;
      trial.fixedUs = 0;
      std::vector<double> busy, residual;
      for (size_t i = 0; i < rows.size(); ++i) {
        const auto &c = counted.value()[i];
        busy.push_back(mxf::bench::estimateMi355x(c.requiredBytes, c.report, trial).estimateUs);
        residual.push_back(rows[i].publishedUs - busy.back());
      }
      trial.fixedUs = std::max(0.0, median(residual));
      double error = 0;
      for (size_t i = 0; i < rows.size(); ++i)
        error += std::fabs(std::log((busy[i] + trial.fixedUs) / rows[i].publishedUs));
      error /= double(rows.size());
      if (error < best.meanLogError)
        best = {trial, error};
    }
    fmt::print("  {:>5} cycles: best so far {} cycles, {:.2f}, {:.2f} us -> {:.4f}\n", latency,
               best.fit.globalLatencyCycles, best.fit.achievableBandwidth, best.fit.fixedUs,
               best.meanLogError);
  }
  fmt::print("fit: {} cycles a round trip, {:.2f} of HBM peak, {:.2f} us fixed; mean |log "
             "error| {:.4f}\n\n",
             best.fit.globalLatencyCycles, best.fit.achievableBandwidth, best.fit.fixedUs,
             best.meanLogError);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  std::string rowsPath = MXFORGE_PEERS_DIR "/aiter_f4gemm_mi355x.csv";
  bool doFit = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--fit"))
      doFit = true;
    else if (!std::strcmp(argv[i], "--rows") && i + 1 < argc)
      rowsPath = argv[++i];
    else {
      fmt::print(stderr, "usage: peer_model_bench [--fit] [--rows CSV]\n");
      return 2;
    }
  }
  auto rows = mxf::bench::readF4GemmRows(rowsPath);
  if (!rows.ok()) {
    fmt::print(stderr, "error: {}\n", rows.error());
    return 1;
  }
  if (doFit)
    if (int rc = fit(rows.value()); rc != 0)
      return rc;

  auto counted = countRows(rows.value(), mxf::bench::mi355xFitted());
  if (!counted.ok()) {
    fmt::print(stderr, "error: {}\n", counted.error());
    return 1;
  }
  fmt::print("AITER f4gemm (hand-written gfx950 MXFP4 GEMM) through the emulator and the model, "
             "beside AITER's published MI355X times ({} rows; 2 workgroups of each grid "
             "emulated, counts scaled)\n{}\n\n",
             rows.value().size(), mxf::bench::mi355xModelLegend());
  fmt::print("| M | N | K | tile | published us | estimate us | error | bound | memory | issue | "
             "latency | floor us |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  std::vector<double> errors;
  for (size_t i = 0; i < rows.value().size(); ++i) {
    const F4GemmRow &row = rows.value()[i];
    const auto &c = counted.value()[i];
    const auto e = mxf::bench::estimateMi355x(c.requiredBytes, c.report);
    const double error = e.estimateUs / row.publishedUs - 1;
    errors.push_back(std::fabs(error));
    fmt::print("| {} | {} | {} | {} | {:.2f} | {:.2f} | {:+.0f}% | {} | {:.2f} | {:.2f} | {:.2f} | "
               "{:.2f} |\n",
               row.m, row.n, row.k, row.tile, row.publishedUs, e.estimateUs, error * 100, e.bound,
               e.memoryUs, e.issueUs, e.latencyUs, e.floorUs);
  }
  const size_t within = size_t(
      std::count_if(errors.begin(), errors.end(), [](double e) { return e <= 0.25; }));
  fmt::print("\nerror |estimate / published - 1|: median {:.0f}%, largest {:.0f}%, {} of {} rows "
             "within 25%\n",
             median(errors) * 100, *std::max_element(errors.begin(), errors.end()) * 100, within,
             errors.size());
  return 0;
}
