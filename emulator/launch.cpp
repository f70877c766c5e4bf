//===- launch.cpp - launch(): a dispatch over a grid of workgroups --------===//
//
// Builds the launch's global memory (the caller's buffers plus the kernarg
// segment, the dispatch packet and a queue stub that the kernel may read
// through its user SGPRs), then runs the workgroups on worker threads.
// Workgroups share nothing but global memory, so the results do not depend on
// the thread count; the error reported is the lowest-numbered workgroup's.
// The launch options choose the wave schedule inside each workgroup and the
// hazard checks (executor.h).
//
//===----------------------------------------------------------------------===//

#include "emulator/emulator.h"
#include "emulator/executor.h"
#include "emulator/operands.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>

namespace mxf::emu {

namespace {

constexpr uint32_t kMaxLdsBytes = 160 * 1024; // per workgroup on gfx950 (§D)
constexpr size_t kDispatchPacketSize = 64;
constexpr size_t kQueueStubSize = 256;

/// hsa_kernel_dispatch_packet_t, the fields a kernel may read.
std::vector<uint8_t> dispatchPacket(const KernelProgram &program,
                                    const std::array<uint32_t, 3> &grid,
                                    const std::array<uint32_t, 3> &workgroup, uint32_t ldsBytes,
                                    uint64_t kernargAddress) {
  std::vector<uint8_t> packet(kDispatchPacketSize, 0);
  auto put16 = [&](size_t at, uint16_t v) { std::memcpy(&packet[at], &v, 2); };
  auto put32 = [&](size_t at, uint32_t v) { std::memcpy(&packet[at], &v, 4); };
  auto put64 = [&](size_t at, uint64_t v) { std::memcpy(&packet[at], &v, 8); };
  const uint16_t dims = grid[2] > 1 || workgroup[2] > 1 ? 3 : grid[1] > 1 || workgroup[1] > 1 ? 2 : 1;
  put16(2, dims); // setup
  put16(4, uint16_t(workgroup[0]));
  put16(6, uint16_t(workgroup[1]));
  put16(8, uint16_t(workgroup[2]));
  put32(12, grid[0] * workgroup[0]); // grid sizes are in work-items
  put32(16, grid[1] * workgroup[1]);
  put32(20, grid[2] * workgroup[2]);
  put32(24, program.descriptor.privateSegmentFixedSize);
  put32(28, ldsBytes);
  put64(40, kernargAddress);
  return packet;
}

/// options.scheduleSeed, unless MXFORGE_EMU_SCHEDULE_SEED gives another (so a
/// run under any schedule can be explored or replayed without a rebuild).
Result<uint64_t> scheduleSeed(const LaunchOptions &options) {
  const char *text = std::getenv("MXFORGE_EMU_SCHEDULE_SEED");
  if (!text || !*text)
    return options.scheduleSeed;
  char *end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 0);
  if (*end != '\0')
    return Result<uint64_t>::failure("MXFORGE_EMU_SCHEDULE_SEED='" + std::string(text) +
                                     "' is not a number");
  return uint64_t(value);
}

} // namespace

const char *familyName(Family family) {
  static const char *const kNames[kNumFamilies] = {"salu", "valu", "vmem", "smem", "lds",
                                                   "mfma", "cvt-scaled", "branch", "other"};
  return kNames[static_cast<size_t>(family)];
}

uint64_t LaunchStats::instructions() const {
  uint64_t total = 0;
  for (uint64_t n : instructionsByFamily)
    total += n;
  return total;
}

Result<LaunchStats> launch(const LoadedCodeObject &code, const std::string &kernelName,
                           const std::array<uint32_t, 3> &grid,
                           const std::array<uint32_t, 3> &workgroup, uint32_t dynamicLds,
                           const std::vector<uint8_t> &kernargs,
                           const std::vector<EmuBuffer> &buffers, const LaunchOptions &options) {
  using R = Result<LaunchStats>;
  const KernelProgram *program = code.findKernel(kernelName);
  if (!program)
    return R::failure("no kernel named '" + kernelName + "' in the code object");
  if (!program->decodeError.empty())
    return R::failure("kernel '" + kernelName + "' could not be decoded: " + program->decodeError);
  if (Status s = checkDescriptorSupported(*program, options.countsOnly); !s.ok())
    return s;

  const uint64_t items = uint64_t(workgroup[0]) * workgroup[1] * workgroup[2];
  if (items == 0 || grid[0] == 0 || grid[1] == 0 || grid[2] == 0)
    return R::failure("empty grid or workgroup");
  const uint64_t workgroups = uint64_t(grid[0]) * grid[1] * grid[2];
  if (options.maxWorkgroups && workgroups > options.maxWorkgroups)
    return R::failure("a grid of " + std::to_string(grid[0]) + "x" + std::to_string(grid[1]) +
                      "x" + std::to_string(grid[2]) + " = " + std::to_string(workgroups) +
                      " workgroups exceeds the emulator's limit of " +
                      std::to_string(options.maxWorkgroups) + " per launch");
  if (workgroup[0] > 1024 || workgroup[1] > 1024 || workgroup[2] > 1024 || items > 1024)
    return R::failure("workgroup of " + std::to_string(items) +
                      " work-items exceeds the hardware limit of 1024");
  if (program->info.maxWorkgroupSize && items > program->info.maxWorkgroupSize)
    return R::failure("workgroup of " + std::to_string(items) + " work-items exceeds kernel '" +
                      kernelName + "''s .max_flat_workgroup_size " +
                      std::to_string(program->info.maxWorkgroupSize));
  const uint64_t lds = uint64_t(program->descriptor.groupSegmentFixedSize) + dynamicLds;
  if (lds > kMaxLdsBytes)
    return R::failure("LDS of " + std::to_string(lds) + " bytes exceeds gfx950's 163840");
  if (kernargs.size() < program->info.kernargSize)
    return R::failure("kernarg segment of " + std::to_string(kernargs.size()) +
                      " bytes; kernel '" + kernelName + "' needs " +
                      std::to_string(program->info.kernargSize));

  // The kernarg segment, dispatch packet and queue stub live in memory the
  // launch owns, at fixed device addresses after options.kernargAddress.
  // Zero-padded to a multiple of 16 bytes, as the HSA runtimes allocate
  // kernarg segments (16-byte aligned, in 16-byte granules): LLVM merges the
  // last arguments' scalar loads into one s_load_dwordx4 that may read up to
  // that boundary (a 36-byte segment is read to byte 40), which is legal on
  // the hardware and must not be a fault here.
  std::vector<uint8_t> kernargCopy(kernargs);
  kernargCopy.resize(std::max<size_t>((kernargCopy.size() + 15) / 16 * 16, 16), 0);
  const uint64_t packetAddress = (options.kernargAddress + kernargCopy.size() + 63) & ~63ull;
  const uint64_t queueAddress = packetAddress + kDispatchPacketSize;
  std::vector<uint8_t> packet = dispatchPacket(*program, grid, workgroup, uint32_t(lds),
                                               options.kernargAddress);
  std::vector<uint8_t> queue(kQueueStubSize, 0);
  std::vector<EmuBuffer> all(buffers);
  all.push_back({options.kernargAddress, kernargCopy.data(), kernargCopy.size()});
  all.push_back({packetAddress, packet.data(), packet.size()});
  all.push_back({queueAddress, queue.data(), queue.size()});
  Result<GlobalMemory> memory = GlobalMemory::create(std::move(all));
  if (!memory.ok())
    return R::failure("launch buffers: " + memory.error());

  DispatchSetup setup;
  setup.program = program;
  setup.memory = &memory.value();
  setup.grid = grid;
  setup.workgroup = workgroup;
  setup.ldsBytes = uint32_t(lds);
  setup.kernargAddress = options.kernargAddress;
  setup.dispatchPacketAddress = packetAddress;
  setup.queueAddress = queueAddress;
  setup.maxInstructionsPerWave = options.maxInstructionsPerWave;
  setup.schedule = options.waveSchedule;
  Result<uint64_t> seed = scheduleSeed(options);
  if (!seed.ok())
    return seed.status();
  setup.scheduleSeed = seed.value();
  setup.checkMemoryCounters = options.checkMemoryCounters;
  setup.checkLdsRaces = options.checkLdsRaces;
  setup.timeline = options.timeline.enabled() ? &options.timeline : nullptr;
  setup.countsOnly = options.countsOnly;

  const uint64_t numGroups = workgroups;
  unsigned threads = options.threads ? options.threads : std::thread::hardware_concurrency();
  threads = unsigned(std::max<uint64_t>(1, std::min<uint64_t>(threads ? threads : 1, numGroups)));

  // Dispatch position -> linear workgroup id.
  std::vector<uint64_t> order;
  if (options.workgroupOrder != WorkgroupOrder::Forward) {
    order.resize(numGroups);
    for (uint64_t i = 0; i < numGroups; ++i)
      order[i] = options.workgroupOrder == WorkgroupOrder::Reverse ? numGroups - 1 - i : i;
    if (options.workgroupOrder == WorkgroupOrder::Shuffled) {
      std::mt19937_64 rng(options.workgroupOrderSeed);
      std::shuffle(order.begin(), order.end(), rng);
    }
  }
  std::atomic<uint64_t> next{0};
  std::mutex failureMutex;
  uint64_t failedGroup = UINT64_MAX;
  std::string failure;
  std::vector<WaveStats> perThread(threads);
  auto worker = [&](unsigned t) {
    while (true) {
      const uint64_t position = next.fetch_add(1);
      if (position >= numGroups)
        return;
      const uint64_t index = order.empty() ? position : order[position];
      {
        std::lock_guard<std::mutex> lock(failureMutex);
        if (index > failedGroup)
          continue; // a lower-numbered group already failed
      }
      const std::array<uint32_t, 3> id = {uint32_t(index % grid[0]),
                                          uint32_t((index / grid[0]) % grid[1]),
                                          uint32_t(index / (uint64_t(grid[0]) * grid[1]))};
      if (options.runsWorkgroup && !options.runsWorkgroup(id))
        continue;
      Status s = runWorkgroup(setup, id, perThread[t]);
      if (!s.ok()) {
        std::lock_guard<std::mutex> lock(failureMutex);
        if (index < failedGroup) {
          failedGroup = index;
          failure = s.message();
        }
      }
    }
  };
  if (threads == 1) {
    worker(0);
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back(worker, t);
    for (std::thread &thread : pool)
      thread.join();
  }
  if (failedGroup != UINT64_MAX)
    return R::failure(failure);

  LaunchStats stats;
  for (const WaveStats &w : perThread) {
    for (size_t f = 0; f < kNumFamilies; ++f)
      stats.instructionsByFamily[f] += w.byFamily[f];
    stats.globalBytesRead += w.globalBytesRead;
    stats.globalBytesWritten += w.globalBytesWritten;
    stats.ldsBytesRead += w.ldsBytesRead;
    stats.ldsBytesWritten += w.ldsBytesWritten;
    stats.mfmaCount += w.mfma;
    stats.peakVgprIndex = std::max(stats.peakVgprIndex, w.peakVgpr);
    stats.timelineCycles = std::max(stats.timelineCycles, w.timelineCycles);
  }
  stats.allocatedVgprs = program->descriptor.allocatedVgprs();
  stats.ldsBytes = setup.ldsBytes;
  stats.workgroups = numGroups;
  stats.waves = numGroups * ((items + kWaveSize - 1) / kWaveSize);
  return stats;
}

} // namespace mxf::emu
