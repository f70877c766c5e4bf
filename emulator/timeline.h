//===- timeline.h - A wave's latency clock, for the performance model -*- C++ -*-===//
//
// The emulator performs every access at issue and has no notion of time.
// For the MI355X estimate (bench/mi355x_model.h, docs/estimate.md) a launch
// may ask for a *timeline*: each wave keeps a clock in cycles that advances
// by an issue cost per instruction; each memory instruction's data is due a
// fixed latency after it issued; s_waitcnt moves the clock to the due time of
// the newest operation it retires, and a barrier's release moves every
// waiting wave's clock to the latest among them. A workgroup's time is its
// slowest wave's clock at the end, once its last stores are due.
//
// That is the critical path of one workgroup alone on a CU, with one
// contention counted: a CU has four SIMDs, and wave i of a workgroup issues
// on SIMD i % 4, so a workgroup of more than four waves takes at least the
// issue cycles of its busiest SIMD's waves, one after another
// (workgroupCycles). Bandwidth is not contended here (the model bounds it
// separately, from the counts), and a software pipeline that keeps several
// loads in flight is credited for it, which a count of waits could not do. It reads the same
// vmcnt/lgkmcnt rules as the hazard check (hazards.h): vector memory and LDS
// retire in order, scalar loads all at lgkmcnt(0).
//
// Off (all costs 0) unless a launch asks; the costs are the model's, passed
// in, so no constant about MI355X lives in the emulator.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_EMULATOR_TIMELINE_H
#define MXFORGE_EMULATOR_TIMELINE_H

#include "emulator/emulator.h"
#include "emulator/hazards.h"

#include <algorithm>
#include <cstdint>
#include <deque>

namespace mxf::emu {

class WaveTimeline {
public:
  /// After an instruction of `family` issued; `counter` is its memory
  /// counter (None for the others).
  void issue(Family family, MemoryCounter counter, const TimelineCosts &costs) {
    const uint32_t cycles = costs.issueCycles(family);
    clock_ += cycles;
    issued_ += cycles;
    switch (counter) {
    case MemoryCounter::Vm: vmDue_.push_back(clock_ + costs.globalLatency); break;
    case MemoryCounter::Lds: ldsDue_.push_back(clock_ + costs.ldsLatency); break;
    case MemoryCounter::Smem: smemDue_ = std::max(smemDue_, clock_ + costs.scalarLoadLatency); break;
    default: break;
    }
  }

  /// s_waitcnt vmcnt(vm) lgkmcnt(lgkm).
  void wait(unsigned vm, unsigned lgkm) {
    retire(vmDue_, vm);
    retire(ldsDue_, lgkm);
    if (lgkm == 0)
      clock_ = std::max(clock_, smemDue_);
  }

  /// A barrier released at `cycle` (the latest arrival in the workgroup).
  void releaseAt(uint64_t cycle) { clock_ = std::max(clock_, cycle); }
  uint64_t now() const { return clock_; }
  /// The cycles its instructions occupied its SIMD, waits excluded.
  uint64_t issued() const { return issued_; }
  /// The wave's end: its clock, or later while stores are still due.
  uint64_t finish() const {
    return vmDue_.empty() ? clock_ : std::max(clock_, vmDue_.back());
  }

private:
  void retire(std::deque<uint64_t> &due, unsigned leftOutstanding) {
    while (due.size() > leftOutstanding) {
      clock_ = std::max(clock_, due.front());
      due.pop_front();
    }
  }

  uint64_t clock_ = 0, issued_ = 0;
  std::deque<uint64_t> vmDue_, ldsDue_;
  uint64_t smemDue_ = 0;
};

/// SIMDs per compute unit (CDNA3/CDNA4: four, each with its own issue).
constexpr unsigned kSimdsPerCu = 4;

/// A workgroup's time: its slowest wave's end, and at least the issue
/// cycles of the waves that share its busiest SIMD (wave i on SIMD i % 4).
template <typename Waves, typename TimelineOf>
uint64_t workgroupCycles(const Waves &waves, TimelineOf timelineOf) {
  uint64_t slowest = 0, simd[kSimdsPerCu] = {};
  size_t i = 0;
  for (const auto &wave : waves) {
    const WaveTimeline &timeline = timelineOf(wave);
    slowest = std::max(slowest, timeline.finish());
    simd[i++ % kSimdsPerCu] += timeline.issued();
  }
  for (uint64_t busy : simd)
    slowest = std::max(slowest, busy);
  return slowest;
}

} // namespace mxf::emu

#endif // MXFORGE_EMULATOR_TIMELINE_H
