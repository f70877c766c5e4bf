//===- dump.h - Numbered IR dumps of one compile ------------------*- C++ -*-===//
//
// --dump-dir and --print-ir-after-all share one writer: every stage and every
// MLIR pass hands it a name and a callback that prints its output; the writer
// numbers the outputs in the order they happen (00-input.mlir,
// 01-<pass>.mlir, ..., NN-kernel.hsaco) so that `ls` lists them in pipeline
// order, and prints the text ones under an mlir-opt style header.
//
// Light header (LLVM Support only): the callbacks do the MLIR/LLVM printing.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_COMPILER_DUMP_H
#define MXFORGE_COMPILER_DUMP_H

#include "support/status.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <mutex>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mxf {
struct KernelSpec;
} // namespace mxf

namespace mxf::compiler {

/// MXFORGE_DUMP_DIR, read now ("" when unset): every in-process compile,
/// the library's JIT and the CLI's alike, writes its stage files under it.
std::string dumpRootFromEnvironment();

/// The folder of `spec`'s kernel under `root`: named like the kernel, which
/// is named by its code spec. An error when that folder is a symlink: it is
/// a name we chose inside a folder others may write to, and a planted link
/// is refused, never followed (the files in it likewise, StageDumper).
Result<std::string> kernelDumpFolder(const std::string &root, const KernelSpec &spec);

/// `dumpDir` = kernelDumpFolder(root, spec), or left as it is when `root`
/// is empty: what every in-process compile of a spec does with
/// MXFORGE_DUMP_DIR (the JIT, mxforge compile without --dump-dir, run, demo,
/// quantize --device emu).
Status useDumpRoot(const std::string &root, const KernelSpec &spec, std::string &dumpDir);

class StageDumper {
public:
  /// `dir` empty: no files are written. `print` null: nothing is printed.
  StageDumper(std::string dir, llvm::raw_ostream *print);

  /// Creates the directory (and its parents). Call before the first emit.
  Status open();

  /// Whether emit does anything; callers skip printing work when not.
  bool active() const { return !dir_.empty() || print_ != nullptr; }

  /// Writes `write`'s output to "<NN>-<name>.<ext>" and, unless `binary`,
  /// prints it after the line `// -----// <header> //----- //`. A failed
  /// write is remembered (status()) and later emits are skipped, so that a
  /// full disk fails the compile once instead of once per pass.
  void emit(llvm::StringRef name, llvm::StringRef ext, llvm::StringRef header,
            llvm::function_ref<void(llvm::raw_ostream &)> write, bool binary = false);

  /// The first write failure, if any.
  Status status() const;
  /// The file names written so far (no directory), in order.
  std::vector<std::string> files() const;

private:
  std::string dir_;
  llvm::raw_ostream *print_;
  // MLIR may run pass instrumentation from several threads when the caller's
  // context is multithreaded; the counter and the stream need one owner.
  mutable std::mutex mutex_;
  unsigned next_ = 0;
  std::string error_;
  std::vector<std::string> files_;
};

} // namespace mxf::compiler

#endif // MXFORGE_COMPILER_DUMP_H
