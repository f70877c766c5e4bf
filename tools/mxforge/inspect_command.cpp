//===- inspect_command.cpp - mxforge inspect: what a code object holds ----===//
//
// Prints, per kernel of a gfx950 code object: arguments, kernarg size,
// registers, LDS, scratch, workgroup size, occupancy and its limiting factor,
// the instruction count and mix by family, and warnings for scratch use and
// spills; --disasm adds the disassembly. docs/inspect.md describes the
// output. The file's kind is recognised by its first bytes (kFileKinds): a
// code object (ELF) is reported here, an AOT bundle by inspect_bundle.cpp.
//
//===----------------------------------------------------------------------===//

#include "tools/mxforge/inspect_command.h"

#include "codeobj/kernel_summary.h"
#include "tools/mxforge/cli_support.h"
#include "tools/mxforge/commands.h"
#include "tools/mxforge/inspect_bundle.h"
#include "support/file_io.h"
#include "tools/mxforge/text_table.h"

#include "llvm/Support/Path.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace mxf::cli {
namespace {

/// The largest file inspect reads: bundles of a whole model are megabytes.
constexpr uint64_t kMaxInspectedFileBytes = uint64_t(1) << 30;

namespace cl = llvm::cl;
using namespace mxf::codeobj;

cl::SubCommand inspectCommand("inspect", "Show the kernels of a gfx950 code object or an mxforge "
                                         "bundle: registers, occupancy, instruction mix, scratch "
                                         "use");

cl::list<std::string> fileArgs(cl::Positional, cl::sub(inspectCommand), cl::desc("<file>..."),
                               cl::cat(mxforgeCategory()));
cl::opt<bool> disasmFlag("disasm", cl::sub(inspectCommand),
                         cl::desc("Also print each kernel's disassembly"),
                         cl::cat(mxforgeCategory()));
cl::opt<bool> kernelsFlag("kernels", cl::sub(inspectCommand),
                          cl::desc("For a bundle, also report each code object it holds in full"),
                          cl::cat(mxforgeCategory()));

int runSelected(llvm::raw_ostream &out, llvm::raw_ostream &err) {
  InspectOptions options;
  options.files.assign(fileArgs.begin(), fileArgs.end());
  options.disassembly = disasmFlag;
  options.kernels = kernelsFlag;
  return runInspect(options, out, err);
}

std::string indent(const std::string &text, const char *prefix) {
  std::string out;
  llvm::StringRef rest(text);
  while (!rest.empty()) {
    auto [line, tail] = rest.split('\n');
    out += prefix;
    out += line.str();
    out += '\n';
    rest = tail;
  }
  return out;
}

std::string plural(size_t count, const char *singular, const char *pluralForm) {
  return std::to_string(count) + " " + (count == 1 ? singular : pluralForm);
}

bool isHidden(const KernelArgInfo &arg) {
  return llvm::StringRef(arg.valueKind).starts_with("hidden_");
}

void printArguments(const KernelInfo &info, llvm::raw_ostream &out) {
  TextTable table;
  table.addColumn("#");
  table.addColumn("name", TextTable::Align::Left);
  table.addColumn("kind", TextTable::Align::Left);
  table.addColumn("offset");
  table.addColumn("size");
  size_t hidden = 0;
  uint64_t hiddenBegin = UINT64_MAX, hiddenEnd = 0;
  for (const KernelArgInfo &arg : info.args) {
    if (isHidden(arg)) {
      ++hidden;
      hiddenBegin = std::min<uint64_t>(hiddenBegin, arg.offset);
      hiddenEnd = std::max<uint64_t>(hiddenEnd, uint64_t(arg.offset) + arg.size);
      continue;
    }
    table.addRow({std::to_string(table.numRows()), arg.name.empty() ? "-" : arg.name,
                  arg.valueKind + (arg.addressSpace.empty() ? "" : " (" + arg.addressSpace + ")"),
                  std::to_string(arg.offset), std::to_string(arg.size)});
  }
  out << "  arguments: " << plural(info.explicitArgCount(), "explicit", "explicit") << ", "
      << hidden << " hidden\n";
  if (table.numRows())
    out << indent(table.render(), "    ");
  if (hidden)
    out << fmt::format("    hidden arguments occupy bytes [{}, {})\n", hiddenBegin, hiddenEnd);
}

void printMix(const KernelSummary &summary, llvm::raw_ostream &out) {
  size_t bytes = 0;
  for (const DecodedInstruction &instruction : summary.instructions)
    bytes += instruction.size;
  out << "  instructions: " << summary.instructions.size() << " (" << bytes << " bytes)\n";
  TextTable table;
  table.addColumn("family", TextTable::Align::Left);
  table.addColumn("count");
  table.addColumn("%");
  const size_t total = std::max<size_t>(1, summary.histogram.total());
  for (InstructionFamily family : allFamilies())
    table.addRow({familyName(family).str(), std::to_string(summary.histogram[family]),
                  fmt::format("{:.1f}", 100.0 * summary.histogram[family] / total)});
  out << indent(table.render(), "    ");
}

/// The kernel offset an s_branch / s_cbranch_* jumps to: SOPP's simm16
/// counts words from the next instruction. The printer shows only simm16.
std::optional<int64_t> branchTarget(const DecodedInstruction &instruction) {
  llvm::StringRef mnemonic(instruction.mnemonic);
  if (!(mnemonic == "s_branch" || mnemonic.starts_with("s_cbranch_")) ||
      instruction.operands.empty() ||
      instruction.operands.back().kind != DecodedOperand::Kind::Immediate)
    return std::nullopt;
  const auto words = static_cast<int16_t>(instruction.operands.back().imm);
  return static_cast<int64_t>(instruction.offset) + instruction.size + 4 * int64_t(words);
}

void printDisassembly(const KernelSummary &summary, llvm::raw_ostream &out) {
  out << "  disassembly:\n";
  for (size_t i = 0; i < summary.instructions.size(); ++i) {
    const DecodedInstruction &instruction = summary.instructions[i];
    std::string note = familyName(summary.families[i]).str();
    if (std::optional<int64_t> target = branchTarget(instruction))
      note += fmt::format(", to {:04x}", *target);
    out << fmt::format("    {:04x}  {:<60} ; {}\n", instruction.offset, instruction.text, note);
  }
}

void printKernel(const KernelSummary &summary, bool disassembly, llvm::raw_ostream &out) {
  const KernelInfo &info = summary.kernel.info;
  const KernelDescriptor &kd = summary.kernel.descriptor;
  const Occupancy &occupancy = summary.occupancy;
  out << "\nkernel " << info.name << "\n";
  printArguments(info, out);
  out << fmt::format("  kernarg segment: {} bytes, align {}\n", info.kernargSize,
                     info.kernargAlign);
  out << fmt::format("  registers: {} VGPRs ({} arch + {} AGPRs), {} SGPRs; the descriptor "
                     "allocates {} VGPRs, {} SGPRs\n",
                     info.vgprCount, info.vgprCount - info.agprCount, info.agprCount,
                     info.sgprCount, kd.allocatedVgprs(), kd.allocatedSgprs());
  out << fmt::format("  LDS: {} bytes; scratch: {} bytes per work-item\n", info.ldsBytes,
                     info.scratchBytes);
  out << fmt::format("  max workgroup size: {} ({} waves of {})\n", info.maxWorkgroupSize,
                     occupancy.wavesPerWorkgroup, info.wavefrontSize);
  out << fmt::format("  occupancy: {} waves/SIMD, limited by {} (vgpr {}, sgpr {}, lds {}, "
                     "workgroup {}; {} workgroups/CU)\n",
                     occupancy.wavesPerSimd, occupancy.limitingFactor(), occupancy.byVgpr,
                     occupancy.bySgpr, occupancy.byLds, occupancy.byWorkgroup,
                     occupancy.workgroupsPerCu);
  printMix(summary, out);
  for (const std::string &warning : summary.warnings)
    out << "  WARNING: " << warning << "\n";
  if (disassembly)
    printDisassembly(summary, out);
}

int inspectCodeObject(llvm::StringRef path, llvm::ArrayRef<uint8_t> bytes,
                      const InspectOptions &options, llvm::raw_ostream &out,
                      llvm::raw_ostream &err) {
  Status printed =
      printCodeObject(llvm::sys::path::filename(path), bytes, options.disassembly, out);
  out.flush();
  if (!printed.ok())
    return reportError(err,
                       "'" + path + "' is not a valid gfx950 code object: " + printed.message());
  return kExitSuccess;
}

/// The kinds of file inspect understands, recognised by their first bytes.
struct FileKind {
  const char *name;
  bool (*matches)(llvm::ArrayRef<uint8_t> bytes);
  int (*inspect)(llvm::StringRef path, llvm::ArrayRef<uint8_t> bytes, const InspectOptions &options,
                 llvm::raw_ostream &out, llvm::raw_ostream &err);
};

bool isElf(llvm::ArrayRef<uint8_t> bytes) {
  return bytes.size() >= 4 && bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' &&
         bytes[3] == 'F';
}

const FileKind kFileKinds[] = {
    {"gfx950 code object (ELF)", isElf, inspectCodeObject},
    {"mxforge bundle", isBundle, inspectBundle},
};

int inspectFile(const std::string &path, const InspectOptions &options, llvm::raw_ostream &out,
                llvm::raw_ostream &err) {
  // A regular file of bounded size: /dev/zero or a FIFO is refused, never
  // read until memory runs out or a writer comes.
  Result<std::vector<uint8_t>> contents = readFileBytes(path, kMaxInspectedFileBytes);
  if (!contents.ok())
    return reportError(err, "cannot read '" + path + "': " + contents.error());
  llvm::ArrayRef<uint8_t> bytes(contents.value());
  if (bytes.empty())
    return reportError(err, "'" + path + "' is empty (0 bytes): neither a code object nor a "
                            "bundle");
  for (const FileKind &kind : kFileKinds)
    if (kind.matches(bytes))
      return kind.inspect(path, bytes, options, out, err);
  std::string known;
  for (const FileKind &kind : kFileKinds)
    known += (known.empty() ? "" : ", ") + std::string(kind.name);
  return reportError(err, "'" + path + "' is not a file inspect knows (expected: " + known + ")");
}

} // namespace

Status printCodeObject(llvm::StringRef title, llvm::ArrayRef<uint8_t> hsaco, bool disassembly,
                       llvm::raw_ostream &out) {
  Result<std::unique_ptr<Disassembler>> disassembler = Disassembler::create();
  if (!disassembler.ok())
    return Status::failure(disassembler.error());
  Result<CodeObjectSummary> summary = summarizeCodeObject(hsaco, *disassembler.value());
  if (!summary.ok())
    return summary.status();
  const CodeObjectSummary &object = summary.value();
  out << title << ": code object v" << object.codeObjectVersion << ", target " << object.target
      << ", " << plural(object.kernels.size(), "kernel", "kernels") << "\n";
  // The code's own record: the most rows its code serves (a bundle entry of
  // a smaller M bucket narrows max m in its own record).
  if (object.launch)
    out << "launch (embedded): " << object.launch->describe() << "\n";
  else
    out << "launch (embedded): none (not compiled from a spec by mxforge; `mxforge run --hsaco` "
           "then takes the geometry from --spec)\n";
  for (const KernelSummary &kernel : object.kernels)
    printKernel(kernel, disassembly, out);
  return Status::success();
}

Subcommand inspectSubcommand() { return {&inspectCommand, runSelected}; }

int runInspect(const InspectOptions &options, llvm::raw_ostream &out, llvm::raw_ostream &err) {
  if (options.files.empty())
    return reportError(err, "mxforge inspect needs a file, e.g. mxforge inspect kernel.hsaco",
                       kExitUsage);
  int status = kExitSuccess;
  for (size_t i = 0; i < options.files.size(); ++i) {
    if (i)
      out << "\n";
    // Keep going: one damaged file should not hide the others' reports.
    if (int fileStatus = inspectFile(options.files[i], options, out, err))
      status = fileStatus;
  }
  out.flush();
  return status;
}

} // namespace mxf::cli
