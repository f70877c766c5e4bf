//===- capi_test_support.h - Helpers for the C API tests ---------*- C++ -*-===//
#ifndef MXFORGE_TESTS_UNIT_CAPI_CAPI_TEST_SUPPORT_H
#define MXFORGE_TESTS_UNIT_CAPI_CAPI_TEST_SUPPORT_H

#include <mxforge/mxforge.h>

#include <gtest/gtest.h>

#include <string>

namespace mxf::testing {

/// An emu context without a disk cache (tests must not touch ~/.cache).
inline mxf_context *emuContext(bool strict = false) {
  mxf_context_options options;
  mxf_context_options_init(&options);
  options.device = "emu";
  options.cache_mode = MXF_CACHE_OFF;
  options.strict = strict;
  mxf_context *context = nullptr;
  EXPECT_EQ(mxf_context_create(&options, &context), MXF_SUCCESS) << mxf_last_error();
  return context;
}

struct ContextDeleter {
  void operator()(mxf_context *context) const { mxf_context_destroy(context); }
};
using ContextPtr = std::unique_ptr<mxf_context, ContextDeleter>;

inline std::string lastError() { return mxf_last_error(); }

} // namespace mxf::testing

#endif // MXFORGE_TESTS_UNIT_CAPI_CAPI_TEST_SUPPORT_H
