//===- test_timeline.cpp - The latency timeline the MI355X model reads ----===//
//
// emulator/timeline.h: a wave's clock advances by an issue cost per
// instruction; s_waitcnt waits for the loads it retires, a barrier for the
// workgroup's latest wave. Checked by differences between programs that
// differ in one respect (so no test restates every instruction's family):
// waits in sequence cost a round trip each, loads in flight together one;
// the latency scales the chain exactly; a barrier passes one wave's wait to
// the others. Then: the timeline changes no result, is off by default, and
// the counts-only launches the model uses for peers' code objects (float
// modes, LDS-destination loads) are refused in checked launches.
//
//===----------------------------------------------------------------------===//

#include "emu_harness.h"

#include <gtest/gtest.h>

namespace mxf::emu::test {
namespace {

TimelineCosts costs(uint32_t globalLatency) {
  TimelineCosts c;
  c.vectorIssue = 4;
  c.scalarIssue = 1;
  c.mfmaIssue = 16;
  c.globalLatency = globalLatency;
  c.ldsLatency = 50;
  c.scalarLoadLatency = 200;
  return c;
}

/// Runs `body` (after the harness prologue) on `buffers` with `options`.
Result<LaunchStats> runTimed(const std::string &body, std::vector<Buffer *> buffers,
                             LaunchOptions options, std::array<uint32_t, 3> workgroup = {64, 1, 1},
                             unsigned floatDenormMode32 = 3) {
  AsmKernel k;
  k.body = std::string(kPrologue) + body;
  k.floatDenormMode32 = floatDenormMode32;
  options.threads = 1;
  return runAsmWith(k, std::move(buffers), options, workgroup);
}

LaunchOptions timed(uint32_t latency) {
  LaunchOptions options;
  options.timeline = costs(latency);
  return options;
}

// Three loads, each waited for before the next issues, against the same
// three in flight together: two round trips apart, less the two waits'
// own issue.
const char *kSerial = R"(
  global_load_dword v2, v1, s[6:7]
  s_waitcnt vmcnt(0)
  global_load_dword v3, v1, s[6:7] offset:256
  s_waitcnt vmcnt(0)
  global_load_dword v4, v1, s[6:7] offset:512
  s_waitcnt vmcnt(0)
  v_add_u32 v5, v2, v3
  v_add_u32 v5, v5, v4
  global_store_dword v1, v5, s[4:5]
)";
const char *kPipelined = R"(
  global_load_dword v2, v1, s[6:7]
  global_load_dword v3, v1, s[6:7] offset:256
  global_load_dword v4, v1, s[6:7] offset:512
  s_waitcnt vmcnt(0)
  v_add_u32 v5, v2, v3
  v_add_u32 v5, v5, v4
  global_store_dword v1, v5, s[4:5]
)";

TEST(EmuTimeline, LoadsInFlightTogetherCostOneRoundTrip) {
  Buffer out(64, 0), in(192, 1);
  auto serial = runTimed(kSerial, {&out, &in}, timed(1000));
  auto pipelined = runTimed(kPipelined, {&out, &in}, timed(1000));
  ASSERT_TRUE(serial.ok()) << serial.error();
  ASSERT_TRUE(pipelined.ok()) << pipelined.error();
  const int64_t apart =
      int64_t(serial.value().timelineCycles) - int64_t(pipelined.value().timelineCycles);
  std::printf("[ cycles   ] serial %llu, pipelined %llu\n",
              (unsigned long long)serial.value().timelineCycles,
              (unsigned long long)pipelined.value().timelineCycles);
  // Two more round trips of 1000 cycles; the two extra s_waitcnt issue at
  // most one vector instruction's 4 cycles each.
  EXPECT_GE(apart, 2000);
  EXPECT_LE(apart, 2000 + 2 * 4);
  // A round trip at least: the prologue's scalar loads and the final store.
  EXPECT_GT(pipelined.value().timelineCycles, 1000u + 200u + 1000u);
}

TEST(EmuTimeline, TheLatencyScalesTheChainExactly) {
  Buffer out(64, 0), in(192, 1);
  auto fast = runTimed(kSerial, {&out, &in}, timed(1000));
  auto slow = runTimed(kSerial, {&out, &in}, timed(3000));
  ASSERT_TRUE(fast.ok() && slow.ok());
  // Three waited loads and the final store's completion: four round trips.
  EXPECT_EQ(slow.value().timelineCycles - fast.value().timelineCycles, 4u * 2000u);
}

TEST(EmuTimeline, ABarrierPassesTheLatestWaveToTheOthers) {
  // Wave 1 (work-items 64..127) waits for a load before the barrier, wave 0
  // for one after it: only if the barrier holds wave 0 until wave 1 arrives
  // do the two round trips add up. Alone, wave 0 makes only its own.
  const std::string body = R"(
  v_cmp_gt_u32 vcc, 64, v0
  s_cbranch_vccnz arrive
  global_load_dword v2, v1, s[6:7]
  s_waitcnt vmcnt(0)
arrive:
  s_barrier
  v_cmp_gt_u32 vcc, 64, v0
  s_cbranch_vccz done
  global_load_dword v3, v1, s[6:7]
  s_waitcnt vmcnt(0)
done:
)";
  Buffer out(128, 0), in(128, 1);
  auto both = runTimed(body, {&out, &in}, timed(1000), {128, 1, 1});
  auto alone = runTimed(body, {&out, &in}, timed(1000), {64, 1, 1});
  ASSERT_TRUE(both.ok()) << both.error();
  ASSERT_TRUE(alone.ok()) << alone.error();
  EXPECT_GE(both.value().timelineCycles, alone.value().timelineCycles + 1000);
}

TEST(EmuTimeline, WavesSharingASimdIssueOneAfterAnother) {
  // 64 vector instructions and no memory: alone a wave takes their issue.
  // Four waves take the same (one per SIMD); eight take twice as long, as
  // waves i and i + 4 share SIMD i % 4. Without that, eight waves would be
  // credited with twice the CU's issue.
  std::string body;
  for (int i = 0; i < 64; ++i)
    body += "  v_add_u32 v2, v2, v1\n";
  Buffer out(512, 0), in(512, 1);
  auto cycles = [&](unsigned items) {
    auto run = runTimed(body, {&out, &in}, timed(1000), {items, 1, 1});
    EXPECT_TRUE(run.ok()) << run.error();
    return run.ok() ? run.value().timelineCycles : 0;
  };
  const uint64_t one = cycles(64), four = cycles(256), eight = cycles(512);
  std::printf("[ cycles   ] 1 wave %llu, 4 waves %llu, 8 waves %llu\n", (unsigned long long)one,
              (unsigned long long)four, (unsigned long long)eight);
  EXPECT_EQ(four, one);
  // Each wave's own issue (the prologue's scalar loads' latency overlaps
  // nothing on a shared SIMD, so the pair's issue is what bounds).
  EXPECT_GE(eight, 2 * 64 * 4u);
  EXPECT_GT(eight, one);
}

TEST(EmuTimeline, ChangesNoResultAndIsOffByDefault) {
  Buffer outTimed(64, 0), outPlain(64, 0), in(192, 0);
  for (unsigned i = 0; i < in.size(); ++i)
    in[i] = 7 * i + 1;
  auto withTimeline = runTimed(kSerial, {&outTimed, &in}, timed(1000));
  auto plain = runTimed(kSerial, {&outPlain, &in}, LaunchOptions{});
  ASSERT_TRUE(withTimeline.ok() && plain.ok());
  EXPECT_EQ(outTimed, outPlain);
  EXPECT_EQ(plain.value().timelineCycles, 0u);
  EXPECT_GT(withTimeline.value().timelineCycles, 0u);
  EXPECT_EQ(plain.value().instructions(), withTimeline.value().instructions());
}

// AITER's hand-written GEMMs flush f32 denormals and load straight into LDS:
// counted for the model, refused where outputs are checked.
TEST(EmuTimeline, CountsOnlyFormsAreRefusedInCheckedLaunches) {
  Buffer out(64, 0), in(64, 1);
  const unsigned flushes = 0; // FLOAT_DENORM_MODE_32
  auto checked = runTimed(kPipelined, {&out, &in}, LaunchOptions{}, {64, 1, 1}, flushes);
  ASSERT_FALSE(checked.ok());
  EXPECT_NE(checked.error().find("flushes f32 denormals"), std::string::npos) << checked.error();
  LaunchOptions countsOnly = timed(1000);
  countsOnly.countsOnly = true;
  Buffer in3(192, 1);
  auto counted = runTimed(kPipelined, {&out, &in3}, countsOnly, {64, 1, 1}, flushes);
  EXPECT_TRUE(counted.ok()) << counted.error();

  // buffer_load_dword ... lds: a vmcnt operation writing LDS at M0 + lane * 4.
  const std::string toLds = R"(
  s_mov_b32 s12, s6
  s_and_b32 s13, s7, 0xffff
  s_mov_b32 s14, 256
  s_mov_b32 s15, 0x27000
  s_mov_b32 m0, 0
  buffer_load_dword v1, s[12:15], 0 offen lds
  s_waitcnt vmcnt(0)
)";
  AsmKernel k;
  k.body = std::string(kPrologue) + toLds;
  k.lds = 256;
  auto code = build(k);
  ASSERT_TRUE(code.ok()) << code.error();
  std::vector<uint8_t> kernargs(64, 0);
  const uint64_t outAddress = bufferAddress(0), inAddress = bufferAddress(1);
  std::memcpy(&kernargs[0], &outAddress, 8);
  std::memcpy(&kernargs[8], &inAddress, 8);
  std::vector<EmuBuffer> registered = {{outAddress, out.data(), out.size() * 4},
                                       {inAddress, in.data(), in.size() * 4}};
  LaunchOptions plain;
  plain.threads = 1;
  auto refused = launch(*code.value(), "k", {1, 1, 1}, {64, 1, 1}, 0, kernargs, registered, plain);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("LDS-destination (lds) form"), std::string::npos)
      << refused.error();
  countsOnly.threads = 1;
  auto allowed =
      launch(*code.value(), "k", {1, 1, 1}, {64, 1, 1}, 0, kernargs, registered, countsOnly);
  ASSERT_TRUE(allowed.ok()) << allowed.error();
  EXPECT_EQ(allowed.value().count(Family::Vmem), 1u);
  // 64 lanes x 4 bytes, and the prologue's two 16-byte kernarg loads.
  EXPECT_EQ(allowed.value().globalBytesRead, 256u + 32u);
}

} // namespace
} // namespace mxf::emu::test
