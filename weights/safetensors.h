//===- safetensors.h - safetensors files: strict read, write -----*- C++ -*-===//
//
// The format (huggingface/safetensors, docs/weights.md): an 8-byte
// little-endian header length N, N bytes of JSON, then the data. The JSON
// object maps each tensor name to {"dtype", "shape", "data_offsets":
// [begin, end]} (offsets relative to the data's start) and may hold
// "__metadata__", an object of string values.
//
// Files come from users, so reading checks everything and each failure
// names the file (and the tensor): header length beyond the file or above
// kMaxHeaderBytes, malformed JSON, unknown keys or dtypes, a shape whose
// byte size overflows or disagrees with its offsets, offsets outside the
// data, overlapping, or leaving holes (the data must be exactly the
// tensors, as the reference implementation requires). The data is mapped,
// not read: tensors of a 5 GB shard cost no copy.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_WEIGHTS_SAFETENSORS_H
#define MXFORGE_WEIGHTS_SAFETENSORS_H

#include "support/status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace mxf::weights {

/// The header size limit of the reference implementation (100 MB).
constexpr uint64_t kMaxHeaderBytes = 100'000'000;

/// Bytes per element of a safetensors dtype ("BF16" -> 2), 0 if unknown.
size_t safetensorsItemSize(std::string_view dtype);

struct TensorInfo {
  std::string name;
  std::string dtype;
  std::vector<uint64_t> shape;
  uint64_t begin = 0, end = 0; // data_offsets, relative to the data's start
  uint64_t bytes() const { return end - begin; }
  uint64_t elements() const;
};

using Metadata = std::vector<std::pair<std::string, std::string>>;

/// A parsed header over some bytes; validation only, no I/O.
struct SafetensorsHeader {
  std::vector<TensorInfo> tensors; // ordered by data offset
  Metadata metadata;               // in file order
  uint64_t dataStart = 0;          // 8 + header length
};

/// Validates `file` (all of a file's bytes, or at least its header and its
/// size) as safetensors; `name` starts every message.
Result<SafetensorsHeader> parseSafetensorsHeader(const uint8_t *bytes, uint64_t available,
                                                 uint64_t fileSize, const std::string &name);

/// A validated safetensors file, memory-mapped read-only.
class SafetensorsFile {
public:
  static Result<SafetensorsFile> open(const std::string &path);
  /// Over bytes already in memory (tests; a copy is not made: `bytes` must
  /// outlive the object).
  static Result<SafetensorsFile> fromBytes(const uint8_t *bytes, size_t size,
                                           const std::string &name);

  const std::string &path() const { return path_; }
  const std::vector<TensorInfo> &tensors() const { return header_.tensors; }
  const Metadata &metadata() const { return header_.metadata; }
  const TensorInfo *find(std::string_view name) const;
  const uint8_t *data(const TensorInfo &tensor) const {
    return base_ + header_.dataStart + tensor.begin;
  }

private:
  struct Mapping;
  std::string path_;
  std::shared_ptr<Mapping> mapping_;
  const uint8_t *base_ = nullptr;
  SafetensorsHeader header_;
  // find() by hash: callers look up every tensor of 200,000-tensor headers.
  std::unordered_map<std::string, size_t> byName_; // index into header_.tensors
};

/// One tensor of a file to write; its bytes are written by the caller into
/// the plan's buffer region.
struct PlannedTensor {
  std::string name;
  std::string dtype;
  std::vector<uint64_t> shape;
};

/// The layout of a file to write: the encoded header (length prefix and
/// space padding to a multiple of 8 included, as the reference writer
/// pads), each tensor's absolute file offset, and the file size. Tensors
/// are laid out in the given order; names must be unique and dtypes known.
struct SafetensorsPlan {
  std::string header;
  std::vector<uint64_t> offsets;
  std::vector<uint64_t> sizes;
  uint64_t fileSize = 0;
};
Result<SafetensorsPlan> planSafetensors(const std::vector<PlannedTensor> &tensors,
                                        const Metadata &metadata);

} // namespace mxf::weights

#endif // MXFORGE_WEIGHTS_SAFETENSORS_H
