//===- dump.cpp - Numbered IR dumps of one compile ------------------------===//

#include "compiler/dump.h"

#include "abi/operands.h"
#include "spec/kernel_spec.h"
#include "support/output_files.h"
#include "support/printable.h"
#include "templates/family_rules.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <sys/stat.h>

#include <cstdlib>

namespace mxf::compiler {

std::string dumpRootFromEnvironment() {
  const char *value = std::getenv("MXFORGE_DUMP_DIR");
  return value ? value : "";
}

Result<std::string> kernelDumpFolder(const std::string &root, const KernelSpec &spec) {
  Result<KernelSpec> code = codeSpecFor(spec);
  const std::string folder =
      root + "/" + fileNameSafe(kernelName(code.ok() ? code.value() : spec));
  struct stat info;
  if (::lstat(folder.c_str(), &info) == 0 && S_ISLNK(info.st_mode))
    return Result<std::string>::failure("MXFORGE_DUMP_DIR: " + folder +
                                        " is a symlink; mxforge does not follow links inside "
                                        "a folder it writes into (remove the link)");
  return folder;
}

Status useDumpRoot(const std::string &root, const KernelSpec &spec, std::string &dumpDir) {
  if (root.empty())
    return Status::success();
  Result<std::string> folder = kernelDumpFolder(root, spec);
  if (!folder.ok())
    return folder.status();
  dumpDir = folder.value();
  return Status::success();
}

StageDumper::StageDumper(std::string dir, llvm::raw_ostream *print)
    : dir_(std::move(dir)), print_(print) {}

Status StageDumper::open() {
  if (dir_.empty())
    return Status::success();
  if (std::error_code ec = llvm::sys::fs::create_directories(dir_))
    return Status::failure("cannot create dump directory '" + dir_ + "': " + ec.message());
  return Status::success();
}

void StageDumper::emit(llvm::StringRef name, llvm::StringRef ext, llvm::StringRef header,
                       llvm::function_ref<void(llvm::raw_ostream &)> write, bool binary) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!error_.empty())
    return;
  // Pass names are flag-like (convert-gpu-to-rocdl); keep anything else out
  // of file names.
  const std::string safeName = fileNameSafe(std::string_view(name.data(), name.size()));
  std::string fileName;
  llvm::raw_string_ostream(fileName) << llvm::format("%02u", next_++) << "-" << safeName << "."
                                     << ext;
  if (!dir_.empty()) {
    llvm::SmallString<256> path(dir_);
    llvm::sys::path::append(path, fileName);
    // Through the one output path (support/output_files.h): an existing
    // dump is replaced whole or not at all, a device or FIFO in its place is
    // written, not replaced, and a symlink in its place is refused: the
    // folder may be shared (MXFORGE_DUMP_DIR), and a planted link would
    // have us overwrite its target outside the folder.
    std::string text;
    {
      llvm::raw_string_ostream stream(text);
      write(stream);
    }
    Status written = writeOutputFiles({{"dump file", std::string(path),
                                        std::vector<uint8_t>(text.begin(), text.end()),
                                        ExistingLink::Refuse}});
    if (!written.ok()) {
      error_ = "cannot write dump file '" + std::string(path) + "': " + written.message();
      return;
    }
    files_.push_back(fileName);
  }
  if (print_ && !binary) {
    *print_ << "// -----// " << header << " //----- //\n";
    write(*print_);
    *print_ << "\n";
    print_->flush();
  }
}

Status StageDumper::status() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_.empty() ? Status::success() : Status::failure(error_);
}

std::vector<std::string> StageDumper::files() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return files_;
}

} // namespace mxf::compiler
