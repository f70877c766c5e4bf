//===- span.h - A view of a constant array, for declarations ----*- C++ -*-===//
//
// The ops' declarations (op_abi.h) point at constant arrays in their
// folders; readers iterate them without copying (C++17 has no std::span).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_ABI_SPAN_H
#define MXFORGE_ABI_SPAN_H

#include <cstddef>

namespace mxf {

template <typename T> struct Span {
  const T *data = nullptr;
  size_t count = 0;
  const T *begin() const { return data; }
  const T *end() const { return data + count; }
  size_t size() const { return count; }
  bool empty() const { return count == 0; }
};
template <typename T, size_t Count> constexpr Span<T> spanOf(const T (&items)[Count]) {
  return {items, Count};
}

} // namespace mxf

#endif // MXFORGE_ABI_SPAN_H
