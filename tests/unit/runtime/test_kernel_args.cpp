//===- test_kernel_args.cpp - Kernarg packing from KernelInfo metadata ----===//
//
// The layout always comes from the KernelInfo; these tests check the bytes
// that land at each offset (explicit and v5 hidden arguments), the
// alignment, and that every mismatch is an error naming the argument.
//
//===----------------------------------------------------------------------===//

#include "runtime/hidden_args.h"
#include "runtime/kernel_args.h"

#include "kernel_infos.h"

#include <gtest/gtest.h>

#include <cstring>

namespace mxf::runtime {
namespace {

using test::arg;
using test::writeIds;

template <typename T> T load(const KernargBuffer &buffer, size_t offset) {
  T value;
  std::memcpy(&value, buffer.data() + offset, sizeof(T));
  return value;
}

DeviceBuffer someBuffer() { return DeviceBuffer{0x100000001000ull, 4096}; }

LaunchGeometry geometry(Dim3 grid, Dim3 workgroup, uint32_t dynamicLds = 0) {
  return LaunchGeometry{grid, workgroup, dynamicLds};
}

TEST(KernelArgs, PacksExplicitArgumentsAtTheirOffsets) {
  KernelArgs args;
  args.buffer(someBuffer()).value(uint32_t(1234));
  Result<KernargBuffer> packed = packKernelArgs(writeIds(), args, geometry({4, 1, 1}, {64, 1, 1}));
  ASSERT_TRUE(packed.ok()) << packed.error();
  EXPECT_EQ(packed.value().size(), 272u);
  EXPECT_EQ(load<uint64_t>(packed.value(), 0), 0x100000001000ull);
  EXPECT_EQ(load<uint32_t>(packed.value(), 8), 1234u);
  // The padding between arguments is zero, not garbage.
  EXPECT_EQ(load<uint32_t>(packed.value(), 12), 0u);
}

TEST(KernelArgs, FillsTheV5HiddenArguments) {
  KernelArgs args{KernelArg::buffer(someBuffer()), KernelArg::value(uint32_t(7))};
  Result<KernargBuffer> packed =
      packKernelArgs(writeIds(), args, geometry({5, 3, 2}, {64, 2, 1}, 4096));
  ASSERT_TRUE(packed.ok()) << packed.error();
  const KernargBuffer &k = packed.value();
  EXPECT_EQ(load<uint32_t>(k, 16), 5u); // hidden_block_count_x
  EXPECT_EQ(load<uint32_t>(k, 20), 3u);
  EXPECT_EQ(load<uint32_t>(k, 24), 2u);
  EXPECT_EQ(load<uint16_t>(k, 28), 64u); // hidden_group_size_x
  EXPECT_EQ(load<uint16_t>(k, 30), 2u);
  EXPECT_EQ(load<uint16_t>(k, 32), 1u);
  EXPECT_EQ(load<uint16_t>(k, 34), 0u); // remainders: whole workgroups only
  EXPECT_EQ(load<uint16_t>(k, 36), 0u);
  EXPECT_EQ(load<uint16_t>(k, 38), 0u);
  EXPECT_EQ(load<uint64_t>(k, 56), 0u); // hidden_global_offset_*
  EXPECT_EQ(load<uint64_t>(k, 64), 0u);
  EXPECT_EQ(load<uint64_t>(k, 72), 0u);
  EXPECT_EQ(load<uint16_t>(k, 80), 3u);     // hidden_grid_dims
  EXPECT_EQ(load<uint32_t>(k, 136), 4096u); // hidden_dynamic_lds_size
  // Pointers to services we do not provide are null.
  for (size_t offset : {96, 104, 112, 120, 128, 216})
    EXPECT_EQ(load<uint64_t>(k, offset), 0u) << "offset " << offset;
}

TEST(KernelArgs, GridDimsCountsDimensionsInUse) {
  EXPECT_EQ(gridDims(geometry({1, 1, 1}, {1, 1, 1})), 1u);
  EXPECT_EQ(gridDims(geometry({8, 1, 1}, {64, 1, 1})), 1u);
  EXPECT_EQ(gridDims(geometry({1, 2, 1}, {64, 1, 1})), 2u);
  EXPECT_EQ(gridDims(geometry({1, 1, 1}, {1, 1, 2})), 3u);
}

TEST(KernelArgs, HiddenValuesByKind) {
  LaunchGeometry g = geometry({9, 8, 7}, {16, 4, 2}, 512);
  EXPECT_EQ(hiddenArgValue("hidden_block_count_z", g).value, 7u);
  EXPECT_EQ(hiddenArgValue("hidden_group_size_y", g).value, 4u);
  EXPECT_EQ(hiddenArgValue("hidden_dynamic_lds_size", g).value, 512u);
  EXPECT_EQ(hiddenArgValue("hidden_printf_buffer", g).value, 0u);
  EXPECT_EQ(hiddenArgValue("hidden_private_base", g).value, 0u);
  EXPECT_EQ(hiddenArgValue("hidden_something_from_the_future", g).value, 0u);
  EXPECT_EQ(hiddenArgValue("hidden_block_count_w", g).abiSize, 0u);
}

TEST(KernelArgs, BufferIsAlignedAndSized) {
  KernelInfo info = writeIds();
  info.kernargAlign = 64;
  Result<KernargBuffer> packed = packKernelArgs(
      info, KernelArgs{KernelArg::buffer(someBuffer()), KernelArg::value(uint32_t(1))},
      geometry({1, 1, 1}, {1, 1, 1}));
  ASSERT_TRUE(packed.ok()) << packed.error();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(packed.value().data()) % 64, 0u);
  EXPECT_EQ(packed.value().alignment(), 64u);
  // Smaller alignments are raised to 16.
  info.kernargAlign = 4;
  packed = packKernelArgs(
      info, KernelArgs{KernelArg::buffer(someBuffer()), KernelArg::value(uint32_t(1))},
      geometry({1, 1, 1}, {1, 1, 1}));
  ASSERT_TRUE(packed.ok()) << packed.error();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(packed.value().data()) % 16, 0u);
}

TEST(KernelArgs, KernelWithoutArguments) {
  KernelInfo info;
  info.name = "empty";
  Result<KernargBuffer> packed =
      packKernelArgs(info, KernelArgs{}, geometry({1, 1, 1}, {64, 1, 1}));
  ASSERT_TRUE(packed.ok()) << packed.error();
  EXPECT_EQ(packed.value().size(), 0u);
  EXPECT_NE(packed.value().data(), nullptr);
}

TEST(KernelArgs, BufferWithOffsetPointsInside) {
  DeviceBuffer b = someBuffer();
  Result<KernargBuffer> packed =
      packKernelArgs(writeIds(), KernelArgs{KernelArg::buffer(b, 256), KernelArg::value(1u)},
                     geometry({1, 1, 1}, {1, 1, 1}));
  ASSERT_TRUE(packed.ok()) << packed.error();
  EXPECT_EQ(load<uint64_t>(packed.value(), 0), b.address + 256);
}

TEST(KernelArgs, RawPointerAndStructByValue) {
  KernelInfo info;
  info.name = "k";
  info.kernargSize = 32;
  info.args = {arg("p", "global_buffer", 0, 8), arg("s", "by_value", 8, 12),
               arg("d", "by_value", 24, 8)};
  struct Three {
    uint32_t a, b, c;
  } three{1, 2, 3};
  Result<KernargBuffer> packed = packKernelArgs(
      info, KernelArgs{KernelArg::pointer(0xabc0), KernelArg::value(three), KernelArg::value(2.5)},
      geometry({1, 1, 1}, {1, 1, 1}));
  ASSERT_TRUE(packed.ok()) << packed.error();
  EXPECT_EQ(load<uint64_t>(packed.value(), 0), 0xabc0u);
  EXPECT_EQ(load<uint32_t>(packed.value(), 16), 3u);
  EXPECT_EQ(load<double>(packed.value(), 24), 2.5);
}

//===--- Errors ---------------------------------------------------------------===//

std::string packError(const KernelInfo &info, const KernelArgs &args,
                      LaunchGeometry g = LaunchGeometry{{1, 1, 1}, {64, 1, 1}, 0}) {
  Result<KernargBuffer> packed = packKernelArgs(info, args, g);
  EXPECT_FALSE(packed.ok());
  return packed.ok() ? std::string() : packed.error();
}

TEST(KernelArgsErrors, TooFewArguments) {
  std::string e = packError(writeIds(), KernelArgs{KernelArg::buffer(someBuffer())});
  EXPECT_EQ(e, "kernel 'write_ids': takes 2 explicit arguments (0 'out': global_buffer, "
               "1 'n': by_value 4 bytes), got 1");
}

TEST(KernelArgsErrors, TooManyArguments) {
  std::string e = packError(writeIds(), KernelArgs{KernelArg::buffer(someBuffer()),
                                                   KernelArg::value(1u), KernelArg::value(2u)});
  EXPECT_NE(e.find("takes 2 explicit arguments"), std::string::npos) << e;
  EXPECT_NE(e.find("got 3"), std::string::npos) << e;
}

TEST(KernelArgsErrors, ByValueSizeMismatch) {
  std::string e = packError(
      writeIds(), KernelArgs{KernelArg::buffer(someBuffer()), KernelArg::value(uint64_t(5))});
  EXPECT_EQ(e, "kernel 'write_ids': argument 1 ('n', by_value, 4 bytes): expected 4 bytes, got 8");
}

TEST(KernelArgsErrors, NullBuffer) {
  std::string e =
      packError(writeIds(), KernelArgs{KernelArg::buffer(DeviceBuffer{}), KernelArg::value(1u)});
  EXPECT_EQ(e, "kernel 'write_ids': argument 0 ('out', global_buffer, 8 bytes): got a null "
               "pointer; pass a live device buffer");
  e = packError(writeIds(), KernelArgs{KernelArg::pointer(0), KernelArg::value(1u)});
  EXPECT_NE(e.find("null pointer"), std::string::npos) << e;
}

TEST(KernelArgsErrors, ValueWhereBufferExpected) {
  std::string e =
      packError(writeIds(), KernelArgs{KernelArg::value(uint64_t(0x1000)), KernelArg::value(1u)});
  EXPECT_EQ(e, "kernel 'write_ids': argument 0 ('out', global_buffer, 8 bytes): expected a "
               "device buffer, got 8 bytes of by_value data");
}

TEST(KernelArgsErrors, BufferWhereValueExpected) {
  std::string e = packError(
      writeIds(), KernelArgs{KernelArg::buffer(someBuffer()), KernelArg::buffer(someBuffer())});
  EXPECT_EQ(e, "kernel 'write_ids': argument 1 ('n', by_value, 4 bytes): expected 4 bytes of "
               "by_value data, got a device pointer");
}

TEST(KernelArgsErrors, OffsetPastTheBuffer) {
  std::string e = packError(
      writeIds(), KernelArgs{KernelArg::buffer(someBuffer(), 4097), KernelArg::value(1u)});
  EXPECT_NE(e.find("argument 0 ('out'"), std::string::npos) << e;
  EXPECT_NE(e.find("4097 bytes into a buffer of 4096 bytes"), std::string::npos) << e;
}

TEST(KernelArgsErrors, ArgumentPastTheKernargSegment) {
  KernelInfo info = writeIds();
  info.kernargSize = 12 + 4 - 8; // `n` now ends past the segment
  std::string e =
      packError(info, KernelArgs{KernelArg::buffer(someBuffer()), KernelArg::value(1u)});
  EXPECT_EQ(e, "kernel 'write_ids': argument 1 ('n', by_value, 4 bytes) at bytes [8, 12) runs "
               "past the 8-byte kernarg segment");
}

TEST(KernelArgsErrors, HiddenArgumentPastTheKernargSegment) {
  KernelInfo info = writeIds();
  info.kernargSize = 200; // hidden_queue_ptr at 216 does not fit
  std::string e =
      packError(info, KernelArgs{KernelArg::buffer(someBuffer()), KernelArg::value(1u)});
  EXPECT_NE(e.find("argument 21 (unnamed, hidden_queue_ptr, 8 bytes) at bytes [216, 224)"),
            std::string::npos)
      << e;
}

TEST(KernelArgsErrors, HiddenArgumentOfTheWrongSize) {
  KernelInfo info = writeIds();
  info.args[5].size = 4; // hidden_group_size_x is 2 bytes in v5
  std::string e =
      packError(info, KernelArgs{KernelArg::buffer(someBuffer()), KernelArg::value(1u)});
  EXPECT_EQ(e, "kernel 'write_ids': argument 5 (unnamed, hidden_group_size_x, 4 bytes): the code "
               "object v5 ABI gives hidden_group_size_x 2 bytes");
}

TEST(KernelArgsErrors, GlobalBufferOfTheWrongSize) {
  KernelInfo info = writeIds();
  info.args[0].size = 4;
  std::string e =
      packError(info, KernelArgs{KernelArg::buffer(someBuffer()), KernelArg::value(1u)});
  EXPECT_NE(e.find("a global_buffer is an 8-byte pointer"), std::string::npos) << e;
}

TEST(KernelArgsErrors, UnsupportedValueKind) {
  KernelInfo info = writeIds();
  info.args[1].valueKind = "image";
  std::string e =
      packError(info, KernelArgs{KernelArg::buffer(someBuffer()), KernelArg::value(1u)});
  EXPECT_NE(e.find("argument 1 ('n', image, 4 bytes): value kind 'image' is not supported"),
            std::string::npos)
      << e;
}

TEST(KernelArgsErrors, BadAlignment) {
  KernelInfo info = writeIds();
  info.kernargAlign = 12;
  std::string e =
      packError(info, KernelArgs{KernelArg::buffer(someBuffer()), KernelArg::value(1u)});
  EXPECT_NE(e.find("'.kernarg_segment_align' is 12, expected a power of two"), std::string::npos)
      << e;
}

//===--- Launch geometry ---------------------------------------------------------===//

std::string geometryError(LaunchGeometry g, KernelInfo info = writeIds()) {
  Status s = checkLaunchGeometry(info, g);
  EXPECT_FALSE(s.ok());
  return s.message();
}

TEST(LaunchGeometry, Accepts) {
  EXPECT_TRUE(checkLaunchGeometry(writeIds(), geometry({65535, 1, 1}, {1024, 1, 1})).ok());
  EXPECT_TRUE(checkLaunchGeometry(writeIds(), geometry({1, 1, 1}, {8, 8, 16}, 160 * 1024)).ok());
}

TEST(LaunchGeometry, Rejects) {
  EXPECT_EQ(geometryError(geometry({1, 0, 1}, {64, 1, 1})),
            "kernel 'write_ids': grid.y is 0; every dimension needs at least one workgroup");
  EXPECT_EQ(geometryError(geometry({1, 1, 1}, {64, 1, 0})),
            "kernel 'write_ids': workgroup.z is 0; every dimension needs at least one work-item");
  EXPECT_EQ(geometryError(geometry({1, 1, 1}, {64, 32, 1})),
            "kernel 'write_ids': a workgroup of 64x32x1 = 2048 work-items exceeds its maximum of "
            "1024 ('.max_flat_workgroup_size')");
  KernelInfo small = writeIds();
  small.maxWorkgroupSize = 256;
  EXPECT_NE(geometryError(geometry({1, 1, 1}, {512, 1, 1}), small).find("maximum of 256"),
            std::string::npos);
  EXPECT_NE(geometryError(geometry({0x1000000, 1, 1}, {1024, 1, 1})).find("more than 2^32 - 1"),
            std::string::npos);
  KernelInfo lds = writeIds();
  lds.ldsBytes = 64 * 1024;
  EXPECT_EQ(geometryError(geometry({1, 1, 1}, {64, 1, 1}, 100 * 1024), lds),
            "kernel 'write_ids': 65536 bytes of static LDS + 102400 of dynamic LDS exceed "
            "gfx950's 163840 bytes per workgroup");
}

TEST(LaunchGeometry, PackingChecksItToo) {
  std::string e =
      packError(writeIds(), KernelArgs{KernelArg::buffer(someBuffer()), KernelArg::value(1u)},
                geometry({0, 1, 1}, {64, 1, 1}));
  EXPECT_NE(e.find("grid.x is 0"), std::string::npos) << e;
}

} // namespace
} // namespace mxf::runtime
