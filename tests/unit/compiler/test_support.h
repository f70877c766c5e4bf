//===- test_support.h - Small helpers of the compiler tests -------*- C++ -*-===//
//
// GoogleTest only (no gmock: Debian's libgtest-dev does not bring it).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TESTS_UNIT_COMPILER_TEST_SUPPORT_H
#define MXFORGE_TESTS_UNIT_COMPILER_TEST_SUPPORT_H

#include <gtest/gtest.h>

#include <string>

/// EXPECT that `text` contains `part`, printing both when not.
#define EXPECT_CONTAINS(text, part)                                                            \
  EXPECT_NE(std::string(text).find(part), std::string::npos)                                   \
      << "expected to find: " << (part) << "\nin:\n"                                           \
      << (text)

#endif // MXFORGE_TESTS_UNIT_COMPILER_TEST_SUPPORT_H
