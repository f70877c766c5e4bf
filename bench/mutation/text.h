//===- text.h - Small string tests the mutation bench shares ----*- C++ -*-===//
#ifndef MXFORGE_BENCH_MUTATION_TEXT_H
#define MXFORGE_BENCH_MUTATION_TEXT_H

#include <string>
#include <string_view>

namespace mxf::mutation {

inline bool startsWith(const std::string &text, std::string_view prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}
inline bool endsWith(const std::string &text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace mxf::mutation

#endif // MXFORGE_BENCH_MUTATION_TEXT_H
