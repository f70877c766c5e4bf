//===- test_hazards.cpp - Missing waits and barriers are caught -----------===//
//
// The hazard model (docs/emulator.md): a register read or overwritten before
// the s_waitcnt that covers its load, and LDS accesses of two waves that no
// barrier (with a wait before it) orders, are errors naming both
// instructions. Each hazard is shown caught with its message, and the correct
// program passes under every wave schedule with the same results. Last, real
// compiled kernels of ours with one s_waitcnt (or the s_barrier) replaced by
// s_nop 0 are caught.
//
//===----------------------------------------------------------------------===//

#include "emu_harness.h"

#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

namespace mxf::emu::test {
namespace {

LaunchOptions withSchedule(WaveSchedule schedule, uint64_t seed = kDefaultScheduleSeed) {
  LaunchOptions options;
  options.threads = 1;
  options.waveSchedule = schedule;
  options.scheduleSeed = seed;
  return options;
}

/// The harness's run() with explicit launch options.
Result<LaunchStats> runWith(const AsmKernel &kernel, std::vector<Buffer *> buffers,
                            const LaunchOptions &options,
                            std::array<uint32_t, 3> workgroup = {64, 1, 1}) {
  return runAsmWith(kernel, std::move(buffers), options, workgroup);
}

#define EXPECT_HAS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

AsmKernel kernelWith(const std::string &body, unsigned lds = 0) {
  AsmKernel k;
  k.lds = lds;
  k.body = std::string(kPrologue) + body;
  return k;
}

// --- Memory counters -------------------------------------------------------

TEST(EmuHazards, ReadBeforeTheVectorLoadReturnedIsCaught) {
  const std::string load = "  global_load_dword v2, v1, s[6:7]\n";
  const std::string use = "  v_add_u32 v3, v2, v2\n  global_store_dword v1, v3, s[4:5]\n";
  Buffer out(64, 0), in = lanes([](unsigned l) { return 10 * l; });
  auto bad = runWith(kernelWith(load + use), {&out, &in}, withSchedule(WaveSchedule::InOrder));
  ASSERT_FALSE(bad.ok());
  std::printf("[ message  ] %s\n", bad.error().c_str());
  EXPECT_HAS(bad.error(), "v[2] read by 'v_add_u32_e32 v3, v2, v2' at 0x");
  EXPECT_HAS(bad.error(), "(workgroup (0,0,0), wave 0) before 'global_load_dword v2, v1, s[6:7]'");
  EXPECT_HAS(bad.error(), "returned: needs s_waitcnt vmcnt(0) (1 vector memory ops outstanding)");

  auto good = runWith(kernelWith(load + "  s_waitcnt vmcnt(0)\n" + use), {&out, &in},
                      withSchedule(WaveSchedule::InOrder));
  ASSERT_TRUE(good.ok()) << good.error();
  EXPECT_EQ(out[7], 140u);
}

// vmcnt(N) retires all but the newest N vector memory ops, stores included.
TEST(EmuHazards, WrongVmcntValueIsCaught) {
  const std::string loads = R"(
  global_load_dword v2, v1, s[6:7]
  global_load_dword v3, v1, s[6:7] offset:256
  global_load_dword v4, v1, s[6:7] offset:512
  s_waitcnt vmcnt(2)
  v_add_u32 v5, v2, 1
)";
  Buffer out(64, 0), in(192, 1);
  auto ok = runWith(kernelWith(loads + "  global_store_dword v1, v5, s[4:5]\n"), {&out, &in},
                    withSchedule(WaveSchedule::InOrder));
  EXPECT_TRUE(ok.ok()) << ok.error();

  auto bad = runWith(kernelWith(loads + "  v_add_u32 v5, v3, 1\n"), {&out, &in},
                     withSchedule(WaveSchedule::InOrder));
  ASSERT_FALSE(bad.ok());
  EXPECT_HAS(bad.error(), "v[3] read by");
  EXPECT_HAS(bad.error(), "before 'global_load_dword v3, v1, s[6:7] offset:256'");
  EXPECT_HAS(bad.error(), "needs s_waitcnt vmcnt(1) (2 vector memory ops outstanding)");

  const std::string storeFirst = R"(
  global_store_dword v1, v0, s[4:5]
  global_load_dword v2, v1, s[6:7]
  s_waitcnt vmcnt(1)
  v_add_u32 v5, v2, 1
)";
  auto store = runWith(kernelWith(storeFirst), {&out, &in}, withSchedule(WaveSchedule::InOrder));
  ASSERT_FALSE(store.ok());
  EXPECT_HAS(store.error(), "needs s_waitcnt vmcnt(0) (1 vector memory ops outstanding)");
  const std::string loadFirst = R"(
  global_load_dword v2, v1, s[6:7]
  global_store_dword v1, v0, s[4:5]
  s_waitcnt vmcnt(1)
  v_add_u32 v5, v2, 1
)";
  auto load = runWith(kernelWith(loadFirst), {&out, &in}, withSchedule(WaveSchedule::InOrder));
  EXPECT_TRUE(load.ok()) << load.error();
}

// Scalar loads may return in any order: only lgkmcnt(0) guarantees one of
// them, even the oldest.
TEST(EmuHazards, ScalarLoadsReturnOutOfOrder) {
  const std::string loads = R"(
  s_load_dword s12, s[0:1], 0x20
  s_load_dword s13, s[0:1], 0x24
)";
  const std::string use = "  v_mov_b32 v2, s12\n  global_store_dword v1, v2, s[4:5]\n";
  Buffer out(64, 0);
  auto bad = runWith(kernelWith(loads + "  s_waitcnt lgkmcnt(1)\n" + use), {&out},
                     withSchedule(WaveSchedule::InOrder));
  ASSERT_FALSE(bad.ok());
  EXPECT_HAS(bad.error(), "s[12] read by 'v_mov_b32_e32 v2, s12'");
  EXPECT_HAS(bad.error(), "before 's_load_dword s12, s[0:1], 0x20'");
  EXPECT_HAS(bad.error(), "needs s_waitcnt lgkmcnt(0) (scalar memory returns out of order");

  auto good = runWith(kernelWith(loads + "  s_waitcnt lgkmcnt(0)\n" + use), {&out},
                      withSchedule(WaveSchedule::InOrder));
  EXPECT_TRUE(good.ok()) << good.error();
}

// LDS ops retire in order among themselves whatever the scalar loads do.
TEST(EmuHazards, LdsRetiresInOrderBesideScalarLoads) {
  const std::string body = R"(
  v_lshlrev_b32 v10, 2, v0
  ds_write_b32 v10, v0
  s_waitcnt lgkmcnt(0)
  ds_read_b32 v2, v10
  s_load_dword s12, s[0:1], 0x20
  ds_read_b32 v3, v10
  s_waitcnt lgkmcnt(1)
  v_add_u32 v4, v2, 1
)";
  Buffer out(64, 0);
  auto oldest = runWith(kernelWith(body + "  global_store_dword v1, v4, s[4:5]\n", 256), {&out},
                        withSchedule(WaveSchedule::InOrder));
  ASSERT_TRUE(oldest.ok()) << oldest.error();
  EXPECT_EQ(out[9], 10u);
  auto newest = runWith(kernelWith(body + "  v_add_u32 v5, v3, 1\n", 256), {&out},
                        withSchedule(WaveSchedule::InOrder));
  ASSERT_FALSE(newest.ok());
  EXPECT_HAS(newest.error(), "v[3] read by");
  EXPECT_HAS(newest.error(), "before 'ds_read_b32 v3, v10'");
  EXPECT_HAS(newest.error(),
             "needs s_waitcnt lgkmcnt(0) (1 LDS and 1 scalar memory ops may be outstanding)");
  auto scalar = runWith(kernelWith(body + "  s_add_u32 s14, s12, 1\n", 256), {&out},
                        withSchedule(WaveSchedule::InOrder));
  ASSERT_FALSE(scalar.ok());
  EXPECT_HAS(scalar.error(), "s[12] read by 's_add_u32 s14, s12, 1'");
}

TEST(EmuHazards, OverwritingAPendingRegisterIsCaught) {
  Buffer out(64, 0), in(64, 5);
  auto bad = runWith(kernelWith("  global_load_dword v2, v1, s[6:7]\n  v_mov_b32 v2, 0\n"),
                     {&out, &in}, withSchedule(WaveSchedule::InOrder));
  ASSERT_FALSE(bad.ok());
  EXPECT_HAS(bad.error(), "v[2] written by 'v_mov_b32_e32 v2, 0'");
  EXPECT_HAS(bad.error(), "(its return would overwrite the new value): needs s_waitcnt vmcnt(0)");

  // A load of another counter is no better: the two may land in either order.
  auto mixed = runWith(kernelWith(R"(
  v_lshlrev_b32 v10, 2, v0
  global_load_dword v2, v1, s[6:7]
  ds_read_b32 v2, v10
)",
                                  256),
                       {&out, &in}, withSchedule(WaveSchedule::InOrder));
  ASSERT_FALSE(mixed.ok());
  EXPECT_HAS(mixed.error(), "v[2] written by 'ds_read_b32 v2, v10'");

  // An MFMA's accumulator is a source.
  AsmKernel mfma = kernelWith(R"(
  global_load_dwordx4 v[20:23], v1, s[6:7]
  v_mfma_f32_16x16x32_bf16 v[20:23], v[4:7], v[8:11], v[20:23]
)");
  Buffer big(256, 0);
  auto acc = runWith(mfma, {&out, &big}, withSchedule(WaveSchedule::InOrder));
  ASSERT_FALSE(acc.ok());
  EXPECT_HAS(acc.error(), "v[20] read by 'v_mfma_f32_16x16x32_bf16");
}

// Vector memory (and LDS) results land in issue order: a load may target a
// register an older load of the same counter still owes (the d16 halves).
TEST(EmuHazards, InOrderLoadsMayShareADestination) {
  Buffer out(64, 0), in = lanes([](unsigned l) { return 0x10000 * (l + 1) + l; });
  auto ok = runWith(kernelWith(R"(
  v_mov_b32 v2, 0
  global_load_short_d16 v2, v1, s[6:7]
  global_load_short_d16_hi v2, v1, s[6:7] offset:2
  s_waitcnt vmcnt(0)
  global_store_dword v1, v2, s[4:5]
)"),
                    {&out, &in}, withSchedule(WaveSchedule::InOrder));
  ASSERT_TRUE(ok.ok()) << ok.error();
  EXPECT_EQ(out[5], in[5]);

  // Scalar loads do not: the older one may land last.
  auto bad = runWith(kernelWith(R"(
  s_load_dword s12, s[0:1], 0x20
  s_load_dword s12, s[0:1], 0x24
  s_waitcnt lgkmcnt(0)
)"),
                     {&out}, withSchedule(WaveSchedule::InOrder));
  ASSERT_FALSE(bad.ok());
  EXPECT_HAS(bad.error(), "s[12] written by 's_load_dword s12, s[0:1], 0x24'");
}

// gfx950's s_barrier does not wait for memory.
TEST(EmuHazards, BarrierDoesNotWaitForLoads) {
  Buffer out(128, 0);
  auto bad = runWith(kernelWith(R"(
  v_lshlrev_b32 v10, 2, v0
  ds_write_b32 v10, v0
  s_waitcnt lgkmcnt(0)
  ds_read_b32 v2, v10
  s_barrier
  global_store_dword v1, v2, s[4:5]
)",
                                512),
                     {&out}, withSchedule(WaveSchedule::InOrder), {128, 1, 1});
  ASSERT_FALSE(bad.ok());
  EXPECT_HAS(bad.error(), "v[2] read by 'global_store_dword v1, v2, s[4:5]'");
  EXPECT_HAS(bad.error(), "needs s_waitcnt lgkmcnt(0)");
}

// --- LDS races between waves ---------------------------------------------

const WaveSchedule kSchedules[] = {WaveSchedule::InOrder, WaveSchedule::Reversed,
                                   WaveSchedule::Random};

/// Each work-item writes its id to its own LDS slot, and then reads the slot
/// of the work-item 64 away (another wave), through `between`.
AsmKernel exchange(const std::string &between) {
  return kernelWith(R"(
  v_lshlrev_b32 v10, 2, v0
  v_xor_b32 v11, 0x100, v10
  ds_write_b32 v10, v0
)" + between + R"(
  ds_read_b32 v2, v11
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v2, s[4:5]
)",
                    4096);
}

TEST(EmuHazards, MissingBarrierIsARace) {
  for (WaveSchedule schedule : kSchedules) {
    Buffer out(128, 0);
    auto bad = runWith(exchange("  s_waitcnt lgkmcnt(0)\n"), {&out}, withSchedule(schedule),
                       {128, 1, 1});
    ASSERT_FALSE(bad.ok()) << int(schedule);
    std::printf("[ message  ] %s\n", bad.error().c_str());
    EXPECT_HAS(bad.error(), "LDS race at byte 0x");
    EXPECT_HAS(bad.error(), "are in the same barrier interval (0): no s_barrier orders them");
    // Both instructions and both waves: the prefix names the later access.
    EXPECT_HAS(bad.error(), "ds_write_b32 v10, v0");
    EXPECT_HAS(bad.error(), "ds_read_b32 v2, v11");
    EXPECT_HAS(bad.error(), "), wave ");
    EXPECT_HAS(bad.error(), "and wave ");
  }
}

TEST(EmuHazards, MissingLgkmcntBeforeTheBarrierIsARace) {
  for (WaveSchedule schedule : kSchedules) {
    Buffer out(128, 0);
    auto bad = runWith(exchange("  s_barrier\n"), {&out}, withSchedule(schedule), {128, 1, 1});
    ASSERT_FALSE(bad.ok()) << int(schedule);
    std::printf("[ message  ] %s\n", bad.error().c_str());
    EXPECT_HAS(bad.error(), "this read and wave ");
    EXPECT_HAS(bad.error(), "'s write 'ds_write_b32 v10, v0' at 0x");
    EXPECT_HAS(bad.error(), "(barrier interval 0) had not completed when wave ");
    EXPECT_HAS(bad.error(), "arrived at the barrier ('s_barrier' at 0x");
    EXPECT_HAS(bad.error(), "needs s_waitcnt lgkmcnt(0) before it");
  }
  // One more LDS op after the write: lgkmcnt(1) before the barrier is enough.
  Buffer out(128, 0);
  auto one = runWith(exchange("  v_add_u32 v12, 512, v10\n  ds_write_b32 v12, v0\n  s_barrier\n"),
                     {&out}, withSchedule(WaveSchedule::InOrder), {128, 1, 1});
  ASSERT_FALSE(one.ok());
  EXPECT_HAS(one.error(), "needs s_waitcnt lgkmcnt(1) before it");
  auto fixed = runWith(exchange("  v_add_u32 v12, 512, v10\n  ds_write_b32 v12, v0\n"
                                "  s_waitcnt lgkmcnt(1)\n  s_barrier\n"),
                       {&out}, withSchedule(WaveSchedule::InOrder), {128, 1, 1});
  EXPECT_TRUE(fixed.ok()) << fixed.error();
}

// A read must have completed before its wave's barrier too, or another
// wave's write after the barrier may reach the LDS first.
TEST(EmuHazards, WriteAfterAnUncompletedReadIsARace) {
  Buffer out(128, 0);
  auto bad = runWith(kernelWith(R"(
  v_lshlrev_b32 v10, 2, v0
  v_xor_b32 v11, 0x100, v10
  ds_write_b32 v10, v0
  s_waitcnt lgkmcnt(0)
  s_barrier
  ds_read_b32 v2, v11
  s_barrier
  ds_write_b32 v10, v1
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v2, s[4:5]
)",
                                1024),
                     {&out}, withSchedule(WaveSchedule::InOrder), {128, 1, 1});
  ASSERT_FALSE(bad.ok());
  // Lane 0 writes the value already there (0): a same-value write, caught too.
  EXPECT_HAS(bad.error(), "and wave 1's read 'ds_read_b32 v2, v11'");
  EXPECT_HAS(bad.error(), "(barrier interval 1) had not completed when wave 1 arrived");
}

TEST(EmuHazards, CorrectExchangePassesUnderEverySchedule) {
  const AsmKernel k = exchange("  s_waitcnt lgkmcnt(0)\n  s_barrier\n");
  for (unsigned items : {128u, 256u, 1024u}) {
    std::vector<LaunchOptions> runs;
    for (WaveSchedule schedule : kSchedules)
      runs.push_back(withSchedule(schedule));
    for (uint64_t seed = 1; seed <= 8; ++seed)
      runs.push_back(withSchedule(WaveSchedule::Random, seed));
    for (const LaunchOptions &options : runs) {
      Buffer out(items, 0);
      auto stats = runWith(k, {&out}, options, {items, 1, 1});
      ASSERT_TRUE(stats.ok()) << stats.error();
      for (unsigned i = 0; i < items; ++i)
        ASSERT_EQ(out[i], i ^ 64) << items << " " << i;
    }
  }
}

// Races are tracked per byte: two waves writing different bytes of one dword
// do not race, a dword read of both does until a barrier orders it.
TEST(EmuHazards, RacesAreTrackedPerByte) {
  const std::string writeBytes = R"(
  v_lshrrev_b32 v10, 6, v0
  v_and_b32 v13, 63, v0
  v_lshlrev_b32 v13, 2, v13
  v_add_u32 v12, v13, v10
  ds_write_b8 v12, v0
)";
  const std::string readDword = R"(
  ds_read_b32 v2, v13
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v2, s[4:5]
)";
  for (WaveSchedule schedule : kSchedules) {
    Buffer out(128, 0);
    auto ok = runWith(kernelWith(writeBytes + "  s_waitcnt lgkmcnt(0)\n  s_barrier\n" + readDword,
                                 256),
                      {&out}, withSchedule(schedule), {128, 1, 1});
    ASSERT_TRUE(ok.ok()) << ok.error();
    for (unsigned i = 0; i < 128; ++i)
      ASSERT_EQ(out[i], 0xE7E70000u | ((64 + i % 64) << 8) | (i % 64)) << i;
    auto bad = runWith(kernelWith(writeBytes + "  s_waitcnt lgkmcnt(0)\n" + readDword, 256),
                       {&out}, withSchedule(schedule), {128, 1, 1});
    ASSERT_FALSE(bad.ok());
    EXPECT_HAS(bad.error(), "ds_write_b8 v12, v0");
    EXPECT_HAS(bad.error(), "ds_read_b32 v2, v13");
    EXPECT_HAS(bad.error(), "are in the same barrier interval (0)");
  }
}

// Atomics of different waves commute; a plain access beside them does not.
TEST(EmuHazards, LdsAtomicsCommute) {
  const std::string add = R"(
  v_mov_b32 v10, 0
  v_mov_b32 v11, 1
  v_cmp_gt_u32 vcc, 64, v0
  s_and_saveexec_b64 s[20:21], vcc
  ds_write_b32 v10, v10
  s_mov_b64 exec, s[20:21]
  s_waitcnt lgkmcnt(0)
  s_barrier
  ds_add_u32 v10, v11
)";
  const std::string read = "  ds_read_b32 v2, v10\n  s_waitcnt lgkmcnt(0)\n"
                           "  global_store_dword v1, v2, s[4:5]\n";
  for (WaveSchedule schedule : kSchedules) {
    Buffer out(256, 0);
    auto ok = runWith(kernelWith(add + "  s_waitcnt lgkmcnt(0)\n  s_barrier\n" + read, 64),
                      {&out}, withSchedule(schedule), {256, 1, 1});
    ASSERT_TRUE(ok.ok()) << ok.error();
    EXPECT_EQ(out[200], 256u);
    auto bad = runWith(kernelWith(add + "  s_waitcnt lgkmcnt(0)\n" + read, 64), {&out},
                       withSchedule(schedule), {256, 1, 1});
    ASSERT_FALSE(bad.ok());
    EXPECT_HAS(bad.error(), "LDS race at byte 0x");
    EXPECT_HAS(bad.error(), "ds_add_u32 v10, v11");
    EXPECT_HAS(bad.error(), "ds_read_b32 v2, v10");
  }
}

// --- Same-value writes (Triton's replicated stores) ---------------------

/// Runs `body` in three waves (192 work-items; v20 = the wave, v10 = LDS
/// address 0) and stores what each lane then reads at LDS 0.
Result<LaunchStats> threeWaves(const std::string &body, WaveSchedule schedule, Buffer &out,
                               uint64_t seed = kDefaultScheduleSeed) {
  return runWith(kernelWith(R"(
  v_lshrrev_b32 v20, 6, v0
  v_mov_b32 v10, 0
  v_mov_b32 v11, 5
  v_mov_b32 v12, 9
)" + body + R"(
  s_waitcnt lgkmcnt(0)
  s_barrier
  ds_read_b32 v2, v10
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v2, s[4:5]
)",
                            64),
                 {&out}, withSchedule(schedule, seed), {192, 1, 1});
}

/// `store` executed by wave `wave` only.
std::string byWave(unsigned wave, const std::string &store) {
  return "  v_cmp_eq_u32 vcc, " + std::to_string(wave) + ", v20\n" +
         "  s_and_saveexec_b64 s[20:21], vcc\n" + store + "\n  s_mov_b64 exec, s[20:21]\n";
}

const std::string kDefineFive = byWave(0, "  ds_write_b32 v10, v11") +
                                "  s_waitcnt lgkmcnt(0)\n  s_barrier\n";

// Every wave stores the value the byte already holds: in any order the byte
// keeps it, so no barrier is needed between those writes.
TEST(EmuHazards, ReplicatedSameValueWritesAreNoRace) {
  for (WaveSchedule schedule : kSchedules) {
    Buffer out(192, 0);
    auto ok = threeWaves(kDefineFive + "  ds_write_b32 v10, v11\n  ds_write_b32 v10, v11\n",
                         schedule, out);
    ASSERT_TRUE(ok.ok()) << ok.error();
    EXPECT_EQ(out[150], 5u);
  }
}

// A read beside another wave's same-value write is still a race: that the
// rewrite leaves the byte as it was may be a coincidence of these inputs.
TEST(EmuHazards, AReadBesideASameValueWriteIsARace) {
  for (WaveSchedule schedule : kSchedules) {
    Buffer out(192, 0);
    auto bad = threeWaves(kDefineFive + byWave(1, "  ds_write_b32 v10, v11") +
                              byWave(2, "  ds_read_b32 v3, v10\n  s_waitcnt lgkmcnt(0)"),
                          schedule, out);
    ASSERT_FALSE(bad.ok()) << int(schedule);
    EXPECT_HAS(bad.error(), "are in the same barrier interval (1)");
    EXPECT_HAS(bad.error(), "ds_write_b32 v10, v11");
    EXPECT_HAS(bad.error(), "ds_read_b32 v3, v10");
  }
}

// Another wave's different value is a race whichever lands first in the
// emulator: after the same-value write (which may land after it) or before
// it (then the "same" value is a change).
TEST(EmuHazards, ADifferentValueBesideSameValueWritesIsARace) {
  const std::string body = kDefineFive + "  v_cmp_eq_u32 vcc, 1, v20\n"
                                         "  v_cndmask_b32 v13, v11, v12, vcc\n"
                                         "  ds_write_b32 v10, v13\n";
  std::vector<LaunchOptions> runs;
  for (WaveSchedule schedule : kSchedules)
    runs.push_back(withSchedule(schedule));
  for (uint64_t seed = 1; seed <= 6; ++seed)
    runs.push_back(withSchedule(WaveSchedule::Random, seed));
  for (const LaunchOptions &options : runs) {
    Buffer out(192, 0);
    auto bad = threeWaves(body, options.waveSchedule, out, options.scheduleSeed);
    ASSERT_FALSE(bad.ok()) << int(options.waveSchedule) << " " << options.scheduleSeed;
    EXPECT_HAS(bad.error(), "are in the same barrier interval (1)");
  }
}

// A same-value write still in flight at its wave's barrier may land after a
// plain write that follows the barrier.
TEST(EmuHazards, ASameValueWriteInFlightAtTheBarrierIsARace) {
  const std::string sameValueByWave1 = byWave(1, "  ds_write_b32 v10, v11");
  const std::string nineByWave2 = byWave(2, "  ds_write_b32 v10, v12");
  Buffer out(192, 0);
  auto bad = threeWaves(kDefineFive + sameValueByWave1 + "  s_barrier\n" + nineByWave2,
                        WaveSchedule::InOrder, out);
  ASSERT_FALSE(bad.ok());
  EXPECT_HAS(bad.error(), "this write and wave 1's same-value write 'ds_write_b32 v10, v11'");
  EXPECT_HAS(bad.error(), "had not completed when wave 1 arrived at the barrier");
  auto ok = threeWaves(kDefineFive + sameValueByWave1 + "  s_waitcnt lgkmcnt(0)\n  s_barrier\n" +
                           nineByWave2,
                       WaveSchedule::InOrder, out);
  ASSERT_TRUE(ok.ok()) << ok.error();
  EXPECT_EQ(out[10], 9u);
}

// It could undo another wave's atomic.
TEST(EmuHazards, ASameValueWriteBesideAnAtomicIsARace) {
  for (WaveSchedule schedule : kSchedules) {
    Buffer out(192, 0);
    auto bad = threeWaves(kDefineFive + byWave(1, "  v_mov_b32 v14, 1\n  ds_add_u32 v10, v14") +
                              byWave(2, "  ds_write_b32 v10, v11"),
                          schedule, out);
    ASSERT_FALSE(bad.ok()) << int(schedule);
    EXPECT_HAS(bad.error(), "ds_add_u32 v10, v14");
  }
}

// Bytes still holding the launch's poison hold garbage on hardware: a write
// that happens to match the poison is a plain write.
TEST(EmuHazards, MatchingThePoisonIsAPlainWrite) {
  Buffer out(192, 0);
  auto bad = threeWaves("  v_mov_b32 v15, 0xe7e7e7e7\n" +
                            byWave(0, "  ds_write_b32 v10, v15") +
                            byWave(1, "  ds_read_b32 v3, v10\n  s_waitcnt lgkmcnt(0)"),
                        WaveSchedule::InOrder, out);
  ASSERT_FALSE(bad.ok());
  EXPECT_HAS(bad.error(), "this read and wave 0's write 'ds_write_b32 v10, v15'");
}

// The schedules really interleave differently: the order in which waves'
// returning atomics reach a counter shows it (a kernel that depends on it is
// not deterministic on hardware either).
TEST(EmuHazards, SchedulesOrderTheWavesDifferently) {
  const AsmKernel k = kernelWith(R"(
  v_mov_b32 v10, 0
  v_mov_b32 v11, 1
  v_cmp_gt_u32 vcc, 64, v0
  s_and_saveexec_b64 s[20:21], vcc
  ds_write_b32 v10, v10
  s_mov_b64 exec, s[20:21]
  s_waitcnt lgkmcnt(0)
  s_barrier
  ds_add_rtn_u32 v2, v10, v11
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v2, s[4:5]
)",
                                 64);
  auto firstWave = [&](const LaunchOptions &options) {
    Buffer out(256, 0);
    auto stats = runWith(k, {&out}, options, {256, 1, 1});
    EXPECT_TRUE(stats.ok()) << stats.error();
    for (unsigned wave = 0; wave < 4; ++wave)
      if (out[64 * wave] == 0)
        return wave;
    return 4u;
  };
  EXPECT_EQ(firstWave(withSchedule(WaveSchedule::InOrder)), 0u);
  EXPECT_EQ(firstWave(withSchedule(WaveSchedule::Reversed)), 3u);
  std::set<unsigned> seen;
  for (uint64_t seed = 0; seed < 32; ++seed)
    seen.insert(firstWave(withSchedule(WaveSchedule::Random, seed)));
  EXPECT_GE(seen.size(), 3u);
}

TEST(EmuHazards, ChecksCanBeTurnedOffForTestsOfThemselves) {
  Buffer out(128, 0), in(128, 3);
  LaunchOptions noCounters = withSchedule(WaveSchedule::InOrder);
  noCounters.checkMemoryCounters = false;
  auto a = runWith(kernelWith("  global_load_dword v2, v1, s[6:7]\n"
                              "  global_store_dword v1, v2, s[4:5]\n"),
                   {&out, &in}, noCounters);
  EXPECT_TRUE(a.ok()) << a.error();
  LaunchOptions noRaces = withSchedule(WaveSchedule::InOrder);
  noRaces.checkLdsRaces = false;
  auto b = runWith(exchange("  s_waitcnt lgkmcnt(0)\n"), {&out}, noRaces, {128, 1, 1});
  EXPECT_TRUE(b.ok()) << b.error();
}

TEST(EmuHazards, TheEnvironmentOverridesTheScheduleSeed) {
  Buffer out(128, 0);
  ::setenv("MXFORGE_EMU_SCHEDULE_SEED", "1234", 1);
  auto named = runWith(exchange("  s_barrier\n"), {&out}, withSchedule(WaveSchedule::Random, 7),
                       {128, 1, 1});
  ::setenv("MXFORGE_EMU_SCHEDULE_SEED", "12x", 1);
  auto refused = runWith(exchange("  s_barrier\n"), {&out}, withSchedule(WaveSchedule::Random),
                         {128, 1, 1});
  ::unsetenv("MXFORGE_EMU_SCHEDULE_SEED");
  ASSERT_FALSE(named.ok());
  EXPECT_HAS(named.error(), "[wave schedule random, seed 1234 (MXFORGE_EMU_SCHEDULE_SEED=1234");
  ASSERT_FALSE(refused.ok());
  EXPECT_HAS(refused.error(), "MXFORGE_EMU_SCHEDULE_SEED='12x' is not a number");
}

// --- Our compiled kernels, one wait or barrier removed -------------------

struct CompiledKernel {
  std::vector<uint8_t> hsaco;
  uint64_t textAddress = 0, textOffset = 0;
};

CompiledKernel readKernel(const char *file) {
  CompiledKernel k;
  auto buffer = llvm::MemoryBuffer::getFile(std::string(MXFORGE_EMU_E2E_DIR) + "/" + file);
  if (!buffer)
    return k;
  k.hsaco.assign((*buffer)->getBufferStart(), (*buffer)->getBufferEnd());
  auto object = llvm::object::ObjectFile::createObjectFile((*buffer)->getMemBufferRef());
  if (!object) {
    llvm::consumeError(object.takeError());
    return k;
  }
  for (const llvm::object::SectionRef &section : (*object)->sections()) {
    auto contents = section.getContents();
    if (!contents) {
      llvm::consumeError(contents.takeError());
      continue;
    }
    if (section.isText()) {
      k.textAddress = section.getAddress();
      k.textOffset = uint64_t(contents->data() - (*buffer)->getBufferStart());
    }
  }
  return k;
}

const KernelArgInfo *explicitArg(const KernelInfo &info, size_t index) {
  size_t n = 0;
  for (const KernelArgInfo &a : info.args)
    if (a.valueKind.rfind("hidden_", 0) != 0 && n++ == index)
      return &a;
  return nullptr;
}

/// Launches the rotate_quant kernel in `hsaco` (x, [r,] q, s, m) on 3 rows
/// of K = 4096 (RS = 64), as test_e2e_rotate_quant.cpp does.
Result<LaunchStats> launchRotateQuant(const std::vector<uint8_t> &hsaco, bool learned) {
  auto code = LoadedCodeObject::load(hsaco.data(), hsaco.size());
  if (!code.ok())
    return Result<LaunchStats>::failure(code.error());
  const KernelInfo info = code.value()->kernelInfos()[0];
  const unsigned m = learned ? 1 : 3, k = 4096; // l.hsaco is compiled for one row
  std::vector<uint16_t> x(m * k), r(64 * 64, 0x3c00);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = uint16_t(0x3f00 + (i * 37) % 256);
  std::vector<uint8_t> q(m * k / 2), s(m * k / 32);
  const uint64_t xa = 0x100000000ull, ra = 0x200000000ull, qa = 0x300000000ull,
                 sa = 0x400000000ull;
  std::vector<EmuBuffer> buffers = {
      {xa, x.data(), x.size() * 2}, {qa, q.data(), q.size()}, {sa, s.data(), s.size()}};
  if (learned)
    buffers.push_back({ra, r.data(), r.size() * 2});
  std::vector<uint8_t> kernargs(info.kernargSize, 0);
  size_t i = 0;
  auto put = [&](const void *value, size_t size) {
    if (const KernelArgInfo *a = explicitArg(info, i++))
      std::memcpy(&kernargs[a->offset], value, size);
  };
  put(&xa, 8);
  if (learned)
    put(&ra, 8);
  put(&qa, 8);
  put(&sa, 8);
  const int32_t mArg = int32_t(m);
  put(&mArg, 4);
  LaunchOptions options;
  options.threads = 1;
  return launch(*code.value(), info.name, {16, 1, 1}, {256, 1, 1}, 0, kernargs,
                buffers, options);
}

/// Replaces each instruction whose text starts with `mnemonic` by s_nop 0
/// in turn and launches; returns (mutants, caught) and the first uncaught.
struct MutationScore {
  unsigned mutants = 0, caught = 0;
  std::string survivors;
};

MutationScore mutateEach(const char *file, bool learned, const std::string &mnemonic,
                         const std::string &expected) {
  MutationScore score;
  const CompiledKernel kernel = readKernel(file);
  EXPECT_FALSE(kernel.hsaco.empty()) << file;
  auto code = LoadedCodeObject::load(kernel.hsaco.data(), kernel.hsaco.size());
  EXPECT_TRUE(code.ok()) << code.error();
  if (!code.ok())
    return score;
  const std::string listing = code.value()->listing(code.value()->kernelInfos()[0].name);
  size_t line = 0;
  while (line < listing.size()) {
    const size_t end = listing.find('\n', line);
    const std::string text = listing.substr(line, end - line);
    line = end + 1;
    const size_t colon = text.find(": ");
    if (text.compare(colon + 2, mnemonic.size(), mnemonic) != 0)
      continue;
    const uint64_t address = std::stoull(text.substr(0, colon), nullptr, 16);
    std::vector<uint8_t> mutant = kernel.hsaco;
    const uint32_t sNop0 = 0xbf800000u;
    std::memcpy(&mutant[kernel.textOffset + (address - kernel.textAddress)], &sNop0, 4);
    ++score.mutants;
    auto stats = launchRotateQuant(mutant, learned);
    if (!stats.ok() && stats.error().find(expected) != std::string::npos)
      ++score.caught;
    else
      score.survivors += "  " + text + (stats.ok() ? " (passed)\n" : ": " + stats.error() + "\n");
  }
  return score;
}

TEST(EmuHazards, OurKernelsPassTheChecks) {
  for (const char *file : {"rs64.hsaco", "l.hsaco"}) {
    auto stats = launchRotateQuant(readKernel(file).hsaco, file[0] == 'l');
    EXPECT_TRUE(stats.ok()) << file << ": " << stats.error();
  }
}

TEST(EmuHazards, RemovingAWaitFromOurKernelsIsCaught) {
  for (const char *file : {"rs64.hsaco", "l.hsaco"}) {
    const MutationScore score = mutateEach(file, file[0] == 'l', "s_waitcnt", "needs s_waitcnt");
    std::printf("[ mutate   ] %s: s_waitcnt -> s_nop 0 caught %u of %u\n%s", file, score.caught,
                score.mutants, score.survivors.c_str());
    EXPECT_GT(score.mutants, 0u) << file;
    EXPECT_EQ(score.caught, score.mutants) << file << "\n" << score.survivors;
  }
}

TEST(EmuHazards, RemovingTheBarrierFromOurKernelIsCaught) {
  const MutationScore score = mutateEach("l.hsaco", true, "s_barrier", "LDS race at byte");
  EXPECT_EQ(score.mutants, 1u);
  EXPECT_EQ(score.caught, score.mutants) << score.survivors;
}

} // namespace
} // namespace mxf::emu::test
