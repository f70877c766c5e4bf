//===- byte_io.h - Little-endian binary writer and bounds-checked reader -*- C++ -*-===//
//
// The cache entry and bundle formats are little-endian byte streams read
// from files anyone could have damaged. ByteReader therefore checks every
// read against the end of its buffer and, on the first failure, records
// which field did not fit; later reads return zeros and do nothing, so a
// parser can read a whole record and check `ok()` once.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_SUPPORT_BYTE_IO_H
#define MXFORGE_SUPPORT_BYTE_IO_H

#include "support/status.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mxf {

class ByteWriter {
public:
  void u8(uint8_t value) { bytes_.push_back(value); }
  void u16(uint16_t value) { unsignedLE(value, 2); }
  void u32(uint32_t value) { unsignedLE(value, 4); }
  void u64(uint64_t value) { unsignedLE(value, 8); }
  void raw(const void *data, size_t size);
  void raw(const std::vector<uint8_t> &data) { raw(data.data(), data.size()); }
  /// u32 length, then the bytes.
  void string(std::string_view text);
  /// Overwrites 4 bytes written earlier at `offset` (for sizes known later).
  void patchU32(size_t offset, uint32_t value);
  void patchU64(size_t offset, uint64_t value);

  size_t size() const { return bytes_.size(); }
  const std::vector<uint8_t> &bytes() const { return bytes_; }
  std::vector<uint8_t> take() { return std::move(bytes_); }

private:
  void unsignedLE(uint64_t value, int width);
  std::vector<uint8_t> bytes_;
};

class ByteReader {
public:
  ByteReader(const uint8_t *data, size_t size) : data_(data), size_(size) {}
  explicit ByteReader(const std::vector<uint8_t> &bytes) : ByteReader(bytes.data(), bytes.size()) {}

  /// Each read names its field; the first read that does not fit records
  /// "<field>: needs N bytes at offset O, only R remain".
  uint8_t u8(const char *field) { return uint8_t(unsignedLE(field, 1)); }
  uint16_t u16(const char *field) { return uint16_t(unsignedLE(field, 2)); }
  uint32_t u32(const char *field) { return uint32_t(unsignedLE(field, 4)); }
  uint64_t u64(const char *field) { return unsignedLE(field, 8); }
  /// Copies `size` bytes into `out` (zeros after a failure).
  void raw(const char *field, void *out, size_t size);
  /// A view of the next `size` bytes (null after a failure).
  const uint8_t *view(const char *field, size_t size);
  /// A u32-length-prefixed string of at most `maxLength` bytes.
  std::string string(const char *field, size_t maxLength);
  void skip(const char *field, size_t size) { (void)view(field, size); }

  /// Records a failure of the caller's own (a bad value rather than a short
  /// read); the first failure wins.
  void fail(std::string message);

  bool ok() const { return error_.empty(); }
  const std::string &error() const { return error_; }
  Status status() const { return ok() ? Status::success() : Status::failure(error_); }
  size_t offset() const { return offset_; }
  size_t remaining() const { return size_ - offset_; }

private:
  uint64_t unsignedLE(const char *field, int width);
  bool take(const char *field, size_t size);

  const uint8_t *data_;
  size_t size_;
  size_t offset_ = 0;
  std::string error_;
};

} // namespace mxf

#endif // MXFORGE_SUPPORT_BYTE_IO_H
