//===- outcome.cpp - How a check of a mutant ended ------------------------===//

#include "bench/mutation/outcome.h"

namespace mxf::mutation {

const char *outcomeName(Outcome outcome) {
  switch (outcome) {
  case Outcome::Survived:
    return "survived";
  case Outcome::WrongBytes:
    return "wrong bytes";
  case Outcome::Counters:
    return "launch counters";
  case Outcome::OutOfBounds:
    return "out of bounds";
  case Outcome::RegisterRange:
    return "VGPR past allocation";
  case Outcome::Hazard:
    return "hazard";
  case Outcome::InstructionLimit:
    return "instruction limit";
  case Outcome::Refused:
    return "not modelled";
  case Outcome::LaunchError:
    return "other emulator error";
  case Outcome::Crash:
    return "crash";
  case Outcome::Timeout:
    return "timeout";
  }
  return "?";
}

Outcome classifyLaunchError(const std::string &message) {
  auto has = [&](const char *text) { return message.find(text) != std::string::npos; };
  if (has("wave exceeded"))
    return Outcome::InstructionLimit;
  if (has("uses unified VGPR") || has("past the allocated VGPRs"))
    return Outcome::RegisterRange;
  // The hazard model (docs/emulator.md, "Hazard model"): a register read or
  // overwritten before its s_waitcnt, an LDS race between waves.
  if (has("needs s_waitcnt") || has("LDS race"))
    return Outcome::Hazard;
  if (has("outside every registered buffer") || has("outside the LDS") || has("out of bounds") ||
      has("outside LDS") || has("kernarg") || has("is outside the workgroup's"))
    return Outcome::OutOfBounds;
  if (has("not modelled") || has("no semantics") || has("needs EXEC all ones") ||
      has("does not model"))
    return Outcome::Refused;
  return Outcome::LaunchError;
}

} // namespace mxf::mutation
