//===- npy.h - NumPy .npy arrays: the tools' inputs and outputs -*- C++ -*-===//
//
// `mxforge ref` and `mxforge run` exchange arrays with Python through .npy
// files, so that a user can feed AITER's or PyTorch's tensors to the reference and compare its
// outputs with numpy alone. Only what the kernels need is supported: C-order
// arrays of four little-endian dtypes. Reading accepts format versions 1.0 and
// 2.0; writing produces 1.0 (2.0 only for a header that does not fit 1.0).
//
// Files come from users, so every malformed one is an error naming the file
// and the problem, never a crash or an allocation the file does not back.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_ARRAYS_NPY_H
#define MXFORGE_ARRAYS_NPY_H

#include "support/status.h"

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace mxf::arrays {

/// The element types we exchange; the order matches NpyArray::values.
enum class NpyDType : uint8_t {
  U8,  // |u1: packed codes, E8M0 scale bytes
  U16, // <u2: bf16 bit patterns
  I32, // <i4: expert and sorted ids
  F32, // <f4
};

/// The descr numpy writes for the dtype: "|u1", "<u2", "<i4", "<f4".
const char *npyDescr(NpyDType dtype);
size_t npyItemSize(NpyDType dtype);

/// A C-order array: shape (empty for a 0-d array) and its elements.
struct NpyArray {
  std::vector<size_t> shape;
  std::variant<std::vector<uint8_t>, std::vector<uint16_t>, std::vector<int32_t>,
               std::vector<float>>
      values;

  template <typename T> static NpyArray of(std::vector<size_t> shape, std::vector<T> values) {
    NpyArray array;
    array.shape = std::move(shape);
    array.values = std::move(values);
    return array;
  }

  NpyDType dtype() const { return static_cast<NpyDType>(values.index()); }
  /// Number of elements held (not derived from the shape).
  size_t size() const;

  /// The elements as T; T must match dtype().
  template <typename T> const std::vector<T> &as() const {
    const std::vector<T> *typed = std::get_if<std::vector<T>>(&values);
    assert(typed && "NpyArray::as<T>() with a T that is not the array's dtype");
    return *typed;
  }
};

/// "[4, 4096]"; "[]" for a 0-d array.
std::string shapeString(const std::vector<size_t> &shape);
/// "<u2 [4, 4096]", as error messages and listings show an array.
std::string describeArray(NpyDType dtype, const std::vector<size_t> &shape);

/// Parses the bytes of a .npy file; `name` (usually the path) starts every
/// error message.
Result<NpyArray> parseNpy(std::string_view bytes, std::string_view name);
/// The largest .npy file readNpy accepts (the reference runner's bound).
constexpr uint64_t kMaxNpyFileBytes = uint64_t(4) << 30;
/// Reads and parses a .npy file: a regular file of at most kMaxNpyFileBytes
/// (a FIFO or a device node is refused, not read until it ends).
Result<NpyArray> readNpy(const std::string &path);

/// A .npy array of any fixed-width little-endian dtype, as raw element bytes
/// (what `mxforge launch` copies into a kernel's buffer: the kernel, not the
/// file, says what the bytes mean).
struct NpyRawArray {
  std::string descr;         // e.g. "<f2", "|i1", "<V2"
  std::vector<size_t> shape;
  size_t itemSize = 0;
  std::vector<uint8_t> bytes; // C order
};
/// Parses any C-order .npy of a little-endian (or one-byte) number or void
/// dtype; big-endian, object and string dtypes are refused by name.
Result<NpyRawArray> parseNpyRaw(std::string_view bytes, std::string_view name);
/// readNpy's file rules, parseNpyRaw's dtypes.
Result<NpyRawArray> readNpyRaw(const std::string &path);

/// The bytes of a .npy file holding `array`; fails when the shape does not
/// match the number of elements.
Result<std::string> encodeNpy(const NpyArray &array);
/// Writes `array` to `path` through a temporary file in the same directory
/// that is renamed over `path` only once completely written, so a failure
/// never leaves a partial file and never touches an existing one.
Status writeNpy(const std::string &path, const NpyArray &array);

} // namespace mxf::arrays

#endif // MXFORGE_ARRAYS_NPY_H
