//===- safetensors.cpp - safetensors files: strict read, write ------------===//

#include "weights/safetensors.h"

#include "support/file_io.h"
#include "support/json.h"
#include "support/printable.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/mman.h>

namespace mxf::weights {
namespace {

const std::pair<const char *, size_t> kItemSizes[] = {
    {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E4M3", 1}, {"F8_E5M2", 1}, {"F8_E8M0", 1},
    {"I16", 2},  {"U16", 2}, {"F16", 2}, {"BF16", 2},    {"I32", 4},     {"U32", 4},
    {"F32", 4},  {"I64", 8}, {"U64", 8}, {"F64", 8},
};

uint64_t readLe64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}

/// a * b, or false on overflow.
bool mulChecked(uint64_t a, uint64_t b, uint64_t &out) {
  if (a != 0 && b > UINT64_MAX / a)
    return false;
  out = a * b;
  return true;
}

Status parseTensor(const std::string &file, const std::string &name, const json::Value &entry,
                   uint64_t dataSize, TensorInfo &out) {
  const std::string where = file + ": tensor '" + printable(name) + "': ";
  if (!entry.isObject())
    return Status::failure(where + "header entry is " + json::kindName(entry.kind) +
                           ", not an object");
  for (const auto &[key, value] : entry.members)
    if (key != "dtype" && key != "shape" && key != "data_offsets")
      return Status::failure(where + "unknown key \"" + key + "\"");
  const json::Value *dtype = entry.find("dtype"), *shape = entry.find("shape"),
                    *offsets = entry.find("data_offsets");
  if (!dtype || !shape || !offsets)
    return Status::failure(where + "needs \"dtype\", \"shape\" and \"data_offsets\"");
  if (!dtype->isString() || safetensorsItemSize(dtype->text) == 0)
    return Status::failure(where + "unknown dtype " +
                           (dtype->isString() ? json::quote(dtype->text) : "(not a string)"));
  if (!shape->isArray())
    return Status::failure(where + "\"shape\" is not an array");
  out.name = name;
  out.dtype = dtype->text;
  uint64_t bytes = safetensorsItemSize(dtype->text);
  for (const json::Value &dim : shape->items) {
    std::optional<uint64_t> d = dim.unsignedValue();
    if (!d)
      return Status::failure(where + "shape entries must be non-negative integers");
    out.shape.push_back(*d);
    if (!mulChecked(bytes, *d, bytes))
      return Status::failure(where + "shape's byte size overflows 64 bits");
  }
  if (!offsets->isArray() || offsets->items.size() != 2 || !offsets->items[0].unsignedValue() ||
      !offsets->items[1].unsignedValue())
    return Status::failure(where + "\"data_offsets\" must be [begin, end], two integers");
  out.begin = *offsets->items[0].unsignedValue();
  out.end = *offsets->items[1].unsignedValue();
  if (out.begin > out.end || out.end > dataSize)
    return Status::failure(where + "data_offsets [" + std::to_string(out.begin) + ", " +
                           std::to_string(out.end) + "] lie outside the " +
                           std::to_string(dataSize) + " data bytes");
  if (out.end - out.begin != bytes)
    return Status::failure(where + "data_offsets span " + std::to_string(out.end - out.begin) +
                           " bytes but dtype " + out.dtype + " and its shape need " +
                           std::to_string(bytes));
  return Status::success();
}

} // namespace

size_t safetensorsItemSize(std::string_view dtype) {
  for (const auto &[name, size] : kItemSizes)
    if (dtype == name)
      return size;
  return 0;
}

uint64_t TensorInfo::elements() const {
  uint64_t n = 1;
  for (uint64_t d : shape)
    n *= d; // validated: the byte size did not overflow
  return n;
}

Result<SafetensorsHeader> parseSafetensorsHeader(const uint8_t *bytes, uint64_t available,
                                                 uint64_t fileSize, const std::string &file) {
  if (fileSize < 8 || available < 8)
    return Result<SafetensorsHeader>::failure(
        file + ": not a safetensors file: " + std::to_string(fileSize) +
        " bytes, shorter than the 8-byte header length");
  const uint64_t headerBytes = readLe64(bytes);
  if (headerBytes > kMaxHeaderBytes)
    return Result<SafetensorsHeader>::failure(
        file + ": header length " + std::to_string(headerBytes) + " exceeds the limit of " +
        std::to_string(kMaxHeaderBytes) + " bytes (not a safetensors file?)");
  if (headerBytes > fileSize - 8 || headerBytes > available - 8)
    return Result<SafetensorsHeader>::failure(
        file + ": truncated: the header length says " + std::to_string(headerBytes) +
        " bytes but the file has " + std::to_string(fileSize - 8) + " after it");
  std::string_view text(reinterpret_cast<const char *>(bytes + 8), size_t(headerBytes));
  if (text.empty() || text.front() != '{')
    return Result<SafetensorsHeader>::failure(file + ": the header does not start with '{'");
  Result<json::Value> root = json::parse(text);
  if (!root.ok())
    return Result<SafetensorsHeader>::failure(file + ": malformed JSON header: " + root.error());
  if (!root.value().isObject())
    return Result<SafetensorsHeader>::failure(file + ": the header is not a JSON object");

  SafetensorsHeader header;
  header.dataStart = 8 + headerBytes;
  const uint64_t dataSize = fileSize - header.dataStart;
  for (const auto &[name, value] : root.value().members) {
    // The reader takes bytes as they are; a name that is not UTF-8 would be
    // copied into output headers that UTF-8 readers (Python's) refuse.
    if (!isValidUtf8(name))
      return Result<SafetensorsHeader>::failure(file + ": tensor '" + printable(name) +
                                                "': the name is not UTF-8");
    if (name == "__metadata__") {
      if (!value.isObject())
        return Result<SafetensorsHeader>::failure(file + ": __metadata__ is not an object");
      for (const auto &[key, text] : value.members) {
        if (!text.isString())
          return Result<SafetensorsHeader>::failure(file + ": __metadata__ value of \"" +
                                                    printable(key) + "\" is not a string");
        if (!isValidUtf8(key) || !isValidUtf8(text.text))
          return Result<SafetensorsHeader>::failure(file + ": __metadata__ entry \"" +
                                                    printable(key) + "\" is not UTF-8");
        header.metadata.emplace_back(key, text.text);
      }
      continue;
    }
    TensorInfo tensor;
    if (Status s = parseTensor(file, name, value, dataSize, tensor); !s.ok())
      return s;
    header.tensors.push_back(std::move(tensor));
  }
  std::stable_sort(header.tensors.begin(), header.tensors.end(),
                   [](const TensorInfo &a, const TensorInfo &b) {
                     return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
                   });
  uint64_t expected = 0;
  for (const TensorInfo &t : header.tensors) {
    if (t.begin < expected)
      return Result<SafetensorsHeader>::failure(file + ": tensor '" + printable(t.name) +
                                                "' overlaps the tensor before it (data_offsets "
                                                "begin " + std::to_string(t.begin) + " < " +
                                                std::to_string(expected) + ")");
    if (t.begin > expected)
      return Result<SafetensorsHeader>::failure(
          file + ": data bytes " + std::to_string(expected) + ".." + std::to_string(t.begin) +
          " before tensor '" + printable(t.name) + "' belong to no tensor");
    expected = t.end;
  }
  if (expected != dataSize)
    return Result<SafetensorsHeader>::failure(
        file + ": the tensors cover " + std::to_string(expected) + " data bytes but the file has " +
        std::to_string(dataSize) + (expected > dataSize ? " (truncated)" : " (trailing bytes)"));
  return header;
}

struct SafetensorsFile::Mapping {
  void *address = MAP_FAILED;
  size_t size = 0;
  ~Mapping() {
    if (address != MAP_FAILED)
      munmap(address, size);
  }
};

Result<SafetensorsFile> SafetensorsFile::open(const std::string &path) {
  // A FIFO or device named *.safetensors is refused, never waited on.
  Result<ReadOnlyFile> opened = ReadOnlyFile::open(path);
  if (!opened.ok())
    return opened.status();
  auto mapping = std::make_shared<Mapping>();
  mapping->size = size_t(opened.value().size());
  if (mapping->size > 0) // the mapping outlives the descriptor
    mapping->address =
        mmap(nullptr, mapping->size, PROT_READ, MAP_PRIVATE, opened.value().fd(), 0);
  const int mapError = errno;
  if (mapping->size > 0 && mapping->address == MAP_FAILED)
    return Result<SafetensorsFile>::failure(path + ": cannot map: " + std::strerror(mapError));
  static const uint8_t kEmpty[8] = {};
  const uint8_t *base =
      mapping->size ? static_cast<const uint8_t *>(mapping->address) : kEmpty;
  Result<SafetensorsFile> file = fromBytes(base, mapping->size, path);
  if (file.ok())
    file.value().mapping_ = std::move(mapping);
  return file;
}

Result<SafetensorsFile> SafetensorsFile::fromBytes(const uint8_t *bytes, size_t size,
                                                   const std::string &name) {
  Result<SafetensorsHeader> header = parseSafetensorsHeader(bytes, size, size, name);
  if (!header.ok())
    return header.status();
  SafetensorsFile file;
  file.path_ = name;
  file.base_ = bytes;
  file.header_ = std::move(header.value());
  // Names are unique (the JSON reader refuses duplicate keys).
  file.byName_.reserve(file.header_.tensors.size());
  for (size_t i = 0; i < file.header_.tensors.size(); ++i)
    file.byName_.emplace(file.header_.tensors[i].name, i);
  return file;
}

const TensorInfo *SafetensorsFile::find(std::string_view name) const {
  auto found = byName_.find(std::string(name));
  return found == byName_.end() ? nullptr : &header_.tensors[found->second];
}

Result<SafetensorsPlan> planSafetensors(const std::vector<PlannedTensor> &tensors,
                                        const Metadata &metadata) {
  SafetensorsPlan plan;
  std::string json = "{";
  if (!metadata.empty()) {
    json += "\"__metadata__\":{";
    for (size_t i = 0; i < metadata.size(); ++i)
      json += (i ? "," : "") + json::quote(metadata[i].first) + ":" +
              json::quote(metadata[i].second);
    json += "}";
  }
  uint64_t offset = 0;
  std::vector<std::string_view> names;
  for (const PlannedTensor &t : tensors) {
    const size_t item = safetensorsItemSize(t.dtype);
    if (item == 0)
      return Result<SafetensorsPlan>::failure("tensor '" + t.name + "': unknown dtype " + t.dtype);
    if (t.name == "__metadata__")
      return Result<SafetensorsPlan>::failure("a tensor may not be named __metadata__");
    names.push_back(t.name);
    uint64_t bytes = item;
    std::string shape;
    for (uint64_t d : t.shape) {
      if (!mulChecked(bytes, d, bytes))
        return Result<SafetensorsPlan>::failure("tensor '" + t.name + "': size overflows");
      shape += (shape.empty() ? "" : ",") + std::to_string(d);
    }
    if (offset + bytes < offset)
      return Result<SafetensorsPlan>::failure("the tensors' total size overflows");
    json += (json.size() > 1 ? "," : "") + json::quote(t.name) + ":{\"dtype\":\"" + t.dtype +
            "\",\"shape\":[" + shape + "],\"data_offsets\":[" + std::to_string(offset) + "," +
            std::to_string(offset + bytes) + "]}";
    plan.offsets.push_back(offset);
    plan.sizes.push_back(bytes);
    offset += bytes;
  }
  std::sort(names.begin(), names.end());
  if (std::adjacent_find(names.begin(), names.end()) != names.end())
    return Result<SafetensorsPlan>::failure("two tensors have one name: " +
                                            std::string(*std::adjacent_find(names.begin(), names.end())));
  json += "}";
  json.append((8 - json.size() % 8) % 8, ' '); // data starts 8-byte aligned
  uint64_t length = json.size();
  plan.header.resize(8);
  for (int i = 0; i < 8; ++i)
    plan.header[size_t(i)] = char((length >> (8 * i)) & 0xFF);
  plan.header += json;
  for (uint64_t &o : plan.offsets)
    o += plan.header.size();
  plan.fileSize = plan.header.size() + offset;
  return plan;
}

} // namespace mxf::weights
