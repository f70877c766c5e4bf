//===- byte_io.cpp - Little-endian binary writer and checked reader -------===//

#include "support/byte_io.h"

#include <cstring>

namespace mxf {

void ByteWriter::unsignedLE(uint64_t value, int width) {
  for (int i = 0; i < width; ++i)
    bytes_.push_back(uint8_t(value >> (8 * i)));
}

void ByteWriter::raw(const void *data, size_t size) {
  const uint8_t *begin = static_cast<const uint8_t *>(data);
  bytes_.insert(bytes_.end(), begin, begin + size);
}

void ByteWriter::string(std::string_view text) {
  u32(uint32_t(text.size()));
  raw(text.data(), text.size());
}

void ByteWriter::patchU32(size_t offset, uint32_t value) {
  for (int i = 0; i < 4; ++i)
    bytes_.at(offset + i) = uint8_t(value >> (8 * i));
}

void ByteWriter::patchU64(size_t offset, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    bytes_.at(offset + i) = uint8_t(value >> (8 * i));
}

void ByteReader::fail(std::string message) {
  if (error_.empty())
    error_ = std::move(message);
}

bool ByteReader::take(const char *field, size_t size) {
  if (!error_.empty())
    return false;
  if (size > remaining()) {
    fail(std::string(field) + ": needs " + std::to_string(size) + " bytes at offset " +
         std::to_string(offset_) + ", only " + std::to_string(remaining()) + " remain");
    return false;
  }
  offset_ += size;
  return true;
}

uint64_t ByteReader::unsignedLE(const char *field, int width) {
  if (!take(field, width))
    return 0;
  uint64_t value = 0;
  const uint8_t *p = data_ + offset_ - width;
  for (int i = 0; i < width; ++i)
    value |= uint64_t(p[i]) << (8 * i);
  return value;
}

void ByteReader::raw(const char *field, void *out, size_t size) {
  if (take(field, size))
    std::memcpy(out, data_ + offset_ - size, size);
  else if (size > 0)
    std::memset(out, 0, size);
}

const uint8_t *ByteReader::view(const char *field, size_t size) {
  return take(field, size) ? data_ + offset_ - size : nullptr;
}

std::string ByteReader::string(const char *field, size_t maxLength) {
  uint32_t length = u32(field);
  if (!ok())
    return {};
  if (length > maxLength) {
    fail(std::string(field) + ": length " + std::to_string(length) + " exceeds the limit of " +
         std::to_string(maxLength));
    return {};
  }
  const uint8_t *bytes = view(field, length);
  return bytes ? std::string(reinterpret_cast<const char *>(bytes), length) : std::string();
}

} // namespace mxf
