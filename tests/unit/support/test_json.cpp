//===- test_json.cpp - The strict JSON reader ------------------------------===//

#include "support/json.h"

#include <gtest/gtest.h>

namespace mxf {
namespace {

TEST(Json, ParsesTheValuesSafetensorsHeadersUse) {
  Result<json::Value> v = json::parse(
      " {\"a\": [1, 18446744073709551615, -2.5e3], \"b\": {\"s\": \"x\\u00e9\\ud83d\\ude00\\n\"},"
      " \"t\": true, \"f\": false, \"n\": null} ");
  ASSERT_TRUE(v.ok()) << v.error();
  const json::Value *a = v.value().find("a");
  ASSERT_TRUE(a && a->isArray());
  ASSERT_EQ(a->items.size(), 3u);
  EXPECT_EQ(a->items[0].unsignedValue(), 1u);
  EXPECT_EQ(a->items[1].unsignedValue(), UINT64_MAX);
  EXPECT_FALSE(a->items[2].unsignedValue()); // negative, fractional
  EXPECT_EQ(v.value().find("b")->find("s")->text, "x\xC3\xA9\xF0\x9F\x98\x80\n");
  EXPECT_TRUE(v.value().find("t")->boolean);
  EXPECT_EQ(v.value().members[4].first, "n");
}

TEST(Json, RejectsWhatRfc8259Rejects) {
  const char *bad[] = {"",          "{",           "{\"a\":1,}",      "[1 2]",
                       "{\"a\":1} x", "{'a':1}",     "{\"a\":01}",      "{\"a\":1.}",
                       "\"\t\"",      "\"\\x\"",     "\"\\ud800\"",     "{\"a\":1,\"a\":2}",
                       "tru",         "[1,]",        "{\"a\" 1}",       "-"};
  for (const char *text : bad)
    EXPECT_FALSE(json::parse(text).ok()) << text;
  std::string deep(200, '[');
  deep += std::string(200, ']');
  Result<json::Value> d = json::parse(deep);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().find("deeper"), std::string::npos);
  EXPECT_FALSE(json::Value().unsignedValue());
  Result<json::Value> big = json::parse("18446744073709551616");
  ASSERT_TRUE(big.ok());
  EXPECT_FALSE(big.value().unsignedValue()); // 2^64 does not fit
}

TEST(Json, QuoteRoundTrips) {
  const std::string s = std::string("a\"b\\c\x01\n\xC3\xA9", 9);
  Result<json::Value> v = json::parse(json::quote(s));
  ASSERT_TRUE(v.ok()) << v.error();
  EXPECT_EQ(v.value().text, s);
}

} // namespace
} // namespace mxf
