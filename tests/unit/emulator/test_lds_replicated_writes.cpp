//===- test_lds_replicated_writes.cpp - Replicated LDS stores are no race --===//
//
// Triton's reductions and layout conversions store a value that several
// waves hold (a replicated layout) from every one of them, to the same LDS
// address, with no barrier between: the stores cannot be told apart, so the
// race detector must let them pass (lds.cpp, ldsWriteAccess). Two different
// values are still a race, and a first write that happens to match the
// launch's poison still counts as a write (on hardware it replaced garbage).
// Found by the
// witness corpus (reduce_int32_rows, fp4_e2m1_unpack_bitops,
// histogram_no_atomics).
//
//===----------------------------------------------------------------------===//

#include "emu_harness.h"

#include <gtest/gtest.h>

#include <cstring>

namespace mxf::emu::test {
namespace {

/// Two waves (128 work-items) each store `value` (wave 1: `value1`) to LDS
/// byte 0 with no barrier between, then, after a barrier, read it back.
Result<LaunchStats> storeTwice(const std::string &value0, const std::string &value1,
                               WaveSchedule schedule, Buffer &out) {
  AsmKernel k;
  k.lds = 256;
  k.body = std::string(kPrologue) + R"(
  v_mov_b32 v10, 0
  v_cmp_gt_u32 vcc, 64, v0
  v_mov_b32 v11, )" + value1 + R"(
  v_mov_b32 v12, )" + value0 + R"(
  v_cndmask_b32 v11, v11, v12, vcc
  ds_write_b32 v10, v11
  s_waitcnt lgkmcnt(0)
  s_barrier
  ds_read_b32 v2, v10
  s_waitcnt lgkmcnt(0)
  v_and_b32 v3, 63, v0
  v_lshlrev_b32 v3, 2, v3
  global_store_dword v3, v2, s[4:5]
)";
  auto code = build(k);
  if (!code.ok())
    return Result<LaunchStats>::failure(code.error());
  const uint64_t address = bufferAddress(0);
  std::vector<uint8_t> kernargs(64, 0);
  std::memcpy(kernargs.data(), &address, 8);
  LaunchOptions options;
  options.threads = 1;
  options.waveSchedule = schedule;
  return launch(*code.value(), "k", {1, 1, 1}, {128, 1, 1}, 0, kernargs,
                {{address, out.data(), out.size() * 4}}, options);
}

constexpr WaveSchedule kAll[] = {WaveSchedule::InOrder, WaveSchedule::Reversed,
                                 WaveSchedule::Random};

TEST(EmuLdsReplicatedWrites, TheSameValueFromEveryWaveIsNoRace) {
  for (WaveSchedule schedule : kAll) {
    // The first write defines the bytes; the second leaves them as they are.
    Buffer out(64, 0);
    auto run = storeTwice("0x1234abcd", "0x1234abcd", schedule, out);
    ASSERT_TRUE(run.ok()) << run.error();
    for (unsigned l = 0; l < 64; ++l)
      ASSERT_EQ(out[l], 0x1234abcdu);
  }
}

TEST(EmuLdsReplicatedWrites, DifferentValuesAreStillARace) {
  for (WaveSchedule schedule : kAll) {
    Buffer out(64, 0);
    auto run = storeTwice("0x1234abcd", "0x1234abce", schedule, out);
    ASSERT_FALSE(run.ok());
    EXPECT_NE(run.error().find("LDS race at byte 0x0"), std::string::npos) << run.error();
  }
}

TEST(EmuLdsReplicatedWrites, AWriteMatchingThePoisonStillCounts) {
  // The emulator fills LDS with 0xE7 at launch. Wave 0's write of that very
  // pattern changes nothing in the emulator, but on hardware it replaces
  // garbage: wave 1's unordered read of it is still a race.
  AsmKernel k;
  k.lds = 256;
  k.body = std::string(kPrologue) + R"(
  v_mov_b32 v10, 0
  v_mov_b32 v11, 0xe7e7e7e7
  v_cmp_gt_u32 vcc, 64, v0
  s_and_saveexec_b64 s[20:21], vcc
  ds_write_b32 v10, v11
  s_waitcnt lgkmcnt(0)
  s_xor_b64 exec, exec, s[20:21]
  ds_read_b32 v2, v10
  s_waitcnt lgkmcnt(0)
  s_or_b64 exec, exec, s[20:21]
)";
  auto code = build(k);
  ASSERT_TRUE(code.ok()) << code.error();
  std::vector<uint8_t> kernargs(64, 0);
  for (WaveSchedule schedule : kAll) {
    LaunchOptions options;
    options.threads = 1;
    options.waveSchedule = schedule;
    auto run = launch(*code.value(), "k", {1, 1, 1}, {128, 1, 1}, 0, kernargs, {}, options);
    ASSERT_FALSE(run.ok()) << int(schedule);
    EXPECT_NE(run.error().find("LDS race at byte 0x0"), std::string::npos) << run.error();
  }
}

} // namespace
} // namespace mxf::emu::test
