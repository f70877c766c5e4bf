//===- family_checks.h - Each family's e2e check, on any code object -*- C++ -*-===//
//
// The end-to-end check of one family (tests/e2e), run on a given code
// object: the compiled kernel or a mutant of it. Each family draws its
// inputs once, from the seed, through the same helpers as its matrix suite
// (drawInputs / drawMoeInputs / drawGemmInputs / drawWeights), at two m
// values and two seeds; the GEMM, the MoE and quant_weight also run in two
// workgroup orders, as their suites do. A run launches through the same code
// (runAndCheck / launchMoe / launchGemm / launchWeights) and compares every
// byte with the reference the suite uses; the first failing run decides.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_BENCH_MUTATION_FAMILY_CHECKS_H
#define MXFORGE_BENCH_MUTATION_FAMILY_CHECKS_H

#include "bench/mutation/outcome.h"
#include "abi/code_object.h"
#include "support/status.h"
#include "runtime/emu_device.h"
#include "spec/kernel_spec.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mxf::mutation {

enum class Family : uint8_t { RotateQuant, Moe, Gemm, QuantWeight };
constexpr size_t kNumFamilies = 4;
const char *familyName(Family family);

/// What the runs of one check measured: for the instruction limit and the
/// barrier rule.
struct RunFacts {
  uint64_t maxInstructionsPerWave = 0; // the largest launch-average instructions per wave
  uint32_t minWavesPerWorkgroup = ~0u, maxWavesPerWorkgroup = 0;
  unsigned launches = 0;
};

class FamilyCheck {
public:
  virtual ~FamilyCheck() = default;
  Family family() const { return family_; }
  const KernelSpec &spec() const { return spec_; }
  const CodeObject &code() const { return code_; }
  /// "m=3,16 x seeds 2 x orders forward,shuffled", for the report.
  virtual std::string plan() const = 0;
  /// Runs every run on `hsaco` (the compiled code object or a mutant) with
  /// `device` (threads, instruction limit); stops at the first failure.
  virtual Verdict check(const std::vector<uint8_t> &hsaco, const runtime::EmuDeviceOptions &device,
                        RunFacts *facts = nullptr) const = 0;

  FamilyCheck(Family family, KernelSpec spec, CodeObject code)
      : family_(family), spec_(std::move(spec)), code_(std::move(code)) {}

protected:
  Family family_;
  KernelSpec spec_;
  CodeObject code_;
};

/// Compiles `specText` in process and draws the family's inputs and
/// references from `seed`.
Result<std::unique_ptr<FamilyCheck>> makeFamilyCheck(Family family, const std::string &specText,
                                                     uint64_t seed);

} // namespace mxf::mutation

#endif // MXFORGE_BENCH_MUTATION_FAMILY_CHECKS_H
