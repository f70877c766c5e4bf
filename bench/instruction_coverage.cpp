//===- instruction_coverage.cpp - Which instructions the witness checks ----===//
//
// docs/emulator.md's table of supported instructions: for each mnemonic the
// emulator gives semantics to, whether our own kernels use it (a spread of
// specs over every family, format, rotation and layout, compiled here) and
// whether a witness-corpus code object does (tests/witness/corpus: Triton's
// code, whose outputs are compared with an H200's). Static presence in the
// code, not dynamic counts. Also lists what the corpus or our kernels use
// that has no semantics (must be empty: the emulator would stop there).
//
//   instruction_coverage [CORPUS_DIR]   (default: the source tree's corpus)
//
// Its output is docs/emulator_instructions.md (below the heading).
//
//===----------------------------------------------------------------------===//

#include "compiler/compiler.h"
#include "emulator/emulator.h"
#include "emulator/opcode_table.h"
#include "emulator/program.h"
#include "spec/kernel_spec.h"
#include "support/file_io.h"
#include "support/json.h"

#include <fmt/core.h>

#include <map>
#include <set>

namespace {

using namespace mxf;

/// Our kernels: one or more specs per feature the templates branch on.
const char *const kOurSpecs[] = {
    "rotate_quant:K=4096,RS=64,rot=hadamard,M=16,scale=even",
    "rotate_quant:K=4096,RS=32,rot=hadamard_butterfly,M=16,scale=even",
    "rotate_quant:K=4096,RS=128,rot=learned,M=16,scale=rceil,layout=a4w4_shuffle",
    "rotate_quant:K=8192,RS=256,rot=hadamard,M=16,scale=floor",
    "rotate_quant:K=4096,RS=0,M=64,scale=even",
    "rotate_quant:K=2048,RS=64,M=16,fmt=fp6_e2m3",
    "rotate_quant:K=2048,RS=64,M=16,fmt=fp8_e4m3,round=sr",
    "rotate_quant:K=2048,RS=32,M=16,fmt=fp6_e2m3,scale=a6w6,round=rna",
    "rotate_quant:K=2048,RS=64,M=16,select=mask,layers=36",
    "rotate_quant_moe:K=2048,RS=128,M=16,topk=8,E=128",
    "rotate_quant_gemm:K=4096,N=4096,RS=64,M=16",
    "rotate_quant_gemm:K=4096,N=4096,RS=64,M=16,fmt=fp6_e2m3",
    "quant_weight:K=4096,N=256,RS=64",
    "quant_weight:K=4096,N=256,RS=64,fmt=fp6_e2m3",
};

using Uses = std::map<std::string, std::set<std::string>>; // mnemonic -> users

void addUses(const std::vector<uint8_t> &hsaco, const std::string &user, Uses &uses,
             Uses &unsupported) {
  Result<std::shared_ptr<const emu::LoadedCodeObject>> code =
      emu::LoadedCodeObject::load(hsaco.data(), hsaco.size());
  if (!code.ok()) {
    fmt::print(stderr, "{}: {}\n", user, code.error());
    return;
  }
  for (const KernelInfo &info : code.value()->kernelInfos()) {
    const emu::KernelProgram *program = code.value()->findKernel(info.name);
    for (const emu::Instruction &inst : program->instructions) {
      if (inst.op)
        uses[inst.op->mnemonic].insert(user);
      else
        unsupported[emu::baseMnemonic(inst.opcodeName)].insert(user);
    }
  }
}

} // namespace

int main(int argc, char **argv) {
  const std::string corpus = argc > 1 ? argv[1] : MXFORGE_WITNESS_CORPUS;
  Uses ours, corpusUses, unsupported;
  for (const char *text : kOurSpecs) {
    Result<KernelSpec> spec = parseSpec(text);
    Result<CodeObject> code = spec.ok() ? compileSpec(spec.value(), {}) : spec.status();
    if (!code.ok()) {
      fmt::print(stderr, "error: {}: {}\n", text, code.error());
      return 1;
    }
    addUses(code.value().hsaco, text, ours, unsupported);
  }
  Result<std::vector<uint8_t>> manifest = readFileBytes(corpus + "/MANIFEST.json", 1u << 20);
  if (!manifest.ok()) {
    fmt::print(stderr, "error: {}\n", manifest.error());
    return 1;
  }
  Result<json::Value> root = json::parse(std::string_view(
      reinterpret_cast<const char *>(manifest.value().data()), manifest.value().size()));
  const json::Value *cases = root.ok() ? root.value().find("cases") : nullptr;
  size_t corpusCases = 0;
  for (const json::Value &c : cases ? cases->items : std::vector<json::Value>{}) {
    Result<std::vector<uint8_t>> hsaco =
        readFileBytes(corpus + "/" + c.text + "/kernel.hsaco", 64u << 20);
    if (!hsaco.ok()) {
      fmt::print(stderr, "error: {}\n", hsaco.error());
      return 1;
    }
    addUses(hsaco.value(), c.text, corpusUses, unsupported);
    ++corpusCases;
  }
  const std::vector<std::string> all = emu::opRegistry().mnemonics();
  size_t usedByUs = 0, crossChecked = 0, both = 0;
  fmt::print("| instruction | ours ({} kernels) | witness corpus ({} cases) |\n|---|---|---|\n",
             std::size(kOurSpecs), corpusCases);
  for (const std::string &m : all) {
    const size_t a = ours.count(m) ? ours[m].size() : 0;
    const size_t b = corpusUses.count(m) ? corpusUses[m].size() : 0;
    usedByUs += a > 0;
    crossChecked += b > 0;
    both += a > 0 && b > 0;
    fmt::print("| `{}` | {} | {} |\n", m, a ? fmt::format("yes ({})", a) : "no",
               b ? fmt::format("yes ({})", b) : "no");
  }
  fmt::print("\n{} mnemonics have semantics; {} appear in our kernels, {} in the corpus, {} in "
             "both; {} in neither (implemented for completeness, checked only by unit tests)\n",
             all.size(), usedByUs, crossChecked, both, all.size() - usedByUs - crossChecked + both);
  if (!unsupported.empty()) {
    fmt::print("\nwithout semantics (the emulator stops at these):\n");
    for (const auto &[m, users] : unsupported)
      fmt::print("  {} ({} code objects, e.g. {})\n", m, users.size(), *users.begin());
    return 1;
  }
  return 0;
}
