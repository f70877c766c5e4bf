//===- executor.cpp - Running the waves of one workgroup ------------------===//

#include "emulator/executor.h"

#include "emulator/operands.h"

#include <algorithm>

namespace mxf::emu {

namespace {

unsigned workitemsIn(const std::array<uint32_t, 3> &w) { return w[0] * w[1] * w[2]; }

/// What every SGPR (VCC and M0 included) and every VGPR a wave allocates
/// holds before the dispatch fills in its initial state. The hardware
/// promises nothing there (an earlier wave's values), so a kernel that
/// reads a register it never wrote must show it in its outputs rather than
/// read a convenient 0: the mutation bench found survivors, such as
/// `v_mov_b32 v19, 0` retargeted to v27, that only an initial 0 hid.
constexpr uint32_t kRegisterPoison = 0xE7E7E7E7u;

/// User and system SGPRs, in the order of §D. `wavesInGroup` feeds the
/// workgroup-info SGPR.
Status initScalarState(Wave &wave, const DispatchSetup &setup, const std::array<uint32_t, 3> &id,
                       unsigned wavesInGroup) {
  const codeobj::KernelDescriptor &kd = setup.program->descriptor;
  for (unsigned r = 0; r < sreg::kCount; ++r)
    if (r != sreg::kExec && r != sreg::kExec + 1)
      wave.s[r] = kRegisterPoison;
  unsigned next = 0;
  auto put64 = [&](uint64_t value) {
    wave.s[next++] = uint32_t(value);
    wave.s[next++] = uint32_t(value >> 32);
  };
  if (kd.enableSgprPrivateSegmentBuffer) // no scratch: a zero resource (checkDescriptorSupported)
    for (unsigned i = 0; i < 4; ++i)
      wave.s[next++] = 0;
  if (kd.enableSgprDispatchPtr)
    put64(setup.dispatchPacketAddress);
  if (kd.enableSgprQueuePtr)
    put64(setup.queueAddress);
  if (kd.enableSgprKernargSegmentPtr)
    put64(setup.kernargAddress);
  if (kd.enableSgprDispatchId)
    put64(0);
  if (kd.enableSgprFlatScratchInit)
    put64(0);
  if (kd.enableSgprPrivateSegmentSize)
    wave.s[next++] = 0;
  // Preloaded kernargs follow the enabled user SGPRs.
  if (kd.kernargPreloadLength > 0) {
    for (uint32_t i = 0; i < kd.kernargPreloadLength; ++i) {
      const uint64_t address = setup.kernargAddress + 4ull * (kd.kernargPreloadOffset + i);
      const uint8_t *p = setup.memory->translate(address, 4);
      if (!p)
        return Status::failure("kernarg preload reads past the kernarg segment");
      uint32_t value;
      std::memcpy(&value, p, 4);
      wave.s[next++] = value;
    }
  }
  if (next > kd.userSgprCount)
    return Status::failure("the descriptor enables " + std::to_string(next) +
                           " user SGPRs but USER_SGPR_COUNT is " +
                           std::to_string(kd.userSgprCount));
  // System SGPRs start right after USER_SGPR_COUNT.
  next = kd.userSgprCount;
  if (kd.enableWorkgroupIdX)
    wave.s[next++] = id[0];
  if (kd.enableWorkgroupIdY)
    wave.s[next++] = id[1];
  if (kd.enableWorkgroupIdZ)
    wave.s[next++] = id[2];
  if (kd.enableWorkgroupInfo) // {first_wave, ..., waves in the workgroup[5:0]}
    wave.s[next++] = (wave.waveInWorkgroup == 0 ? 0x80000000u : 0u) | (wavesInGroup & 0x3f);
  if (kd.enablePrivateSegment)
    wave.s[next++] = 0; // private segment wave offset
  return Status::success();
}

/// v0 (and, if the kernel asks, nothing else: gfx950 packs the IDs) plus EXEC.
void initVectorState(Wave &wave, const DispatchSetup &setup) {
  const codeobj::KernelDescriptor &kd = setup.program->descriptor;
  const auto &w = setup.workgroup;
  const unsigned total = workitemsIn(w);
  uint64_t exec = 0;
  uint32_t *v0 = wave.vgprLanes(0);
  for (unsigned lane = 0; lane < kWaveSize; ++lane) {
    const unsigned flat = wave.waveInWorkgroup * kWaveSize + lane;
    if (flat >= total)
      continue; // ragged last wave: lane inactive, v0 keeps the poison
    exec |= 1ull << lane;
    const uint32_t x = flat % w[0];
    const uint32_t y = (flat / w[0]) % w[1];
    const uint32_t z = flat / (w[0] * w[1]);
    uint32_t packed = x & 0x3ff;
    if (kd.enableVgprWorkitemId >= 1)
      packed |= (y & 0x3ff) << 10;
    if (kd.enableVgprWorkitemId >= 2)
      packed |= (z & 0x3ff) << 20;
    v0[lane] = packed;
  }
  wave.setExec(exec);
}

std::string where(const Wave &wave, const Instruction &inst) {
  const auto &id = wave.workgroup->id;
  return "instruction '" + inst.text + "' at " + hex(inst.address) + " (workgroup (" +
         std::to_string(id[0]) + "," + std::to_string(id[1]) + "," + std::to_string(id[2]) +
         "), wave " + std::to_string(wave.waveInWorkgroup) + ")";
}

/// Runs `wave` for at most `quantum` instructions, until it ends, reaches a
/// barrier or fails.
Status runWave(Wave &wave, const DispatchSetup &setup, uint64_t &executed, uint32_t quantum) {
  const std::vector<Instruction> &code = setup.program->instructions;
  LdsRaceDetector &races = wave.workgroup->races;
  for (; quantum > 0 && !wave.ended && !wave.atBarrier; --quantum) {
    if (wave.pc >= code.size())
      return Status::failure("wave " + std::to_string(wave.waveInWorkgroup) +
                             " ran past the end of the kernel's code without s_endpgm");
    const Instruction &inst = code[wave.pc];
    if (!inst.decodeProblem.empty())
      return Status::failure(where(wave, inst) + ": " + inst.decodeProblem);
    if (!inst.op)
      return Status::failure(where(wave, inst) + ": no semantics for '" + inst.opcodeName +
                             "' in the emulator (never skipped; see docs/emulator.md, "
                             "\"Adding an instruction\")");
    if (inst.maxVgpr >= int32_t(wave.allocatedVgprs))
      return Status::failure(where(wave, inst) + ": uses unified VGPR " +
                             std::to_string(inst.maxVgpr) + " but the kernel allocates " +
                             std::to_string(wave.allocatedVgprs));
    if (setup.maxInstructionsPerWave && ++executed > setup.maxInstructionsPerWave)
      return Status::failure(where(wave, inst) + ": wave exceeded " +
                             std::to_string(setup.maxInstructionsPerWave) + " instructions");
    // Not wrapped in where(): the message names both instructions, the wave
    // and the missing wait.
    if (setup.checkMemoryCounters && wave.counters.anyPending())
      if (Status s = wave.counters.checkOperands(wave, inst); !s.ok())
        return s;
    const MemoryCounter counter = counterOf(inst.family);
    if (counter == MemoryCounter::Lds && races.enabled())
      races.beginInstruction(wave.waveInWorkgroup, wave.pc, wave.counters.ldsIssued() + 1);
    wave.nextPc = wave.pc + 1;
    wave.count(inst.family);
    wave.stats.peakVgpr = std::max(wave.stats.peakVgpr, inst.maxVgpr);
    Status status = inst.op->handler(wave, inst);
    if (!status.ok())
      return Status::failure(where(wave, inst) + ": " + status.message());
    if (counter != MemoryCounter::None)
      wave.counters.issue(wave, inst, counter, wave.pc);
    if (wave.timelineCosts)
      wave.timeline.issue(inst.family, counter, *wave.timelineCosts);
    if (races.enabled() && (wave.atBarrier || wave.ended)) {
      const MemoryCounters &c = wave.counters;
      if (wave.atBarrier)
        races.arrive(wave.waveInWorkgroup, wave.pc, c.ldsIssued(), c.ldsRetired());
      else
        races.end(wave.waveInWorkgroup, wave.pc, c.ldsIssued(), c.ldsRetired());
    }
    wave.pc = wave.nextPc;
  }
  return Status::success();
}

/// splitmix64: the schedule's random numbers (fast, and the same on every
/// platform, unlike the standard distributions).
uint64_t nextRandom(uint64_t &state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::string describeSchedule(const DispatchSetup &setup) {
  switch (setup.schedule) {
  case WaveSchedule::InOrder: return "wave schedule in-order";
  case WaveSchedule::Reversed: return "wave schedule reversed";
  default:
    return "wave schedule random, seed " + std::to_string(setup.scheduleSeed) +
           " (MXFORGE_EMU_SCHEDULE_SEED=" + std::to_string(setup.scheduleSeed) + " replays it)";
  }
}

/// Runs the waves in turns until every one has ended. A wave that waits at
/// the barrier is not ready; when no wave is ready the barrier is released
/// (waves that ended no longer count, as on hardware).
Status scheduleWaves(std::vector<Wave> &waves, const DispatchSetup &setup,
                     const std::array<uint32_t, 3> &id) {
  const unsigned numWaves = unsigned(waves.size());
  std::vector<uint64_t> executed(numWaves, 0);
  std::vector<unsigned> ready;
  ready.reserve(numWaves);
  const uint64_t linearId =
      id[0] + uint64_t(setup.grid[0]) * (id[1] + uint64_t(setup.grid[1]) * id[2]);
  uint64_t rng = setup.scheduleSeed ^ (linearId * 0xd1b54a32d192ed03ull);
  Workgroup &group = *waves[0].workgroup;
  while (true) {
    ready.clear();
    for (unsigned i = 0; i < numWaves; ++i)
      if (!waves[i].ended && !waves[i].atBarrier)
        ready.push_back(i);
    if (ready.empty()) {
      bool released = false;
      uint64_t lastArrival = 0; // the timeline's release cycle
      for (const Wave &wave : waves)
        if (wave.atBarrier)
          lastArrival = std::max(lastArrival, wave.timeline.now());
      for (Wave &wave : waves)
        if (wave.atBarrier) {
          wave.atBarrier = false;
          wave.timeline.releaseAt(lastArrival);
          released = true;
        }
      if (!released)
        return Status::success();
      if (group.races.enabled())
        group.races.releaseBarrier();
      continue;
    }
    unsigned pick;
    uint32_t quantum = UINT32_MAX;
    switch (setup.schedule) {
    case WaveSchedule::InOrder: pick = ready.front(); break;
    case WaveSchedule::Reversed: pick = ready.back(); break;
    default: {
      const uint64_t r = nextRandom(rng);
      pick = ready[(r >> 8) % ready.size()];
      quantum = 1 + uint32_t(r & 15);
      break;
    }
    }
    if (Status s = runWave(waves[pick], setup, executed[pick], quantum); !s.ok())
      return s;
  }
}

} // namespace

Status checkDescriptorSupported(const KernelProgram &program, bool countsOnly) {
  const codeobj::KernelDescriptor &kd = program.descriptor;
  const std::string name = "kernel '" + program.info.name + "': ";
  if (kd.enableWavefrontSize32)
    return Status::failure(name + "wave32 is not gfx950");
  if (kd.privateSegmentFixedSize != 0 || kd.usesDynamicStack)
    return Status::failure(name + "uses scratch (private segment " +
                           std::to_string(kd.privateSegmentFixedSize) +
                           " bytes), which the emulator does not model");
  if ((kd.floatRoundMode32 != 0 || kd.floatRoundMode16_64 != 0) && !countsOnly)
    return Status::failure(name + "sets a rounding mode other than round-to-nearest-even");
  if (kd.floatDenormMode32 != 3 && !countsOnly)
    return Status::failure(name + "flushes f32 denormals (FLOAT_DENORM_MODE_32=" +
                           std::to_string(kd.floatDenormMode32) +
                           "), which the emulator does not model");
  if (kd.accumOffset() > kd.allocatedVgprs())
    return Status::failure(name + "accum_offset beyond the allocated VGPRs");
  return Status::success();
}

/// What every byte of a workgroup's LDS holds before its first wave runs.
constexpr uint8_t kLdsPoison = 0xE7;

Status runWorkgroup(const DispatchSetup &setup, const std::array<uint32_t, 3> &id,
                    WaveStats &stats) {
  const KernelProgram &program = *setup.program;
  Workgroup group;
  group.id = id;
  // LDS starts as garbage on the hardware (a previous workgroup's data): a
  // poison pattern, so that a kernel reading LDS it did not write shows
  // it in its outputs instead of reading convenient zeros.
  group.lds.assign(setup.ldsBytes, kLdsPoison);
  const unsigned total = workitemsIn(setup.workgroup);
  const unsigned numWaves = (total + kWaveSize - 1) / kWaveSize;
  std::vector<Wave> waves(numWaves);
  for (unsigned i = 0; i < numWaves; ++i) {
    Wave &wave = waves[i];
    wave.program = &program;
    wave.workgroup = &group;
    wave.memory = setup.memory;
    wave.waveInWorkgroup = i;
    wave.allocatedVgprs = program.descriptor.allocatedVgprs();
    wave.accumOffset = program.descriptor.accumOffset();
    wave.timelineCosts = setup.timeline;
    wave.countsOnly = setup.countsOnly;
    wave.v.assign(size_t(wave.allocatedVgprs) * kWaveSize, kRegisterPoison);
    if (Status s = initScalarState(wave, setup, id, numWaves); !s.ok())
      return Status::failure("kernel '" + program.info.name + "': " + s.message());
    initVectorState(wave, setup);
  }
  if (setup.checkLdsRaces && setup.ldsBytes > 0)
    group.races.enable(setup.ldsBytes, numWaves, &program.instructions, describeSchedule(setup));
  if (Status s = scheduleWaves(waves, setup, id); !s.ok())
    return s;
  for (const Wave &wave : waves) {
    for (size_t f = 0; f < kNumFamilies; ++f)
      stats.byFamily[f] += wave.stats.byFamily[f];
    stats.globalBytesRead += wave.stats.globalBytesRead;
    stats.globalBytesWritten += wave.stats.globalBytesWritten;
    stats.ldsBytesRead += wave.stats.ldsBytesRead;
    stats.ldsBytesWritten += wave.stats.ldsBytesWritten;
    stats.mfma += wave.stats.mfma;
    stats.peakVgpr = std::max(stats.peakVgpr, wave.stats.peakVgpr);
  }
  stats.timelineCycles = std::max(
      stats.timelineCycles,
      workgroupCycles(waves, [](const Wave &wave) -> const WaveTimeline & { return wave.timeline; }));
  return Status::success();
}

} // namespace mxf::emu
