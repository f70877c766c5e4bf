//===- test_capi_prepared_weights.cpp - Weights, their specs and layouts ---===//
//
// C API 1.8 through libmxforge_runtime.so (an AOT deployment checks and
// shuffles weights with no LLVM loaded): mxf_spec_check_weights,
// mxf_spec_weight_keys and mxf_relayout_weights. python/tests/
// test_prepared_weights.py compares relayout's bytes with the emulated
// quant_weight kernel's in every layout; this checks the C surface: round
// trips, that the layouts differ, and every refusal names its argument.
//
//===----------------------------------------------------------------------===//

#include <mxforge/mxforge.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace {

std::string lastError() { return mxf_last_error(); }

const char *const kPlain = "quant_weight:K=512,N=64,RS=64,rot=hadamard";
const char *const kShuffled =
    "quant_weight:K=512,N=64,RS=64,rot=hadamard,layout=a4w4_shuffle,wlayout=preshuffle_16x16";

TEST(CApiPreparedWeights, RelayoutRoundTripsAndMovesBytes) {
  const uint32_t seed = std::random_device{}();
  std::printf("[seed] %u\n", seed);
  std::mt19937 random(seed);
  // Plain: codes [64, 256], scales [64, 16]; shuffled scales [256, 16].
  std::vector<uint8_t> q(64 * 256), s(64 * 16);
  for (uint8_t &b : q)
    b = uint8_t(random());
  for (uint8_t &b : s)
    b = uint8_t(100 + random() % 40);
  std::vector<uint8_t> qShuffled(q.size()), sShuffled(256 * 16);
  ASSERT_EQ(mxf_relayout_weights(kPlain, kShuffled, q.data(), q.size(), s.data(), s.size(),
                                 qShuffled.data(), qShuffled.size(), sShuffled.data(),
                                 sShuffled.size()),
            MXF_SUCCESS)
      << lastError();
  EXPECT_NE(qShuffled, q); // the preshuffle moved the codes
  std::vector<uint8_t> qBack(q.size()), sBack(s.size());
  ASSERT_EQ(mxf_relayout_weights(kShuffled, kPlain, qShuffled.data(), qShuffled.size(),
                                 sShuffled.data(), sShuffled.size(), qBack.data(), qBack.size(),
                                 sBack.data(), sBack.size()),
            MXF_SUCCESS)
      << lastError();
  EXPECT_EQ(qBack, q);
  EXPECT_EQ(sBack, s);

  // Refusals, each naming the problem; nothing is written on a refusal.
  std::vector<uint8_t> untouched(qShuffled.size(), 0xEE);
  EXPECT_EQ(mxf_relayout_weights(kPlain, kShuffled, q.data(), q.size() - 1, s.data(), s.size(),
                                 untouched.data(), untouched.size(), sShuffled.data(),
                                 sShuffled.size()),
            MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("the codes are 16383 bytes"), std::string::npos) << lastError();
  EXPECT_EQ(untouched, std::vector<uint8_t>(untouched.size(), 0xEE));
  EXPECT_EQ(mxf_relayout_weights(kPlain, kShuffled, q.data(), q.size(), s.data(), s.size(),
                                 untouched.data(), untouched.size(), sShuffled.data(), 64 * 16),
            MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("q_out and s_out must be 16384 and 4096 bytes"), std::string::npos)
      << lastError();
  EXPECT_EQ(mxf_relayout_weights(kPlain, "quant_weight:K=512,N=64,RS=32,rot=hadamard", q.data(),
                                 q.size(), s.data(), s.size(), qBack.data(), qBack.size(),
                                 sBack.data(), sBack.size()),
            MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("may differ from the weights' spec in layout and wlayout only"),
            std::string::npos)
      << lastError();
  EXPECT_EQ(mxf_relayout_weights("rotate_quant:K=512,RS=64", kPlain, q.data(), q.size(),
                                 s.data(), s.size(), qBack.data(), qBack.size(), sBack.data(),
                                 sBack.size()),
            MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("described by a quant_weight spec"), std::string::npos)
      << lastError();
  EXPECT_EQ(mxf_relayout_weights(kPlain, kShuffled, nullptr, 0, s.data(), s.size(), qBack.data(),
                                 qBack.size(), sBack.data(), sBack.size()),
            MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("q is NULL"), std::string::npos) << lastError();
}

TEST(CApiPreparedWeights, CheckNamesTheKeyAndTheWeightKeysAreListed) {
  EXPECT_EQ(mxf_spec_check_weights("rotate_quant_gemm:K=512,N=64,RS=64,rot=hadamard", kPlain, 1),
            MXF_SUCCESS)
      << lastError();
  EXPECT_EQ(mxf_spec_check_weights("rotate_quant_gemm:K=512,N=64,RS=64,rot=hadamard", kShuffled,
                                   1),
            MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("layout=a4w4_shuffle, rotate_quant_gemm reads layout=plain"),
            std::string::npos)
      << lastError();
  EXPECT_EQ(mxf_spec_check_weights("rotate_quant_gemm:K=512,N=64,RS=64,rot=hadamard,select=flag",
                                   "quant_weight:K=512,N=64,RS=0", 0),
            MXF_SUCCESS)
      << lastError();
  EXPECT_EQ(mxf_spec_check_weights("rotate_quant_gemm:K=512,N=64,RS=64", nullptr, 1),
            MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("weights_spec is NULL"), std::string::npos) << lastError();
  const char *const *names = nullptr;
  size_t count = 0;
  ASSERT_EQ(mxf_spec_weight_keys(&names, &count), MXF_SUCCESS);
  std::vector<std::string> keys(names, names + count);
  EXPECT_EQ(keys, (std::vector<std::string>{"K", "N", "fmt", "RS", "rot", "rconv", "layout",
                                            "wlayout"}));
}

} // namespace
