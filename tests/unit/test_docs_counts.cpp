//===- test_docs_counts.cpp - Matrix sizes quoted in the docs are the matrices' ===//
//
// The docs quote how many specs each e2e matrix holds; three of them had
// drifted apart (issue 31: README, weights.md and templates.md gave three
// counts for the same matrix). Every quote in README.md and docs/*.md of the
// forms
//   `rotateQuantSpecMatrix()`: 546 specs
//   `tests/e2e/test_quant_weight_matrix.cpp`, 130 specs
//   `Spec/RmsnormRotateQuantMatrix` (tests/e2e, 86 specs
// must equal the size of that matrix (tests/support/spec_matrix.h); a quote
// in another form is not checked, so the docs use these.
//
//===----------------------------------------------------------------------===//

#include "tests/support/spec_matrix.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace mxf {
namespace {

/// Matrix function name -> its size; the test file and gtest suite of each.
struct Matrix {
  const char *function, *testFile, *suite;
  size_t size;
};

std::vector<Matrix> matrices() {
  return {{"rotateQuantSpecMatrix", "test_rotate_quant_matrix.cpp", "RotateQuantMatrix",
           testing::rotateQuantSpecMatrix().size()},
          {"quantWeightSpecMatrix", "test_quant_weight_matrix.cpp", "QuantWeightMatrix",
           testing::quantWeightSpecMatrix().size()},
          {"rotateQuantMoeSpecMatrix", "test_rotate_quant_moe_matrix.cpp",
           "RotateQuantMoeMatrix", testing::rotateQuantMoeSpecMatrix().size()},
          {"rotateQuantGemmSpecMatrix", "test_rotate_quant_gemm_matrix.cpp",
           "RotateQuantGemmMatrix", testing::rotateQuantGemmSpecMatrix().size()},
          {"rmsnormRotateQuantSpecMatrix", "test_rmsnorm_rotate_quant_matrix.cpp",
           "RmsnormRotateQuantMatrix", testing::rmsnormRotateQuantSpecMatrix().size()}};
}

/// Every checked quote in `text` that disagrees with the matrices, one line
/// each; `found` counts the quotes checked.
std::vector<std::string> wrongQuotes(const std::string &where, const std::string &text,
                                     const std::vector<Matrix> &all, size_t &found) {
  std::vector<std::string> wrong;
  for (const Matrix &matrix : all) {
    const std::string forms[] = {
        "`" + std::string(matrix.function) + "\\(\\)`: ([0-9][0-9,]*) specs",
        "`tests/e2e/" + std::string(matrix.testFile) + "`, ([0-9][0-9,]*) specs",
        "`Spec/" + std::string(matrix.suite) + "` \\(tests/e2e, ([0-9][0-9,]*) specs"};
    for (const std::string &form : forms) {
      const std::regex quote(form);
      for (std::sregex_iterator it(text.begin(), text.end(), quote), end; it != end; ++it) {
        ++found;
        std::string digits = (*it)[1].str();
        digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
        if (std::stoul(digits) != matrix.size)
          wrong.push_back(where + ": '" + it->str() + "', but " + matrix.function + "() has " +
                          std::to_string(matrix.size));
      }
    }
  }
  return wrong;
}

TEST(DocsCounts, MatrixSizesQuotedInTheDocsAreTheMatrices) {
  namespace fs = std::filesystem;
  const fs::path root(MXFORGE_SOURCE_DIR);
  std::vector<fs::path> files = {root / "README.md"};
  for (const fs::directory_entry &entry : fs::directory_iterator(root / "docs"))
    if (entry.path().extension() == ".md")
      files.push_back(entry.path());
  const std::vector<Matrix> all = matrices();
  size_t found = 0;
  std::vector<std::string> wrong;
  for (const fs::path &file : files) {
    std::ifstream in(file);
    ASSERT_TRUE(in.good()) << file;
    std::stringstream text;
    text << in.rdbuf();
    for (std::string &line : wrongQuotes(file.filename().string(), text.str(), all, found))
      wrong.push_back(line);
  }
  for (const Matrix &matrix : all)
    std::printf("[ matrix   ] %s(): %zu specs\n", matrix.function, matrix.size);
  std::printf("[ quotes   ] %zu checked\n", found);
  EXPECT_GE(found, 6u) << "the docs quote the matrices in the checked forms";
  EXPECT_TRUE(wrong.empty()) << [&] {
    std::string lines;
    for (const std::string &line : wrong)
      lines += line + "\n";
    return lines;
  }();
}

// The negative control: a quote with another count is caught.
TEST(DocsCounts, AWrongQuoteIsCaught) {
  const std::vector<Matrix> all = matrices();
  size_t found = 0;
  const std::string text = "(`tests/e2e/test_quant_weight_matrix.cpp`, " +
                           std::to_string(all[1].size + 1) + " specs: ...";
  EXPECT_EQ(wrongQuotes("x.md", text, all, found).size(), 1u);
  EXPECT_EQ(found, 1u);
}

} // namespace
} // namespace mxf
