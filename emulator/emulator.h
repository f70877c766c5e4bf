//===- emulator.h - Public API of the gfx950 functional emulator -*- C++ -*-===//
//
// Runs AMD gfx950 (MI355X) code objects on the CPU, instruction by
// instruction, with the semantics of ../shared/docs/GFX950_SEMANTICS.md, so
// that every kernel we ship is executed and compared with numerics/ even where
// no AMD GPU exists (docs/emulator.md).
//
// Use: load a code object once (decodes every kernel with LLVM's MC
// disassembler), register the host buffers the kernel may touch under the
// device addresses the kernel arguments hold, then launch. Every global access
// outside the registered buffers, every instruction without semantics and
// every unsupported state is an error naming the instruction, the wave and,
// where it applies, the lane and the address; nothing is skipped silently.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_EMULATOR_EMULATOR_H
#define MXFORGE_EMULATOR_EMULATOR_H

#include "support/status.h"
#include "abi/kernel_info.h"

#include <array>
#include <functional>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mxf::emu {

/// Instruction families counted per launch (the grouping of
/// codeobj/instruction_families.h; scratch accesses count as vmem here).
enum class Family : uint8_t { Salu, Valu, Vmem, Smem, Lds, Mfma, CvtScaled, Branch, Other };
constexpr size_t kNumFamilies = 9;
/// "salu", "valu", "vmem", "smem", "lds", "mfma", "cvt-scaled", "branch", "other".
const char *familyName(Family family);

/// A host buffer seen by the kernel at [deviceAddress, deviceAddress + size).
struct EmuBuffer {
  uint64_t deviceAddress = 0;
  void *host = nullptr;
  size_t size = 0;
};

/// The costs a launch's timeline charges (emulator/timeline.h), in cycles;
/// all 0 (the default) turns the timeline off. The performance model
/// (bench/mi355x_model.h) owns the values.
struct TimelineCosts {
  uint32_t vectorIssue = 0;       // valu, vmem, lds, cvt-scaled, other
  uint32_t scalarIssue = 0;       // salu, smem, branch
  uint32_t mfmaIssue = 0;         // one matrix instruction
  uint32_t globalLatency = 0;     // vector memory: issue to data (or store done)
  uint32_t ldsLatency = 0;
  uint32_t scalarLoadLatency = 0;

  bool enabled() const {
    return vectorIssue || scalarIssue || mfmaIssue || globalLatency || ldsLatency ||
           scalarLoadLatency;
  }
  uint32_t issueCycles(Family family) const {
    switch (family) {
    case Family::Salu:
    case Family::Smem:
    case Family::Branch: return scalarIssue;
    case Family::Mfma: return mfmaIssue;
    default: return vectorIssue;
    }
  }
};

struct LaunchStats {
  /// Wave-instructions executed, by family (index = Family).
  std::array<uint64_t, kNumFamilies> instructionsByFamily{};
  uint64_t globalBytesRead = 0;    // vector and scalar loads, active lanes only
  uint64_t globalBytesWritten = 0;
  uint64_t ldsBytesRead = 0;
  uint64_t ldsBytesWritten = 0;
  uint64_t mfmaCount = 0;          // matrix instructions executed (per wave)
  uint64_t waves = 0;
  uint64_t workgroups = 0;
  /// Highest unified VGPR index (AGPRs after accum_offset) any executed
  /// instruction referenced, or -1 when none did.
  int32_t peakVgprIndex = -1;
  /// What occupancy depends on: the descriptor's unified VGPRs per lane and
  /// the workgroup's LDS (static + dynamic) bytes.
  uint32_t allocatedVgprs = 0;
  uint32_t ldsBytes = 0;
  /// With LaunchOptions::timeline: the slowest workgroup's time in cycles
  /// (emulator/timeline.h); 0 without.
  uint64_t timelineCycles = 0;

  uint64_t instructions() const;
  uint64_t count(Family family) const {
    return instructionsByFamily[static_cast<size_t>(family)];
  }
};

struct KernelProgram; // decoded kernel (emulator/program.h)

/// A code object with every kernel decoded, ready to launch many times.
/// Immutable after load: launches may run concurrently from several threads.
class LoadedCodeObject {
public:
  /// Reads the ELF, the metadata note and the kernel descriptors
  /// (codeobj/), then decodes each kernel's code once. A kernel whose code
  /// does not decode still loads; launching it returns the decode error.
  static Result<std::shared_ptr<const LoadedCodeObject>> load(const uint8_t *hsaco, size_t size);
  ~LoadedCodeObject();

  std::vector<KernelInfo> kernelInfos() const;
  /// nullptr when there is no such kernel.
  const KernelProgram *findKernel(const std::string &name) const;
  /// Mnemonic and text of each instruction of `kernel` that has no semantics
  /// in this emulator (empty when it can run entirely), for diagnostics.
  std::vector<std::string> unsupportedInstructions(const std::string &kernel) const;
  /// The decoded listing of a kernel (address, text), for debugging.
  std::string listing(const std::string &kernel) const;

private:
  LoadedCodeObject();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The order in which workgroups are handed to the worker threads. A
/// kernel whose result depends on it has a race between workgroups (two
/// writing one byte, or one reading what another writes): the determinism
/// tests run the same launch in every order and compare the bytes.
enum class WorkgroupOrder : uint8_t {
  Forward,  // linear workgroup id 0, 1, 2, ...
  Reverse,  // the last workgroup first
  Shuffled, // a permutation drawn from workgroupOrderSeed
};

/// How the waves of one workgroup take turns on the emulator's single thread.
/// On hardware they run concurrently: a correct kernel orders everything that
/// matters with s_barrier and s_waitcnt, so its results never depend on the
/// schedule, and the LDS race check reports a pair of accesses that only the
/// schedule would order (docs/emulator.md, "Hazard model").
enum class WaveSchedule : uint8_t {
  InOrder,  // wave 0 runs to its next barrier (or end), then wave 1, ...
  Reversed, // the same, the last wave first
  Random,   // a random ready wave for a random quantum of 1-16 instructions
};

/// The default scheduleSeed; the environment variable
/// MXFORGE_EMU_SCHEDULE_SEED (decimal or 0x hex) overrides any seed.
constexpr uint64_t kDefaultScheduleSeed = 0x5eed;

/// 2^24 workgroups: 256 times the largest grid an mxforge kernel needs
/// (quant_weight's 65,536 rows of workgroups at N = 2^20), and about 25 s of
/// workgroups that exit at once.
constexpr uint64_t kDefaultMaxWorkgroups = uint64_t(1) << 24;

struct LaunchOptions {
  /// Worker threads over workgroups; 0 = hardware concurrency. Results never
  /// depend on it.
  unsigned threads = 0;
  /// The order of the waves inside each workgroup. Random draws from
  /// scheduleSeed mixed with the workgroup id, so a launch is reproducible
  /// whatever the thread count; LDS race errors name the seed.
  WaveSchedule waveSchedule = WaveSchedule::Random;
  uint64_t scheduleSeed = kDefaultScheduleSeed;
  /// Memory counters (vmcnt, lgkmcnt): reading or overwriting a register
  /// before the s_waitcnt that covers its load is an error. Off only in tests
  /// of the check itself.
  bool checkMemoryCounters = true;
  /// LDS accesses of different waves not ordered by a barrier (and a wait
  /// before it) are an error. Off only in tests of the check itself.
  bool checkLdsRaces = true;
  WorkgroupOrder workgroupOrder = WorkgroupOrder::Forward;
  uint64_t workgroupOrderSeed = 0; // for WorkgroupOrder::Shuffled
  /// When set, only the workgroups (x, y, z) it accepts run; the others are
  /// skipped as if their grid positions were empty. For tests that sample a
  /// launch too large to emulate whole (they check the outputs of the
  /// workgroups that ran and that everything else stayed untouched).
  std::function<bool(const std::array<uint32_t, 3> &)> runsWorkgroup;
  /// Device address at which launch() places the kernarg segment (and, after
  /// it, the dispatch packet and queue stub when the kernel asks for them).
  /// Must not overlap a registered buffer.
  uint64_t kernargAddress = 0x7f0000000000ull;
  /// Stops a wave after this many instructions (a guard against kernels that
  /// never end); 0 = no limit.
  uint64_t maxInstructionsPerWave = 50'000'000;
  /// A launch of more workgroups (grid x * y * z) is refused before anything
  /// runs: a wrong grid (grid.y = 2^32 - 1 from an engine's packed launch)
  /// would otherwise keep the emulator busy for hours even when every
  /// workgroup exits at once. docs/emulator.md, "Limits".
  uint64_t maxWorkgroups = kDefaultMaxWorkgroups;
  /// Costs for the timeline (LaunchStats::timelineCycles); off by default.
  TimelineCosts timeline;
  /// For launches that only count (the performance model running a peer's
  /// code object): a kernel that flushes f32 denormals or rounds other than
  /// to nearest-even runs anyway, with the emulator's IEEE semantics, so its
  /// output bytes may differ from hardware's where those modes matter. The
  /// instruction stream of a kernel without data-dependent branches, and so
  /// every count, is the same. Never set where outputs are checked.
  bool countsOnly = false;
};

/// Runs `kernelName` over grid[0] x grid[1] x grid[2] workgroups of
/// workgroup[0] x workgroup[1] x workgroup[2] work-items, with `dynamicLds`
/// bytes of LDS beyond the kernel's static group segment and the given
/// kernarg bytes. The kernel may access exactly the registered buffers (and
/// its kernarg segment). Deterministic: workgroups run in parallel, but each
/// only touches its own LDS and registers, and the first error reported is
/// that of the lowest-numbered failing workgroup.
Result<LaunchStats> launch(const LoadedCodeObject &code, const std::string &kernelName,
                           const std::array<uint32_t, 3> &grid,
                           const std::array<uint32_t, 3> &workgroup, uint32_t dynamicLds,
                           const std::vector<uint8_t> &kernargs,
                           const std::vector<EmuBuffer> &buffers,
                           const LaunchOptions &options = LaunchOptions());

} // namespace mxf::emu

#endif // MXFORGE_EMULATOR_EMULATOR_H
