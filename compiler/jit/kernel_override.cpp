//===- kernel_override.cpp - MXFORGE_KERNEL_OVERRIDE_DIR ------------------===//

#include "compiler/jit/kernel_override.h"

#include "codeobj/hsaco_reader.h"
#include "codeobj/kernel_summary.h"
#include "support/file_io.h"
#include "support/file_trust.h"

#include <sys/stat.h>

namespace mxf {
namespace {

std::string describeArg(const KernelArgInfo &arg) {
  return "'" + arg.name + "' (" + arg.valueKind + ", offset " + std::to_string(arg.offset) +
         ", " + std::to_string(arg.size) + " bytes)";
}

/// Why `given`'s arguments differ from `expected`'s, or "".
std::string argumentDifference(const KernelInfo &expected, const KernelInfo &given) {
  if (given.kernargSize != expected.kernargSize)
    return "its kernarg segment is " + std::to_string(given.kernargSize) + " bytes, the kernel's " +
           std::to_string(expected.kernargSize);
  if (given.args.size() != expected.args.size())
    return "it has " + std::to_string(given.args.size()) + " kernel arguments, the kernel " +
           std::to_string(expected.args.size());
  for (size_t i = 0; i < given.args.size(); ++i)
    if (given.args[i] != expected.args[i])
      return "argument " + std::to_string(i) + " is " + describeArg(given.args[i]) +
             ", the kernel's is " + describeArg(expected.args[i]);
  return "";
}

} // namespace

Result<CodeObject> applyKernelOverride(const std::string &directory, CodeObject produced,
                                       void (*warn)(const std::string &line)) {
  const std::string path = directory + "/" + produced.kernel.name + ".hsaco";
  struct stat info;
  if (::stat(path.c_str(), &info) != 0)
    return produced; // no override for this kernel
  auto refuse = [&](const std::string &why) {
    return Result<CodeObject>::failure("MXFORGE_KERNEL_OVERRIDE_DIR: '" + path +
                                       "' cannot replace kernel '" + produced.kernel.name +
                                       "': " + why);
  };
  // Code we launch must come from where only this user can put it (the
  // cache's rule, support/file_trust.h): the directory and the file.
  if (Status directoryTrust = checkTrusted(directory); !directoryTrust.ok())
    return refuse("the directory " + directoryTrust.message() +
                  ": an override directory must belong to this user and not be writable by "
                  "group or others");
  if (std::string why = untrustedBecause(info); !why.empty())
    return refuse("it " + why + ": an override file must belong to this user and not be "
                  "writable by group or others");
  Result<std::vector<uint8_t>> bytes = readFileBytes(path);
  if (!bytes.ok())
    return refuse(bytes.error());
  Result<codeobj::CodeObjectImage> image = codeobj::readCodeObject(bytes.value());
  if (!image.ok())
    return refuse("it is not a code object: " + image.error());
  if (Status gfx950 = codeobj::checkGfx950CodeObject(image.value()); !gfx950.ok())
    return refuse(gfx950.message());
  Result<std::vector<KernelInfo>> kernels = codeobj::readKernelInfos(bytes.value());
  if (!kernels.ok())
    return refuse(kernels.error());
  const KernelInfo *kernel = nullptr;
  for (const KernelInfo &candidate : kernels.value())
    if (candidate.name == produced.kernel.name)
      kernel = &candidate;
  if (!kernel)
    return refuse("it has no kernel of that name");
  if (std::string difference = argumentDifference(produced.kernel, *kernel); !difference.empty())
    return refuse("another ABI: " + difference);
  Result<std::optional<LaunchRecord>> record = codeobj::readLaunchRecord(bytes.value());
  if (!record.ok())
    return refuse(record.error());
  if (!record.value())
    return refuse("it carries no launch record (section .mxforge.launch); start from a code "
                  "object mxforge wrote (mxforge compile, or bundle extract)");
  if (*record.value() != produced.launch)
    return refuse("its launch record differs from the kernel's (another template revision or "
                  "spec?)");
  if (warn)
    warn("kernel '" + produced.kernel.name + "' is overridden by '" + path +
         "' (MXFORGE_KERNEL_OVERRIDE_DIR)");
  produced.hsaco = std::move(bytes.value());
  produced.kernel = *kernel;
  return produced;
}

} // namespace mxf
