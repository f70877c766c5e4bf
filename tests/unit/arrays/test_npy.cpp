//===- test_npy.cpp - .npy reading and writing ----------------------------===//
//
// Round trips of every dtype and of odd shapes, the exact bytes numpy
// writes, and a pile of damaged files, each of which must give an error that
// names the file and the problem (never a crash, never an allocation the file
// does not back). Writes must be atomic: a failure leaves an existing file as
// it was and no temporary file behind.
//
//===----------------------------------------------------------------------===//

#include "arrays/npy.h"
#include "arrays/npy_header.h"

#include "tests/unit/test_seed.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <csignal>
#include <cstring>
#include <random>
#include <sys/resource.h>

namespace mxf::arrays {
namespace {

using Shape = std::vector<size_t>;

/// A fresh directory, removed with everything in it at the end of the test.
class TempDir {
public:
  TempDir() {
    std::error_code ec = llvm::sys::fs::createUniqueDirectory("mxforge-npy-test", path_);
    EXPECT_FALSE(ec) << ec.message();
  }
  ~TempDir() { llvm::sys::fs::remove_directories(path_); }
  std::string file(llvm::StringRef name) const {
    llvm::SmallString<128> p(path_);
    llvm::sys::path::append(p, name);
    return std::string(p);
  }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(path_, ec), end; it != end && !ec; it.increment(ec))
      names.push_back(std::string(llvm::sys::path::filename(it->path())));
    std::sort(names.begin(), names.end());
    return names;
  }

private:
  llvm::SmallString<128> path_;
};

std::string slurp(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  return buffer ? (*buffer)->getBuffer().str() : std::string("<unreadable>");
}

void spit(const std::string &path, llvm::StringRef bytes) {
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec);
  ASSERT_FALSE(ec) << ec.message();
  out << bytes;
}

/// A .npy file with the given version and header dict text, padded as numpy
/// pads it, followed by `data`.
std::string makeNpy(llvm::StringRef dict, llvm::StringRef data, int major = 1, int minor = 0) {
  const size_t lengthBytes = major == 1 ? 2 : 4;
  std::string header = dict.str();
  size_t total = 8 + lengthBytes + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += static_cast<char>(minor);
  uint32_t length = static_cast<uint32_t>(header.size());
  for (size_t i = 0; i < lengthBytes; ++i)
    out += static_cast<char>((length >> (8 * i)) & 0xFF);
  return out + header + data.str();
}

std::string dictFor(llvm::StringRef descr, llvm::StringRef shape,
                    llvm::StringRef fortran = "False") {
  return "{'descr': '" + descr.str() + "', 'fortran_order': " + fortran.str() +
         ", 'shape': " + shape.str() + ", }";
}

/// parseNpy must fail, name the file, and mention `fragment`.
void expectParseError(llvm::StringRef bytes, llvm::StringRef fragment) {
  Result<NpyArray> result = parseNpy(bytes, "bad.npy");
  ASSERT_FALSE(result.ok()) << "accepted a file that should mention: " << fragment.str();
  EXPECT_EQ(result.error().rfind("bad.npy: ", 0), 0u) << result.error();
  EXPECT_NE(result.error().find(fragment.str()), std::string::npos)
      << "message: " << result.error() << "\nexpected to contain: " << fragment.str();
}

template <typename T> std::vector<T> randomValues(size_t count, std::mt19937_64 &rng) {
  std::vector<T> values(count);
  for (T &value : values) {
    uint64_t bits = rng();
    std::memcpy(&value, &bits, sizeof(T)); // any bit pattern, NaNs included
  }
  return values;
}

bool sameBits(const NpyArray &a, const NpyArray &b) {
  if (a.dtype() != b.dtype() || a.shape != b.shape || a.size() != b.size())
    return false;
  return std::visit(
      [&](const auto &typed) {
        using Vector = std::decay_t<decltype(typed)>;
        const Vector &other = std::get<Vector>(b.values);
        return typed.empty() ||
               std::memcmp(typed.data(), other.data(), typed.size() * sizeof(typed[0])) == 0;
      },
      a.values);
}

const Shape kShapes[] = {
    {}, {0}, {1}, {7}, {2, 3}, {3, 0}, {0, 5, 2}, {2, 1, 3, 4}, {1, 1, 1, 1, 9}};

NpyArray randomArray(NpyDType dtype, const Shape &shape, std::mt19937_64 &rng) {
  size_t count = 1;
  for (size_t dim : shape)
    count *= dim;
  switch (dtype) {
  case NpyDType::U8:
    return NpyArray::of(shape, randomValues<uint8_t>(count, rng));
  case NpyDType::U16:
    return NpyArray::of(shape, randomValues<uint16_t>(count, rng));
  case NpyDType::I32:
    return NpyArray::of(shape, randomValues<int32_t>(count, rng));
  case NpyDType::F32:
    return NpyArray::of(shape, randomValues<float>(count, rng));
  }
  return {};
}

const NpyDType kDTypes[] = {NpyDType::U8, NpyDType::U16, NpyDType::I32, NpyDType::F32};

TEST(Npy, RoundTripsEveryDtypeAndShapeInMemory) {
  std::mt19937_64 rng(testing::testSeed("Npy.RoundTripsEveryDtypeAndShapeInMemory"));
  for (NpyDType dtype : kDTypes)
    for (const Shape &shape : kShapes) {
      NpyArray array = randomArray(dtype, shape, rng);
      Result<std::string> bytes = encodeNpy(array);
      ASSERT_TRUE(bytes.ok()) << bytes.error();
      Result<NpyArray> back = parseNpy(bytes.value(), "mem.npy");
      ASSERT_TRUE(back.ok()) << back.error();
      EXPECT_TRUE(sameBits(array, back.value())) << npyDescr(dtype) << " " << shapeString(shape);
    }
}

TEST(Npy, RoundTripsThroughFiles) {
  std::mt19937_64 rng(testing::testSeed("Npy.RoundTripsThroughFiles"));
  TempDir dir;
  for (NpyDType dtype : kDTypes)
    for (const Shape &shape : kShapes) {
      NpyArray array = randomArray(dtype, shape, rng);
      const std::string path = dir.file("a.npy");
      Status written = writeNpy(path, array);
      ASSERT_TRUE(written.ok()) << written.message();
      Result<NpyArray> back = readNpy(path);
      ASSERT_TRUE(back.ok()) << back.error();
      EXPECT_TRUE(sameBits(array, back.value()));
    }
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"a.npy"}); // no temporaries left
}

TEST(Npy, WritesTheBytesNumpyWrites) {
  // np.save of np.array([1, 2, 3], dtype='<u2'): version 1.0, header padded
  // with spaces to a multiple of 64 bytes including the preamble.
  NpyArray array = NpyArray::of<uint16_t>({3}, {1, 2, 0x3F80});
  Result<std::string> bytes = encodeNpy(array);
  ASSERT_TRUE(bytes.ok());
  std::string expected("\x93NUMPY\x01\x00v\x00", 10);
  expected += "{'descr': '<u2', 'fortran_order': False, 'shape': (3,), }";
  expected.append(127 - expected.size(), ' ');
  expected += '\n';
  expected += std::string("\x01\x00\x02\x00\x80\x3F", 6);
  EXPECT_EQ(bytes.value(), expected);

  NpyArray scalar = NpyArray::of<float>({}, {1.0f});
  ASSERT_TRUE(encodeNpy(scalar).ok());
  EXPECT_NE(encodeNpy(scalar).value().find("'shape': (), }"), std::string::npos);
  NpyArray matrix = NpyArray::of<uint8_t>({2, 1}, {7, 9});
  EXPECT_NE(encodeNpy(matrix).value().find("'descr': '|u1', 'fortran_order': False, "
                                           "'shape': (2, 1), }"),
            std::string::npos);
  EXPECT_EQ(encodeNpy(matrix).value().size() % 64, 2u); // 128 header bytes + 2 data bytes
}

TEST(Npy, ReadsTheHeaderVariantsNumpyAccepts) {
  const std::string data(6, '\x01');
  struct Case {
    std::string dict;
    Shape shape;
  } cases[] = {
      {"{\"descr\": \"<u2\", \"fortran_order\": False, \"shape\": (3,)}", {3}},
      {"{'shape': (1, 3), 'fortran_order': False, 'descr': '<u2'}", {1, 3}},
      {"{ 'descr' : '<u2' ,'fortran_order':False,'shape':( 3 , ) , }", {3}},
      {"{'descr': '<u2', 'fortran_order': False, 'shape': (3L,), }", {3}}, // Python 2 longs
      {"{'descr': '<u2', 'fortran_order': True, 'shape': (3,), }", {3}},   // 1-d: no order
      {"{'descr': '<u2', 'fortran_order': True, 'shape': (1, 3, 1), }", {1, 3, 1}},
  };
  for (const Case &c : cases) {
    Result<NpyArray> array = parseNpy(makeNpy(c.dict, data), "v.npy");
    ASSERT_TRUE(array.ok()) << c.dict << ": " << array.error();
    EXPECT_EQ(array.value().shape, c.shape) << c.dict;
    EXPECT_EQ(array.value().as<uint16_t>(), std::vector<uint16_t>(3, 0x0101));
  }
  // Version 2.0: a 4-byte header length.
  Result<NpyArray> v2 =
      parseNpy(makeNpy(dictFor("<i4", "(1,)"), std::string("\xFF\xFF\xFF\xFF", 4), 2, 0), "v2.npy");
  ASSERT_TRUE(v2.ok()) << v2.error();
  EXPECT_EQ(v2.value().as<int32_t>(), std::vector<int32_t>{-1});
  // One-byte integers: byte order is meaningless, numpy may write any.
  for (const char *descr : {"|u1", "<u1", ">u1", "=u1"})
    EXPECT_TRUE(parseNpy(makeNpy(dictFor(descr, "(2,)"), "ab"), "u1.npy").ok()) << descr;
}

TEST(Npy, RejectsEveryTruncationOfAValidFile) {
  NpyArray array = NpyArray::of<uint16_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  const std::string bytes = encodeNpy(array).value();
  for (size_t length = 0; length < bytes.size(); ++length) {
    Result<NpyArray> result = parseNpy(llvm::StringRef(bytes).take_front(length), "bad.npy");
    ASSERT_FALSE(result.ok()) << "accepted a file cut at byte " << length;
    const std::string &message = result.error();
    EXPECT_EQ(message.rfind("bad.npy: ", 0), 0u) << message;
    const bool explained = message.find("truncated") != std::string::npos ||
                           message.find("shorter") != std::string::npos ||
                           message.find("empty file") != std::string::npos;
    EXPECT_TRUE(explained) << "cut at " << length << ": " << message;
  }
}

TEST(Npy, RejectsDataLongerThanTheShape) {
  const std::string bytes = makeNpy(dictFor("<u2", "(2,)"), std::string(5, '\0'));
  expectParseError(bytes, "data is longer than the header says");
  expectParseError(bytes, "needs 4 bytes, the file has 5");
}

TEST(Npy, RejectsDamagedFramingAndHeaders) {
  const std::string data4(4, '\0');
  expectParseError("", "empty file");
  expectParseError("\x93NUM", "truncated");
  expectParseError("PK\x03\x04 this is a zip file", "bad magic");
  expectParseError("\x93NUMPX\x01\x00", "bad magic");
  expectParseError(makeNpy(dictFor("<u2", "(2,)"), data4, 1, 1),
                   "unsupported .npy format version 1.1");
  expectParseError(makeNpy(dictFor("<u2", "(2,)"), data4, 3, 0), "version 3.0");
  expectParseError(makeNpy(dictFor("<u2", "(2,)"), data4, 0, 0), "version 0.0");
  // Header length beyond the end of the file.
  std::string longHeader = makeNpy(dictFor("<u2", "(2,)"), data4);
  longHeader[8] = '\xFF';
  longHeader[9] = '\xFF';
  expectParseError(longHeader, "the header is 65535 bytes");

  expectParseError(makeNpy("['descr', '<u2']", data4), "header is not a dict");
  expectParseError(makeNpy("", data4), "header is not a dict");
  expectParseError(makeNpy("{'fortran_order': False, 'shape': (2,)}", data4), "no 'descr' key");
  expectParseError(makeNpy("{'descr': '<u2', 'shape': (2,)}", data4), "no 'fortran_order' key");
  expectParseError(makeNpy("{'descr': '<u2', 'fortran_order': False}", data4), "no 'shape' key");
  expectParseError(makeNpy("{'descr': '<u2', 'descr': '<u2', 'fortran_order': False, "
                           "'shape': (2,)}",
                           data4),
                   "repeats the key 'descr'");
  expectParseError(makeNpy("{'descr': '<u2', 'fortran_order': False, 'shape': (2,), "
                           "'extra': 1}",
                           data4),
                   "unexpected key 'extra'");
  expectParseError(
      makeNpy("{'descr': [('a', '<u2')], 'fortran_order': False, 'shape': (2,)}", data4),
      "'descr' is not a string");
  expectParseError(makeNpy(dictFor("<u2", "(2,)", "0"), data4), "not True or False");
  expectParseError(makeNpy(dictFor("<u2", "2"), data4), "'shape' is not a tuple");
  expectParseError(makeNpy(dictFor("<u2", "[2]"), data4), "'shape' is not a tuple");
  expectParseError(makeNpy(dictFor("<u2", "(2)"), data4), "is an integer, not a tuple");
  expectParseError(makeNpy(dictFor("<u2", "(-2,)"), data4), "negative dimension");
  expectParseError(makeNpy(dictFor("<u2", "(2.0,)"), data4), "expected ',' or ')'");
  expectParseError(makeNpy(dictFor("<u2", "(2, 'a')"), data4), "not a tuple of integers");
  expectParseError(makeNpy("{'descr': '<u2, 'fortran_order': False, 'shape': (2,)}", data4),
                   "header dict");
  expectParseError(makeNpy("{'descr': '<u2', 'fortran_order': False, 'shape': (2,)} junk", data4),
                   "trailing text");
  expectParseError(makeNpy("{'descr': '<u2' 'fortran_order': False, 'shape': (2,)}", data4),
                   "expected ',' or '}'");
}

TEST(Npy, RejectsUnsupportedDtypesAndOrders) {
  const std::string data8(8, '\0');
  for (const char *descr : {"<f8", "<i8", "|b1", "<f2", "<U1", "|S2", "<c8", "bogus"})
    expectParseError(makeNpy(dictFor(descr, "(1,)"), data8.substr(0, 8)), "unsupported dtype");
  expectParseError(makeNpy(dictFor(">u2", "(4,)"), data8), "big-endian");
  expectParseError(makeNpy(dictFor(">f4", "(2,)"), data8), "big-endian");
  expectParseError(makeNpy(dictFor("<u2", "(2, 2)", "True"), data8), "fortran_order is True");
}

TEST(Npy, ADescrWithANulOrControlBytesIsPrintedEscaped) {
  // Issue 34: the descr went into the message raw, NUL and escape bytes too.
  const std::string data8(8, '\0');
  const std::string descr = std::string("<u2\0\x1b[2J", 8);
  for (bool raw : {false, true}) {
    const std::string bytes = makeNpy(dictFor(descr, "(4,)"), data8);
    Result<NpyArray> typed = parseNpy(bytes, "bad.npy");
    Result<NpyRawArray> untyped = parseNpyRaw(bytes, "bad.npy");
    const std::string error = raw ? untyped.error() : typed.error();
    ASSERT_FALSE(error.empty());
    EXPECT_EQ(error.find('\0'), std::string::npos) << error;
    EXPECT_EQ(error.find('\x1b'), std::string::npos) << error;
    EXPECT_NE(error.find("'<u2\\x00\\x1b[2J'"), std::string::npos) << error;
  }
}

TEST(Npy, RejectsShapesThatOverflow) {
  expectParseError(makeNpy(dictFor("<u2", "(4294967296, 4294967296)"), ""), "overflows 64 bits");
  expectParseError(makeNpy(dictFor("<u2", "(9223372036854775808,)"), ""), "overflows 64 bits");
  expectParseError(makeNpy(dictFor("|u1", "(99999999999999999999999,)"), ""), "too large");
  // Huge but representable: must fail on the data length, not try to allocate.
  expectParseError(makeNpy(dictFor("|u1", "(1099511627776,)"), "abc"), "data is shorter");
}

TEST(Npy, SurvivesRandomCorruption) {
  std::mt19937_64 rng(testing::testSeed("Npy.SurvivesRandomCorruption"));
  const std::string valid =
      encodeNpy(NpyArray::of<float>({4, 4}, std::vector<float>(16, 1.0f))).value();
  for (int trial = 0; trial < 20000; ++trial) {
    std::string bytes = valid;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f)
      bytes[rng() % 128] = static_cast<char>(rng()); // damage the preamble and header
    Result<NpyArray> result = parseNpy(bytes, "fuzz.npy");
    if (!result.ok()) {
      EXPECT_EQ(result.error().rfind("fuzz.npy: ", 0), 0u) << result.error();
    }
  }
}

TEST(Npy, ReportsUnreadableFiles) {
  TempDir dir;
  Result<NpyArray> missing = readNpy(dir.file("missing.npy"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("missing.npy: cannot open"), std::string::npos) << missing.error();
  EXPECT_NE(missing.error().find("o such file"), std::string::npos) << missing.error();
  Result<NpyArray> directory = readNpy(dir.file(""));
  EXPECT_FALSE(directory.ok());
}

// Special files named as inputs: an endless device is not read until memory
// runs out, and a FIFO without a writer does not block.
TEST(Npy, RefusesFilesThatAreNotRegular) {
  TempDir dir;
  const std::string fifo = dir.file("pipe.npy");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string &path : {std::string("/dev/zero"), fifo}) {
    Result<NpyArray> read = readNpy(path);
    ASSERT_FALSE(read.ok()) << path;
    EXPECT_NE(read.error().find(path + ": not a regular file"), std::string::npos)
        << read.error();
  }
}

TEST(Npy, EncodeRejectsArraysWhoseShapeDoesNotMatch) {
  NpyArray array = NpyArray::of<uint8_t>({2, 3}, {1, 2, 3});
  Result<std::string> bytes = encodeNpy(array);
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.error().find("shape [2, 3] holds 3 elements"), std::string::npos)
      << bytes.error();
}

TEST(Npy, FailedWritesLeaveTheExistingFileIntact) {
  TempDir dir;
  const std::string path = dir.file("keep.npy");
  const NpyArray original = NpyArray::of<uint8_t>({3}, {1, 2, 3});
  ASSERT_TRUE(writeNpy(path, original).ok());
  const std::string before = slurp(path);

  // An array that cannot be encoded.
  Status invalid = writeNpy(path, NpyArray::of<uint8_t>({5}, {1}));
  EXPECT_FALSE(invalid.ok());
  EXPECT_NE(invalid.message().find("keep.npy"), std::string::npos) << invalid.message();

  // A write that fails half way: the file size limit makes write() return
  // EFBIG (SIGXFSZ ignored) after the first bytes.
  struct rlimit saved;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  void (*savedHandler)(int) = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = saved;
  small.rlim_cur = 4096;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  Status tooBig = writeNpy(path, NpyArray::of({1 << 20}, std::vector<uint8_t>(1 << 20, 7)));
  setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, savedHandler);
  ASSERT_FALSE(tooBig.ok());
  EXPECT_NE(tooBig.message().find("keep.npy: write failed"), std::string::npos) << tooBig.message();

  EXPECT_EQ(slurp(path), before);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"keep.npy"}); // temporaries removed

  // A destination that is a directory: the rename fails, the directory and
  // its content stay.
  ASSERT_FALSE(llvm::sys::fs::create_directory(dir.file("sub.npy")));
  spit(dir.file("sub.npy/inside"), "x");
  Status onDirectory = writeNpy(dir.file("sub.npy"), original);
  EXPECT_FALSE(onDirectory.ok());
  EXPECT_NE(onDirectory.message().find("sub.npy"), std::string::npos) << onDirectory.message();
  EXPECT_EQ(slurp(dir.file("sub.npy/inside")), "x");
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"keep.npy", "sub.npy"}));

  // A directory that does not exist.
  Status noDirectory = writeNpy(dir.file("nowhere/a.npy"), original);
  EXPECT_FALSE(noDirectory.ok());
  EXPECT_NE(noDirectory.message().find("nowhere/a.npy: cannot create a temporary file"),
            std::string::npos)
      << noDirectory.message();
}

TEST(Npy, OverwritesAnExistingFile) {
  TempDir dir;
  const std::string path = dir.file("a.npy");
  ASSERT_TRUE(writeNpy(path, NpyArray::of<uint8_t>({1}, {1})).ok());
  ASSERT_TRUE(writeNpy(path, NpyArray::of<int32_t>({2}, {5, -6})).ok());
  Result<NpyArray> back = readNpy(path);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back.value().as<int32_t>(), (std::vector<int32_t>{5, -6}));
}

TEST(NpyHeader, FormatsAsNumpy) {
  NpyHeaderDict dict;
  dict.descr = "<f4";
  dict.shape = {};
  EXPECT_EQ(formatNpyHeaderDict(dict), "{'descr': '<f4', 'fortran_order': False, 'shape': (), }");
  dict.shape = {5};
  EXPECT_EQ(formatNpyHeaderDict(dict), "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }");
  dict.shape = {5, 0, 2};
  EXPECT_EQ(formatNpyHeaderDict(dict),
            "{'descr': '<f4', 'fortran_order': False, 'shape': (5, 0, 2), }");
  Result<NpyHeaderDict> back = parseNpyHeaderDict(formatNpyHeaderDict(dict));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back.value().shape, dict.shape);
}

TEST(Npy, DescribesArrays) {
  EXPECT_EQ(describeArray(NpyDType::U16, {4, 4096}), "<u2 [4, 4096]");
  EXPECT_EQ(describeArray(NpyDType::U8, {}), "|u1 []");
  EXPECT_EQ(npyItemSize(NpyDType::I32), 4u);
}

} // namespace
} // namespace mxf::arrays
