//===- test_seed.h - Fresh, printed, reproducible random seeds ---*- C++ -*-===//
//
// Every randomized test draws a fresh seed per run and prints it; setting
// MXFORGE_TEST_SEED replays a failing run.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TESTS_UNIT_TEST_SEED_H
#define MXFORGE_TESTS_UNIT_TEST_SEED_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>

namespace mxf::testing {

inline uint64_t testSeed(const char *testName) {
  uint64_t seed;
  if (const char *fixed = std::getenv("MXFORGE_TEST_SEED"))
    seed = std::strtoull(fixed, nullptr, 0);
  else
    seed = (static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  std::printf("[ seed     ] %s: MXFORGE_TEST_SEED=%llu\n", testName,
              static_cast<unsigned long long>(seed));
  return seed;
}

} // namespace mxf::testing

#endif // MXFORGE_TESTS_UNIT_TEST_SEED_H
