//===- parsed_spec.h - A spec from its text, in tests ------------*- C++ -*-===//
#ifndef MXFORGE_TESTS_SUPPORT_PARSED_SPEC_H
#define MXFORGE_TESTS_SUPPORT_PARSED_SPEC_H

#include "spec/kernel_spec.h"

#include <string>

#include <gtest/gtest.h>

namespace mxf::testing {

/// `text` parsed; a text that does not parse is a test failure naming it
/// and the parser's message, and gives a default KernelSpec so that the
/// test goes on to report what else is wrong.
inline KernelSpec parsed(const char *text) {
  Result<KernelSpec> spec = parseSpec(text);
  EXPECT_TRUE(spec.ok()) << text << ": " << spec.error();
  return spec.ok() ? spec.value() : KernelSpec{};
}
inline KernelSpec parsed(const std::string &text) { return parsed(text.c_str()); }

} // namespace mxf::testing

#endif // MXFORGE_TESTS_SUPPORT_PARSED_SPEC_H
