//===- npy.cpp - NumPy .npy arrays: framing, checks, atomic write ---------===//
//
// Framing (magic, version, header length), dtype and shape checks, and the
// atomic write. The header dict itself is npy_header.cpp's job. Format:
// https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
//
//===----------------------------------------------------------------------===//

#include "arrays/npy.h"

#include "arrays/npy_header.h"
#include "support/file_io.h"
#include "support/printable.h"

#include <cstring>
#include <optional>

namespace mxf::arrays {
namespace {

constexpr std::string_view kMagic("\x93NUMPY");
constexpr size_t kVersionBytes = 2;
/// Header blocks are padded so that the data starts 64-byte aligned.
constexpr size_t kHeaderAlignment = 64;

/// A descr from the file, quoted and with every byte that is not printable
/// ASCII escaped (a NUL or a terminal escape in a header is not printed).
std::string quoted(std::string_view text) { return "'" + printable(text) + "'"; }

/// dtype of a descr we read: the little-endian spellings, plus any byte order
/// for one-byte integers, where it means nothing.
std::optional<NpyDType> dtypeFromDescr(std::string_view descr) {
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

/// One little-endian value of T from `data`, assembled byte by byte so that
/// it is right on any host (compilers turn it into one load on x86).
template <typename T> T readLittle(const char *data) {
  using Bits = std::conditional_t<sizeof(T) == 2, uint16_t,
                                  std::conditional_t<sizeof(T) == 4, uint32_t, uint8_t>>;
  Bits bits = 0;
  for (size_t byte = 0; byte < sizeof(T); ++byte)
    bits |= Bits(Bits(static_cast<unsigned char>(data[byte])) << (8 * byte));
  T value;
  std::memcpy(&value, &bits, sizeof(T));
  return value;
}

template <typename T> void writeLittle(char *data, T value) {
  using Bits = std::conditional_t<sizeof(T) == 2, uint16_t,
                                  std::conditional_t<sizeof(T) == 4, uint32_t, uint8_t>>;
  Bits bits;
  std::memcpy(&bits, &value, sizeof(T));
  for (size_t byte = 0; byte < sizeof(T); ++byte)
    data[byte] = static_cast<char>((bits >> (8 * byte)) & 0xFF);
}

/// Copies little-endian file bytes into typed elements.
template <typename T> std::vector<T> decodeElements(const char *data, size_t count) {
  std::vector<T> out(count);
  for (size_t i = 0; i < count; ++i)
    out[i] = readLittle<T>(data + i * sizeof(T));
  return out;
}

template <typename T> void appendElements(std::string &out, const std::vector<T> &values) {
  size_t start = out.size();
  out.resize(start + values.size() * sizeof(T));
  for (size_t i = 0; i < values.size(); ++i)
    writeLittle<T>(&out[start + i * sizeof(T)], values[i]);
}

Result<NpyArray> fail(std::string_view name, const std::string &problem) {
  return Result<NpyArray>::failure(std::string(name) + ": " + problem);
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

namespace {

/// The preamble and header dict of a .npy file, and where its data starts.
struct NpyFrame {
  NpyHeaderDict header;
  size_t dataAt = 0;
};

Result<NpyFrame> frameNpy(std::string_view bytes, std::string_view name) {
  using R = Result<NpyFrame>;
  auto fail = [&](const std::string &problem) {
    return R::failure(std::string(name) + ": " + problem);
  };
  const size_t fileSize = bytes.size();
  auto truncated = [&](const char *what) {
    return fail("truncated .npy file: " + std::to_string(fileSize) + " bytes end inside " + what);
  };
  if (fileSize == 0)
    return fail("empty file, not a .npy file");
  if (fileSize < kMagic.size() && kMagic.substr(0, fileSize) == bytes)
    return truncated("the magic string");
  if (bytes.substr(0, kMagic.size()) != kMagic)
    return fail("not a .npy file (bad magic: it must start with \\x93NUMPY)");
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
    return fail("unsupported .npy format version " + std::to_string(major) + "." +
                          std::to_string(minor) + " (mxforge reads versions 1.0 and 2.0)");
  const size_t lengthAt = kMagic.size() + kVersionBytes;
  if (fileSize < lengthAt + lengthBytes)
    return truncated("the header length");
  const char *lengthField = bytes.data() + lengthAt;
  const size_t headerLength =
      lengthBytes == 2 ? readLittle<uint16_t>(lengthField) : readLittle<uint32_t>(lengthField);
  const size_t headerAt = lengthAt + lengthBytes;
  if (fileSize - headerAt < headerLength)
    return fail("truncated .npy file: the header is " + std::to_string(headerLength) +
                          " bytes but only " + std::to_string(fileSize - headerAt) +
                          " follow the preamble");

  Result<NpyHeaderDict> dict = parseNpyHeaderDict(bytes.substr(headerAt, headerLength));
  if (!dict.ok())
    return fail(dict.error());
  // Order only matters when two or more dimensions exceed 1; numpy itself
  // marks e.g. a transposed [1, n] view as Fortran-ordered.
  size_t nontrivialDims = 0;
  for (size_t dim : dict.value().shape)
    nontrivialDims += dim > 1;
  if (dict.value().fortranOrder && nontrivialDims > 1)
    return fail("fortran_order is True; mxforge reads C-order arrays only (save "
                "np.ascontiguousarray(arr))");
  return NpyFrame{dict.value(), headerAt + headerLength};
}

/// The data after `frame` must be exactly `dataBytes` long.
Status checkDataLength(std::string_view bytes, std::string_view name, const NpyFrame &frame,
                       std::optional<size_t> dataBytes) {
  const NpyHeaderDict &header = frame.header;
  if (!dataBytes)
    return Status::failure(std::string(name) + ": shape " + shapeString(header.shape) + " of " +
                           printable(header.descr) +
                           " does not fit in memory (its byte count overflows 64 bits)");
  const size_t available = bytes.size() - frame.dataAt;
  if (available != *dataBytes)
    return Status::failure(std::string(name) + ": data is " +
                           std::string(available < *dataBytes ? "shorter" : "longer") +
                           " than the header says: shape " + shapeString(header.shape) + " of " +
                           printable(header.descr) + " needs " + std::to_string(*dataBytes) +
                           " bytes, the file has " + std::to_string(available) +
                           " after the header");
  return Status::success();
}


/// Bytes per element of a fixed-width numpy descr that needs no byte
/// swapping here: '<' (or '=', or '|' for one byte) and a kind of b, i, u, f,
/// c or V followed by its size; '|b1' and '?' are bools.
std::optional<size_t> rawItemSize(std::string_view descr) {
  if (descr == "?" || descr == "|b1")
    return 1;
  if (descr.size() < 3 || (descr[0] != '<' && descr[0] != '|' && descr[0] != '='))
    return std::nullopt;
  if (std::string_view("biufcV").find(descr[1]) == std::string_view::npos)
    return std::nullopt;
  size_t size = 0;
  for (char c : descr.substr(2)) {
    if (c < '0' || c > '9' || size > 1024)
      return std::nullopt;
    size = size * 10 + size_t(c - '0');
  }
  if (size == 0 || (descr[0] == '|' && size != 1 && descr[1] != 'V'))
    return std::nullopt;
  return size;
}

} // namespace

Result<NpyRawArray> parseNpyRaw(std::string_view bytes, std::string_view name) {
  using R = Result<NpyRawArray>;
  Result<NpyFrame> frame = frameNpy(bytes, name);
  if (!frame.ok())
    return frame.status();
  const NpyHeaderDict &header = frame.value().header;
  std::optional<size_t> itemSize = rawItemSize(header.descr);
  if (!itemSize)
    return R::failure(std::string(name) + ": unsupported dtype " + quoted(header.descr.substr(0, 32)) +
                      " (a little-endian fixed-width number or void type is needed" +
                      (!header.descr.empty() && header.descr.front() == '>'
                           ? "; write arr.astype(arr.dtype.newbyteorder('<'))"
                           : "") +
                      ")");
  if (Status s = checkDataLength(bytes, name, frame.value(),
                                 byteCount(header.shape, *itemSize, nullptr));
      !s.ok())
    return s;
  NpyRawArray array;
  array.descr = header.descr;
  array.shape = header.shape;
  array.itemSize = *itemSize;
  const char *data = bytes.data() + frame.value().dataAt;
  array.bytes.assign(data, data + (bytes.size() - frame.value().dataAt));
  return array;
}

Result<NpyRawArray> readNpyRaw(const std::string &path) {
  Result<std::vector<uint8_t>> bytes = readFileBytes(path, kMaxNpyFileBytes);
  if (!bytes.ok())
    return bytes.status();
  const std::vector<uint8_t> &data = bytes.value();
  return parseNpyRaw(std::string_view(reinterpret_cast<const char *>(data.data()), data.size()),
                     path);
}

Result<NpyArray> parseNpy(std::string_view bytes, std::string_view name) {
  Result<NpyFrame> frame = frameNpy(bytes, name);
  if (!frame.ok())
    return frame.status();
  const NpyHeaderDict &header = frame.value().header;

  std::optional<NpyDType> dtype = dtypeFromDescr(header.descr);
  if (!dtype) {
    std::string hint = "mxforge reads <u2 (bf16 bits), |u1, <i4 and <f4";
    if (!header.descr.empty() && header.descr.front() == '>')
      hint = "big-endian arrays are not supported; write arr.astype(arr.dtype.newbyteorder('<'))";
    return fail(name,
                "unsupported dtype " + quoted(header.descr.substr(0, 32)) + " (" + hint + ")");
  }
  size_t elements = 0;
  if (Status s = checkDataLength(bytes, name, frame.value(),
                                 byteCount(header.shape, npyItemSize(*dtype), &elements));
      !s.ok())
    return s;
  const char *data = bytes.data() + frame.value().dataAt;
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

Result<NpyArray> readNpy(const std::string &path) {
  // Regular files only, and at most what the reference runner can hold: a
  // device node or a FIFO named as an input is refused, never read forever.
  Result<std::vector<uint8_t>> bytes = readFileBytes(path, kMaxNpyFileBytes);
  if (!bytes.ok())
    return Result<NpyArray>::failure(bytes.error());
  const std::vector<uint8_t> &data = bytes.value();
  return parseNpy(std::string_view(reinterpret_cast<const char *>(data.data()), data.size()),
                  path);
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
    writeLittle<uint16_t>(length, static_cast<uint16_t>(headerLength));
  else
    writeLittle<uint32_t>(length, static_cast<uint32_t>(headerLength));
  out.append(length, version1 ? 2 : 4);
  out += text;
  std::visit([&](const auto &typed) { appendElements(out, typed); }, array.values);
  return out;
}

Status writeNpy(const std::string &path, const NpyArray &array) {
  Result<std::string> bytes = encodeNpy(array);
  if (!bytes.ok())
    return Status::failure(path + ": " + bytes.error());
  // Atomic: a reader (or a failed write) sees the old file or the new one.
  return writeFileAtomically(path, bytes.value().data(), bytes.value().size());
}

} // namespace mxf::arrays
