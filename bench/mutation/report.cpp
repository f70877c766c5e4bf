//===- report.cpp - The mutation table, the missed survivors, JSON --------===//

#include "bench/mutation/report.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <cstdio>
#include <map>

namespace mxf::mutation {

void FamilyResult::add(MutantResult result) {
  ClassTally &t = classes[size_t(result.mutation.cls)];
  ++t.mutants;
  ++t.byOutcome[size_t(result.verdict.outcome)];
  if (result.verdict.caught())
    ++t.caught;
  else if (!result.equivalence.empty())
    ++t.equivalent;
  else if (!result.argued.empty())
    ++t.argued;
  else {
    ++t.missed;
    t.missedNeverRun += !result.executed;
  }
  mutants.push_back(std::move(result));
}

namespace {

constexpr double kTarget = 0.99;

std::string percent(const ClassTally &t) {
  return t.mutants == t.equivalent + t.argued ? "-" : fmt::format("{:.1f}%", 100 * t.score());
}
std::string provedPercent(const ClassTally &t) {
  return t.mutants == t.equivalent ? "-" : fmt::format("{:.1f}%", 100 * t.provedScore());
}

std::string jsonString(const std::string &text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\')
      out += '\\', out += char(c);
    else if (c < 0x20)
      out += fmt::format("\\u{:04x}", c);
    else
      out += char(c);
  }
  return out + "\"";
}

} // namespace

void printReport(const Report &report) {
  fmt::print("\n{:<18} {:<12} {:>7} {:>6} {:>8} {:>6} {:>6} {:>6} {:>8} {:>7} {:>7}\n", "family",
             "class", "mutants", "caught", "survived", "equiv", "argued", "missed", "(not run)",
             "score", "proved");
  bool met = true;
  std::string worst;
  double worstScore = 2;
  for (const FamilyResult &f : report.families) {
    ClassTally total;
    for (size_t c = 0; c < kNumClasses; ++c) {
      const ClassTally &t = f.classes[c];
      total.mutants += t.mutants;
      total.caught += t.caught;
      total.equivalent += t.equivalent;
      total.argued += t.argued;
      total.missed += t.missed;
      total.missedNeverRun += t.missedNeverRun;
      if (t.mutants == 0) {
        fmt::print("{:<18} {:<12} {:>7}   (none in the kernel)\n", familyName(f.family),
                   className(MutationClass(c)), 0);
        continue;
      }
      fmt::print("{:<18} {:<12} {:>7} {:>6} {:>8} {:>6} {:>6} {:>6} {:>8} {:>7} {:>7}\n",
                 familyName(f.family), className(MutationClass(c)), t.mutants, t.caught,
                 t.mutants - t.caught, t.equivalent, t.argued, t.missed, t.missedNeverRun,
                 percent(t), provedPercent(t));
      if (t.mutants > t.equivalent + t.argued && t.score() < kTarget) {
        met = false;
        if (t.score() < worstScore) {
          worstScore = t.score();
          worst = fmt::format("{} {} at {}", familyName(f.family), className(MutationClass(c)),
                              percent(t));
        }
      }
    }
    fmt::print("{:<18} {:<12} {:>7} {:>6} {:>8} {:>6} {:>6} {:>6} {:>8} {:>7} {:>7}\n",
               familyName(f.family), "all", total.mutants, total.caught,
               total.mutants - total.caught, total.equivalent, total.argued, total.missed,
               total.missedNeverRun, percent(total), provedPercent(total));
  }
  fmt::print("\ntarget: >= 99% of non-equivalent mutants caught in every family and every class "
             "(score: survivors proved equivalent or explained in {} left out; proved: only "
             "the proofs left out): {}\n",
             report.arguedPath.empty() ? "no argued list" : report.arguedPath,
             met ? "met" : "NOT met (lowest: " + worst + ")");

  // How the caught mutants were caught, and what was sampled.
  fmt::print("\ncaught by (all classes):\n{:<18}", "family");
  for (size_t k = 1; k < kNumOutcomes; ++k)
    fmt::print(" {:>10.10}", outcomeName(Outcome(k)));
  fmt::print("\n");
  for (const FamilyResult &f : report.families) {
    fmt::print("{:<18}", familyName(f.family));
    for (size_t k = 1; k < kNumOutcomes; ++k) {
      size_t n = 0;
      for (const ClassTally &t : f.classes)
        n += t.byOutcome[k];
      fmt::print(" {:>10}", n);
    }
    fmt::print("\n");
  }
  fmt::print("\nsampling (classes a-d): sites, unused-field sites left out, candidates tried, "
             "dropped as undecodable / other size or opcode / no emulator semantics\n");
  for (const FamilyResult &f : report.families)
    for (size_t c = 0; c < 4; ++c) {
      const SampleStats &s = f.classes[c].sampling;
      fmt::print("  {:<18} {:<12} sites {:>5} unused {:>5} tried {:>5} dropped {:>4} / {:>4} / "
                 "{:>4}\n",
                 familyName(f.family), className(MutationClass(c)), s.sites, s.unusedFieldSites,
                 s.tried, s.undecodable, s.otherSize, s.noSemantics);
    }

  fmt::print("\nper family: kernel, instructions, blocks the check never runs, check plan, "
             "instruction limit, time\n");
  for (const FamilyResult &f : report.families)
    fmt::print("  {}: {} instructions, {} of {} blocks never run ({} instructions), {} "
               "waves/workgroup, limit {} per wave, {:.0f} s\n    {}\n",
               f.kernel, f.instructions, f.blocksNeverRun, f.blocks, f.instructionsNeverRun,
               f.facts.maxWavesPerWorkgroup, f.instructionLimit, f.seconds, f.plan);

  std::map<std::string, size_t> rules;
  for (const FamilyResult &f : report.families)
    for (const MutantResult &m : f.mutants)
      if (!m.equivalence.empty())
        ++rules[m.equivalence];
  fmt::print("\nequivalent by construction:");
  for (const auto &[rule, n] : rules)
    fmt::print(" {} {};", rule, n);
  std::map<std::string, size_t> argued;
  size_t stale = 0;
  for (const FamilyResult &f : report.families)
    for (const MutantResult &m : f.mutants) {
      if (!m.argued.empty())
        ++argued[m.argued];
      if (m.staleArgument) {
        if (stale++ == 0)
          fmt::print("\nargued entries whose mutant is now caught (remove them):\n");
        fmt::print("  {:<18} {} -> {}\n", familyName(f.family), m.instruction.text,
                   m.mutation.mutatedText);
      }
    }
  fmt::print("\nexplained by an argument (kinds of {}):", report.arguedPath);
  for (const auto &[kind, n] : argued)
    fmt::print(" {} {};", kind, n);
  fmt::print("\n\nmissed survivors (each should become a test or a check):\n");
  size_t missed = 0;
  for (const FamilyResult &f : report.families)
    for (const MutantResult &m : f.mutants)
      if (m.missed()) {
        ++missed;
        fmt::print("  {:<18} {:<12} 0x{:04x}  {}\n{:>38}-> {}   [{}{}]\n", familyName(f.family),
                   className(m.mutation.cls), m.instruction.address, m.instruction.text, "",
                   m.mutation.mutatedText, m.mutation.what,
                   m.executed ? "" : "; never run by the check");
      }
  if (missed == 0)
    fmt::print("  none\n");
  fmt::print("\ntotal time {:.0f} s\n", report.seconds);
}

Status writeJson(const Report &report, const std::string &path) {
  std::FILE *file = std::fopen(path.c_str(), "w");
  if (!file)
    return Status::failure("cannot write " + path);
  fmt::print(file,
             "{{\"seed\": {}, \"per_class\": {}, \"threads\": {}, \"limit_factor\": {}, "
             "\"label\": {}, \"seconds\": {:.1f}, \"families\": [",
             report.seed, report.perClass, report.threads, report.limitFactor,
             jsonString(report.label), report.seconds);
  for (size_t fi = 0; fi < report.families.size(); ++fi) {
    const FamilyResult &f = report.families[fi];
    fmt::print(file,
               "{}\n {{\"family\": {}, \"spec\": {}, \"kernel\": {}, \"plan\": {}, "
               "\"instructions\": {}, \"instruction_limit\": {}, \"blocks\": {}, "
               "\"blocks_never_run\": {}, \"seconds\": {:.1f}, \"classes\": {{",
               fi ? "," : "", jsonString(familyName(f.family)), jsonString(f.spec),
               jsonString(f.kernel), jsonString(f.plan), f.instructions, f.instructionLimit,
               f.blocks, f.blocksNeverRun, f.seconds);
    for (size_t c = 0; c < kNumClasses; ++c) {
      const ClassTally &t = f.classes[c];
      fmt::print(file,
                 "{}{}: {{\"mutants\": {}, \"caught\": {}, \"equivalent\": {}, "
                 "\"argued\": {}, \"missed\": {}, \"missed_never_run\": {}, \"score\": {:.4f}, "
                 "\"proved_score\": {:.4f}, \"by_outcome\": {{",
                 c ? ", " : "", jsonString(classKey(MutationClass(c))), t.mutants, t.caught,
                 t.equivalent, t.argued, t.missed, t.missedNeverRun, t.score(), t.provedScore());
      bool first = true;
      for (size_t k = 0; k < kNumOutcomes; ++k)
        if (t.byOutcome[k]) {
          fmt::print(file, "{}{}: {}", first ? "" : ", ", jsonString(outcomeName(Outcome(k))),
                     t.byOutcome[k]);
          first = false;
        }
      fmt::print(file, "}}}}");
    }
    fmt::print(file, "}}, \"mutants\": [");
    for (size_t i = 0; i < f.mutants.size(); ++i) {
      const MutantResult &m = f.mutants[i];
      fmt::print(file,
                 "{}\n  {{\"class\": {}, \"address\": {}, \"original\": {}, \"mutated\": {}, "
                 "\"what\": {}, \"outcome\": {}, \"equivalence\": {}, \"argued\": {}, "
                 "\"executed\": {}, \"detail\": {}}}",
                 i ? "," : "", jsonString(classKey(m.mutation.cls)), m.instruction.address,
                 jsonString(m.instruction.text), jsonString(m.mutation.mutatedText),
                 jsonString(m.mutation.what), jsonString(outcomeName(m.verdict.outcome)),
                 jsonString(m.equivalence), jsonString(m.argued), m.executed ? "true" : "false",
                 jsonString(m.verdict.detail.substr(0, 400)));
    }
    fmt::print(file, "]}}");
  }
  fmt::print(file, "\n]}}\n");
  const bool ok = std::fclose(file) == 0;
  return ok ? Status::success() : Status::failure("cannot write " + path);
}

} // namespace mxf::mutation
