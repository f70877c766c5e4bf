//===- npy.cpp - NumPy .npy arrays for the CLI's inputs and outputs -------===//
//
// Framing (magic, version, header length), dtype and shape checks, and the
// atomic write. The header dict itself is npy_header.cpp's job. Format:
// https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
//
//===----------------------------------------------------------------------===//

#include "tools/mxforge/npy.h"

#include "tools/mxforge/npy_header.h"

#include "llvm/Support/Endian.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

namespace mxf::cli {
namespace {

constexpr llvm::StringLiteral kMagic("\x93NUMPY");
constexpr size_t kVersionBytes = 2;
/// Header blocks are padded so that the data starts 64-byte aligned.
constexpr size_t kHeaderAlignment = 64;

std::string quoted(llvm::StringRef text) { return "'" + text.str() + "'"; }

/// dtype of a descr we read: the little-endian spellings, plus any byte order
/// for one-byte integers, where it means nothing.
std::optional<NpyDType> dtypeFromDescr(llvm::StringRef descr) {
  if (descr == "|u1" || descr == "<u1" || descr == ">u1" || descr == "=u1")
    return NpyDType::U8;
  if (descr == "<u2")
    return NpyDType::U16;
  if (descr == "<i4")
    return NpyDType::I32;
  if (descr == "<f4")
    return NpyDType::F32;
  return std::nullopt;
}

/// Product of the dims times the item size, or nullopt on overflow.
std::optional<size_t> byteCount(const std::vector<size_t> &shape, size_t itemSize,
                                size_t *elements = nullptr) {
  size_t count = 1;
  for (size_t dim : shape)
    if (__builtin_mul_overflow(count, dim, &count))
      return std::nullopt;
  if (elements)
    *elements = count;
  size_t bytes;
  if (__builtin_mul_overflow(count, itemSize, &bytes))
    return std::nullopt;
  return bytes;
}

/// Copies little-endian file bytes into typed elements (a no-op swap on the
/// little-endian hosts we run on, but correct anywhere).
template <typename T> std::vector<T> decodeElements(const char *data, size_t count) {
  std::vector<T> out(count);
  for (size_t i = 0; i < count; ++i)
    out[i] = llvm::support::endian::read<T, llvm::endianness::little>(data + i * sizeof(T));
  return out;
}

template <typename T> void appendElements(std::string &out, const std::vector<T> &values) {
  size_t start = out.size();
  out.resize(start + values.size() * sizeof(T));
  for (size_t i = 0; i < values.size(); ++i)
    llvm::support::endian::write<T, llvm::endianness::little>(&out[start + i * sizeof(T)],
                                                              values[i]);
}

Result<NpyArray> fail(llvm::StringRef name, const std::string &problem) {
  return Result<NpyArray>::failure(name.str() + ": " + problem);
}

} // namespace

const char *npyDescr(NpyDType dtype) {
  switch (dtype) {
  case NpyDType::U8:
    return "|u1";
  case NpyDType::U16:
    return "<u2";
  case NpyDType::I32:
    return "<i4";
  case NpyDType::F32:
    return "<f4";
  }
  return "?";
}

size_t npyItemSize(NpyDType dtype) {
  switch (dtype) {
  case NpyDType::U8:
    return 1;
  case NpyDType::U16:
    return 2;
  case NpyDType::I32:
  case NpyDType::F32:
    return 4;
  }
  return 0;
}

size_t NpyArray::size() const {
  return std::visit([](const auto &typed) { return typed.size(); }, values);
}

std::string shapeString(const std::vector<size_t> &shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      out += ", ";
    out += std::to_string(shape[i]);
  }
  return out + "]";
}

std::string describeArray(NpyDType dtype, const std::vector<size_t> &shape) {
  return std::string(npyDescr(dtype)) + " " + shapeString(shape);
}

Result<NpyArray> parseNpy(llvm::StringRef bytes, llvm::StringRef name) {
  const size_t fileSize = bytes.size();
  auto truncated = [&](const char *what) {
    return fail(name,
                "truncated .npy file: " + std::to_string(fileSize) + " bytes end inside " + what);
  };
  if (fileSize == 0)
    return fail(name, "empty file, not a .npy file");
  if (fileSize < kMagic.size() && kMagic.starts_with(bytes))
    return truncated("the magic string");
  if (!bytes.starts_with(kMagic))
    return fail(name, "not a .npy file (bad magic: it must start with \\x93NUMPY)");
  if (fileSize < kMagic.size() + kVersionBytes)
    return truncated("the format version");
  const unsigned major = static_cast<unsigned char>(bytes[6]);
  const unsigned minor = static_cast<unsigned char>(bytes[7]);
  size_t lengthBytes;
  if (major == 1 && minor == 0)
    lengthBytes = 2;
  else if (major == 2 && minor == 0)
    lengthBytes = 4;
  else
    return fail(name, "unsupported .npy format version " + std::to_string(major) + "." +
                          std::to_string(minor) + " (mxforge reads versions 1.0 and 2.0)");
  const size_t lengthAt = kMagic.size() + kVersionBytes;
  if (fileSize < lengthAt + lengthBytes)
    return truncated("the header length");
  const char *lengthField = bytes.data() + lengthAt;
  const size_t headerLength =
      lengthBytes == 2
          ? llvm::support::endian::read<uint16_t, llvm::endianness::little>(lengthField)
          : llvm::support::endian::read<uint32_t, llvm::endianness::little>(lengthField);
  const size_t headerAt = lengthAt + lengthBytes;
  if (fileSize - headerAt < headerLength)
    return fail(name, "truncated .npy file: the header is " + std::to_string(headerLength) +
                          " bytes but only " + std::to_string(fileSize - headerAt) +
                          " follow the preamble");

  Result<NpyHeaderDict> dict = parseNpyHeaderDict(bytes.substr(headerAt, headerLength));
  if (!dict.ok())
    return fail(name, dict.error());
  const NpyHeaderDict &header = dict.value();

  std::optional<NpyDType> dtype = dtypeFromDescr(header.descr);
  if (!dtype) {
    llvm::StringRef descr = header.descr;
    std::string hint = "mxforge reads <u2 (bf16 bits), |u1, <i4 and <f4";
    if (descr.starts_with(">"))
      hint = "big-endian arrays are not supported; write arr.astype(arr.dtype.newbyteorder('<'))";
    return fail(name,
                "unsupported dtype " + quoted(header.descr.substr(0, 32)) + " (" + hint + ")");
  }
  // Order only matters when two or more dimensions exceed 1; numpy itself
  // marks e.g. a transposed [1, n] view as Fortran-ordered.
  size_t nontrivialDims = 0;
  for (size_t dim : header.shape)
    nontrivialDims += dim > 1;
  if (header.fortranOrder && nontrivialDims > 1)
    return fail(name, "fortran_order is True; mxforge reads C-order arrays only (save "
                      "np.ascontiguousarray(arr))");

  size_t elements = 0;
  std::optional<size_t> dataBytes = byteCount(header.shape, npyItemSize(*dtype), &elements);
  if (!dataBytes)
    return fail(name, "shape " + shapeString(header.shape) + " of " + header.descr +
                          " does not fit in memory (its byte count overflows 64 bits)");
  const size_t dataAt = headerAt + headerLength;
  const size_t available = fileSize - dataAt;
  if (available != *dataBytes)
    return fail(name, "data is " + std::string(available < *dataBytes ? "shorter" : "longer") +
                          " than the header says: shape " + shapeString(header.shape) + " of " +
                          header.descr + " needs " + std::to_string(*dataBytes) +
                          " bytes, the file has " + std::to_string(available) +
                          " after the header");

  const char *data = bytes.data() + dataAt;
  NpyArray array;
  array.shape = header.shape;
  switch (*dtype) {
  case NpyDType::U8:
    array.values = std::vector<uint8_t>(data, data + elements);
    break;
  case NpyDType::U16:
    array.values = decodeElements<uint16_t>(data, elements);
    break;
  case NpyDType::I32:
    array.values = decodeElements<int32_t>(data, elements);
    break;
  case NpyDType::F32:
    array.values = decodeElements<float>(data, elements);
    break;
  }
  return array;
}

Result<NpyArray> readNpy(llvm::StringRef path) {
  // No null terminator: the parser never looks past bytes.size(), and asking
  // for one would force a copy instead of a mapping.
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fail(path, "cannot read: " + buffer.getError().message());
  return parseNpy((*buffer)->getBuffer(), path);
}

Result<std::string> encodeNpy(const NpyArray &array) {
  size_t elements = 0;
  if (!byteCount(array.shape, npyItemSize(array.dtype()), &elements) || elements != array.size())
    return Result<std::string>::failure("array of shape " + shapeString(array.shape) + " holds " +
                                        std::to_string(array.size()) +
                                        " elements, not the shape's product");
  NpyHeaderDict dict;
  dict.descr = npyDescr(array.dtype());
  dict.shape = array.shape;
  std::string text = formatNpyHeaderDict(dict);
  // Version 1.0 has a 16-bit header length; only a header with thousands of
  // dimensions needs 2.0.
  const bool version1 = kMagic.size() + kVersionBytes + 2 + text.size() + 1 <= 65535;
  const size_t preamble = kMagic.size() + kVersionBytes + (version1 ? 2 : 4);
  // Pad with spaces so that preamble + header (ending in '\n') is a multiple
  // of 64, as numpy does.
  size_t headerLength = text.size() + 1;
  headerLength +=
      (kHeaderAlignment - (preamble + headerLength) % kHeaderAlignment) % kHeaderAlignment;
  text.resize(headerLength - 1, ' ');
  text += '\n';

  std::string out(kMagic.data(), kMagic.size());
  out += static_cast<char>(version1 ? 1 : 2);
  out += '\0';
  char length[4];
  if (version1)
    llvm::support::endian::write<uint16_t, llvm::endianness::little>(
        length, static_cast<uint16_t>(headerLength));
  else
    llvm::support::endian::write<uint32_t, llvm::endianness::little>(
        length, static_cast<uint32_t>(headerLength));
  out.append(length, version1 ? 2 : 4);
  out += text;
  std::visit([&](const auto &typed) { appendElements(out, typed); }, array.values);
  return out;
}

Status writeNpy(llvm::StringRef path, const NpyArray &array) {
  Result<std::string> bytes = encodeNpy(array);
  if (!bytes.ok())
    return Status::failure(path.str() + ": " + bytes.error());
  // The temporary file lives next to the destination so that the final rename
  // stays on one file system and is atomic.
  llvm::Expected<llvm::sys::fs::TempFile> temp =
      llvm::sys::fs::TempFile::create(path + ".tmp-%%%%%%");
  if (!temp)
    return Status::failure(path.str() + ": cannot create a temporary file next to it: " +
                           llvm::toString(temp.takeError()));
  std::error_code writeError;
  {
    llvm::raw_fd_ostream stream(temp->FD, /*shouldClose=*/false);
    stream << bytes.value();
    stream.flush();
    if (stream.has_error()) {
      writeError = stream.error();
      stream.clear_error(); // a stream destroyed with an error aborts
    }
  }
  if (writeError) {
    llvm::consumeError(temp->discard());
    return Status::failure(path.str() + ": write failed: " + writeError.message());
  }
  if (llvm::Error error = temp->keep(path))
    return Status::failure(path.str() + ": cannot move the written file into place: " +
                           llvm::toString(std::move(error)));
  return Status::success();
}

} // namespace mxf::cli
