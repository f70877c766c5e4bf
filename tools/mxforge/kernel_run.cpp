//===- kernel_run.cpp - Compile, run on a device, compare with the reference -===//

#include "tools/mxforge/kernel_run.h"

#include "codeobj/hsaco_reader.h"
#include "codeobj/kernel_summary.h"
#include "compiler/compiler.h"
#include "compiler/dump.h"
#include "numerics/layouts.h"
#include "numerics/reference.h"
#include "runtime/spec_launcher.h"
#include "templates/registry.h"

#include "support/file_io.h"

#include <fmt/format.h>

#include <chrono>
#include <cstring>

namespace mxf::cli {
namespace {

/// The largest .hsaco `run --hsaco` reads (ours are kilobytes).
constexpr uint64_t kMaxCodeObjectFileBytes = uint64_t(256) << 20;

constexpr uint8_t kPoison = 0xA5;
constexpr size_t kMaxDetails = 5;

double millisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

std::vector<uint8_t> rawBytes(const arrays::NpyArray &array) {
  std::vector<uint8_t> bytes(array.size() * arrays::npyItemSize(array.dtype()));
  std::visit([&](const auto &values) { std::memcpy(bytes.data(), values.data(), bytes.size()); },
             array.values);
  return bytes;
}

} // namespace

Result<CompiledKernel> obtainKernel(const KernelSpec &spec, const std::string &hsacoPath,
                                    const std::string &kernelName) {
  CompiledKernel kernel;
  if (hsacoPath.empty()) {
    auto start = std::chrono::steady_clock::now();
    // MXFORGE_DUMP_DIR as the library's JIT reads it (docs/runtime.md).
    CompileOptions options;
    if (Status s = compiler::useDumpRoot(compiler::dumpRootFromEnvironment(), spec,
                                         options.dumpDir);
        !s.ok())
      return s;
    Result<CodeObject> compiled = compileSpec(spec, options);
    if (!compiled.ok())
      return compiled.status();
    kernel.compileMs = millisSince(start);
    kernel.code = std::move(compiled.value());
    return kernel;
  }
  Result<std::vector<uint8_t>> file = readFileBytes(hsacoPath, kMaxCodeObjectFileBytes);
  if (!file.ok())
    return Result<CompiledKernel>::failure("cannot read '" + hsacoPath + "': " + file.error());
  kernel.code.hsaco = std::move(file.value());
  // The emulator and the hip device run gfx950 code only: a code object for
  // another target is refused here, as inspect refuses it, not emulated.
  Result<codeobj::CodeObjectImage> image = codeobj::readCodeObject(kernel.code.hsaco);
  if (!image.ok())
    return Result<CompiledKernel>::failure("'" + hsacoPath + "': " + image.error());
  if (Status gfx950 = codeobj::checkGfx950CodeObject(image.value()); !gfx950.ok())
    return Result<CompiledKernel>::failure("'" + hsacoPath + "' is not gfx950 code: " +
                                           gfx950.message());
  Result<std::vector<KernelInfo>> infos = codeobj::readKernelInfos(kernel.code.hsaco);
  if (!infos.ok())
    return Result<CompiledKernel>::failure("'" + hsacoPath + "': " + infos.error());
  std::string names;
  for (const KernelInfo &info : infos.value()) {
    names += (names.empty() ? "" : ", ") + info.name;
    if ((kernelName.empty() && infos.value().size() == 1) || info.name == kernelName) {
      // The spec's template family says how its code launches; a code
      // object mxforge compiled carries the same record, and one that
      // carries another was compiled for another spec.
      Result<KernelSpec> code = codeSpecFor(spec);
      if (!code.ok())
        return code.status();
      kernel.code.kernel = info;
      kernel.code.spec = printSpec(code.value());
      kernel.code.launch = findFamilyRules(spec.op)->launchRecord(code.value());
      Result<std::optional<LaunchRecord>> embedded =
          codeobj::readLaunchRecord(kernel.code.hsaco);
      if (!embedded.ok())
        return Result<CompiledKernel>::failure("'" + hsacoPath + "': " + embedded.error());
      if (embedded.value() && *embedded.value() != kernel.code.launch)
        return Result<CompiledKernel>::failure(
            "'" + hsacoPath + "' is not the code of " + printSpec(spec) +
            ": it launches as " + embedded.value()->describe() + ", the spec as " +
            kernel.code.launch.describe());
      if (Status agrees = kernel.code.launch.checkAgainst(info); !agrees.ok())
        return Result<CompiledKernel>::failure("'" + hsacoPath + "' is not the code of " +
                                               printSpec(spec) + ": " + agrees.message());
      return kernel;
    }
  }
  return Result<CompiledKernel>::failure(
      kernelName.empty() ? "'" + hsacoPath + "' holds several kernels (" + names +
                               "); pick one with --kernel"
                         : "'" + hsacoPath + "' has no kernel '" + kernelName + "' (it has: " +
                               names + ")");
}

Result<KernelRun> runAndCompare(runtime::Device &device, const CompiledKernel &kernel,
                                const KernelSpec &spec, int m,
                                const arrays::ReferenceRun &reference,
                                const WhileLoaded &whileLoaded) {
  runtime::HostArrays inputs;
  for (const auto &[name, array] : reference.inputs) {
    // The reference's arrays have exactly m rows, as the kernel reads them.
    inputs[name] = rawBytes(array);
  }
  runtime::SpecLaunchOptions options;
  options.poison = kPoison;
  options.selection = reference.selection; // selective rotation: the path the reference took
  options.values = reference.values;       // the op's by-value values (eps)
  options.whileLoaded = whileLoaded;
  auto start = std::chrono::steady_clock::now();
  Result<runtime::SpecLaunch> launched =
      runtime::launchSpec(device, kernel.code.hsaco, kernel.code.kernel, kernel.code.launch, spec,
                          m, inputs, options);
  if (!launched.ok())
    return launched.status();
  KernelRun run;
  run.launchMs = millisSince(start);
  run.report = launched.value().report;

  for (const auto &[name, expected] : reference.outputs) {
    auto produced = launched.value().outputs.find(name);
    if (produced == launched.value().outputs.end())
      return Result<KernelRun>::failure("the kernel has no output '" + name + "'");
    const std::vector<uint8_t> &all = produced->second;
    const std::vector<uint8_t> want = rawBytes(expected);
    if (all.size() < want.size())
      return Result<KernelRun>::failure("output '" + name + "' is smaller than the reference's");
    // The kernel's buffers hold exactly the m rows (abi/), so the
    // reference's arrays cover them; any bytes beyond (none today) must
    // still be poison.
    const size_t rowBytes = expected.shape.size() > 1 ? want.size() / expected.shape[0] : 1;
    // An output the kernel writes a prefix of (rotate_quant_moe's s): the
    // prefix equals the reference, the rest must keep the poison.
    auto prefix = reference.bytesWritten.find(name);
    const size_t compared = prefix == reference.bytesWritten.end() ? want.size() : prefix->second;
    for (size_t i = compared; i < want.size(); ++i) {
      if (all[i] == kPoison)
        continue;
      if (run.untouchedViolations++ < kMaxDetails)
        run.details.push_back(fmt::format("{}: byte {} past the written rows was written (0x{:02x})",
                                          name, i, all[i]));
    }
    for (size_t i = 0; i < compared; ++i) {
      if (all[i] == want[i])
        continue;
      if (run.mismatches++ < kMaxDetails)
        run.details.push_back(fmt::format("{}[{}, {}]: got 0x{:02x}, expected 0x{:02x}", name,
                                          i / rowBytes, i % rowBytes, all[i], want[i]));
    }
    for (size_t i = want.size(); i < all.size(); ++i) {
      if (all[i] == kPoison)
        continue;
      if (run.untouchedViolations++ < kMaxDetails)
        run.details.push_back(fmt::format("{}: byte {} past M was written (0x{:02x})", name, i,
                                          all[i]));
    }
    arrays::NpyArray cut = expected;
    std::visit([&](auto &values) { std::memcpy(values.data(), all.data(), want.size()); },
               cut.values);
    run.outputs.emplace(name, std::move(cut));
  }
  return run;
}

} // namespace mxf::cli
