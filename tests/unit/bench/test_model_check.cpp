//===- test_model_check.cpp - The model still gives docs/estimate.md's table ===//
//
// docs/estimate.md's check table (AITER's f4gemm code objects through the
// emulator and the MI355X model, beside their published times) is what the
// model's fitted constants rest on. Here a sampled set of its rows (seeded,
// printed) is emulated again and every estimate must equal the table's to
// its two decimals, so no constant, cost or counter can change without the
// table; the table's published times must be the CSV's, its summary line
// must follow from its rows, and its constants table must state the fitted
// values. A perturbed round trip shows the comparison can fail.
//
//===----------------------------------------------------------------------===//

#include "bench/mi355x_model.h"
#include "bench/peers/aiter_f4gemm.h"
#include "tests/unit/test_seed.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace mxf::bench {
namespace {

const std::string kRoot = MXFORGE_SOURCE_DIR;
const std::string kPeers = kRoot + "/bench/peers";

struct DocRow {
  F4GemmRow row;
  double estimateUs = 0;
  std::string line;
};

std::string docsText() {
  std::ifstream in(kRoot + "/docs/estimate.md");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The check table's rows: "| M | N | K | tile | published | estimate | ...".
std::vector<DocRow> docRows() {
  std::vector<DocRow> rows;
  std::istringstream lines(docsText());
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("| ", 0) != 0)
      continue;
    std::vector<std::string> cells;
    std::istringstream fields(line.substr(1));
    std::string cell;
    while (std::getline(fields, cell, '|'))
      cells.push_back(cell);
    if (cells.size() < 6 || cells[3].find('x') == std::string::npos)
      continue; // another table
    try {
      DocRow r;
      r.row.m = std::stoi(cells[0]);
      r.row.n = std::stoi(cells[1]);
      r.row.k = std::stoi(cells[2]);
      r.row.tile = cells[3].substr(1, cells[3].size() - 2);
      r.row.publishedUs = std::stod(cells[4]);
      r.estimateUs = std::stod(cells[5]);
      r.line = line;
      rows.push_back(r);
    } catch (const std::exception &) {
    }
  }
  return rows;
}

TEST(ModelCheck, DocsTableHasEveryPublishedRow) {
  auto published = readF4GemmRows(kPeers + "/aiter_f4gemm_mi355x.csv");
  ASSERT_TRUE(published.ok()) << published.error();
  const std::vector<DocRow> rows = docRows();
  ASSERT_EQ(rows.size(), published.value().size()) << "docs/estimate.md's check table";
  for (size_t i = 0; i < rows.size(); ++i) {
    const F4GemmRow &p = published.value()[i];
    EXPECT_EQ(rows[i].row.m, p.m) << rows[i].line;
    EXPECT_EQ(rows[i].row.n, p.n) << rows[i].line;
    EXPECT_EQ(rows[i].row.k, p.k) << rows[i].line;
    EXPECT_EQ(rows[i].row.tile, p.tile) << rows[i].line;
    EXPECT_NEAR(rows[i].row.publishedUs, p.publishedUs, 0.005) << rows[i].line;
  }
}

TEST(ModelCheck, SampledRowsGiveTheDocsEstimates) {
  std::vector<DocRow> rows = docRows();
  ASSERT_FALSE(rows.empty());
  std::mt19937_64 rng(mxf::testing::testSeed("ModelCheck.SampledRowsGiveTheDocsEstimates"));
  std::shuffle(rows.begin(), rows.end(), rng);
  rows.resize(std::min<size_t>(rows.size(), 6));
  for (const DocRow &r : rows) {
    std::printf("[ sampled  ] %s\n", r.line.c_str());
    auto counted = countF4Gemm(r.row, kPeers + "/aiter_f4gemm", mi355xTimelineCosts());
    ASSERT_TRUE(counted.ok()) << counted.error();
    const Mi355xEstimate e = estimateMi355x(counted.value().requiredBytes, counted.value().report);
    EXPECT_NEAR(e.estimateUs, r.estimateUs, 0.0051)
        << r.line << "\nthe model now says " << e.estimateUs
        << " us: rerun bench/peer_model_bench and update docs/estimate.md with the constants";
  }
}

TEST(ModelCheck, APerturbedRoundTripIsCaught) {
  const std::vector<DocRow> rows = docRows();
  ASSERT_FALSE(rows.empty());
  const DocRow &r = rows.front();
  Mi355xFit perturbed = mi355xFitted();
  perturbed.globalLatencyCycles += 100;
  auto counted = countF4Gemm(r.row, kPeers + "/aiter_f4gemm", mi355xTimelineCosts(perturbed));
  ASSERT_TRUE(counted.ok()) << counted.error();
  const Mi355xEstimate e =
      estimateMi355x(counted.value().requiredBytes, counted.value().report, perturbed);
  EXPECT_GT(std::fabs(e.estimateUs - r.estimateUs), 0.05) << r.line;
}

TEST(ModelCheck, SummaryAndConstantsFollowTheTable) {
  const std::vector<DocRow> rows = docRows();
  ASSERT_FALSE(rows.empty());
  std::vector<double> errors;
  for (const DocRow &r : rows)
    errors.push_back(std::fabs(r.estimateUs / r.row.publishedUs - 1));
  std::sort(errors.begin(), errors.end());
  const double median = errors.size() % 2 ? errors[errors.size() / 2]
                                          : (errors[errors.size() / 2 - 1] + errors[errors.size() / 2]) / 2;
  const size_t within = size_t(std::count_if(errors.begin(), errors.end(),
                                             [](double e) { return e <= 0.25; }));
  const std::string docs = docsText();
  // Rounded from the table's two-decimal rows; the bench rounds from the
  // unrounded estimates, which may differ by a per cent at a boundary.
  const std::string summary = fmt::format("median {:.0f}%, largest {:.0f}%, {} of {} rows within 25%",
                                          median * 100, errors.back() * 100, within, errors.size());
  EXPECT_NE(docs.find(summary), std::string::npos) << "docs/estimate.md should say: " << summary;
  const Mi355xFit fit = mi355xFitted();
  for (const std::string &stated :
       {fmt::format("**{:.2f}**", fit.achievableBandwidth),
        fmt::format("**{} cycles**", fit.globalLatencyCycles), fmt::format("**{:.2f} us**", fit.fixedUs)})
    EXPECT_NE(docs.find(stated), std::string::npos)
        << "docs/estimate.md's constants table should state " << stated;
}

} // namespace
} // namespace mxf::bench
