//===- reference_case.cpp - A launch checked against the reference runner --===//

#include "tests/e2e/reference_case.h"

#include "tests/e2e/e2e_runner.h"

#include "runtime/emu_device.h"

#include <fmt/format.h>

#include <cstring>
#include <variant>

namespace mxf::e2e {

std::vector<uint8_t> rawBytes(const arrays::NpyArray &array) {
  return std::visit(
      [](const auto &values) {
        std::vector<uint8_t> bytes(values.size() * sizeof(values[0]));
        std::memcpy(bytes.data(), values.data(), bytes.size());
        return bytes;
      },
      array.values);
}

Result<runtime::SpecLaunch>
launchWithReference(const CodeObject &code, const KernelSpec &spec, int m,
                    const arrays::ReferenceRun &reference, emu::WorkgroupOrder order,
                    uint64_t orderSeed, uint8_t poison,
                    std::optional<runtime::SpecLaunchOptions> launchOptions,
                    const runtime::HostArrays &inputs) {
  runtime::EmuDeviceOptions deviceOptions = caseDeviceOptions();
  deviceOptions.workgroupOrder = order;
  deviceOptions.workgroupOrderSeed = orderSeed;
  Result<std::unique_ptr<runtime::Device>> device = runtime::openEmuDevice(deviceOptions);
  if (!device.ok())
    return device.status();
  runtime::HostArrays given = inputs;
  for (const auto &[name, array] : reference.inputs)
    given.emplace(name, rawBytes(array)); // keeps what `inputs` replaced
  runtime::SpecLaunchOptions options;
  if (launchOptions)
    options = *launchOptions;
  else
    options.values = reference.values;
  options.poison = poison;
  options.selection = reference.selection;
  return runtime::launchSpec(*device.value(), code.hsaco, code.kernel, code.launch, spec, m,
                             given, options);
}

std::string compareReferenceOutputs(const arrays::ReferenceRun &expected,
                                    const runtime::SpecLaunch &launched) {
  std::string report;
  for (const auto &[name, array] : expected.outputs) {
    const std::vector<uint8_t> want = rawBytes(array);
    auto got = launched.outputs.find(name);
    if (got == launched.outputs.end()) {
      report += "\n  " + name + ": not returned";
      continue;
    }
    if (got->second.size() != want.size()) {
      report += "\n  " + name + ": " + std::to_string(got->second.size()) + " bytes, expected " +
                std::to_string(want.size());
      continue;
    }
    size_t differing = 0, first = 0;
    for (size_t i = 0; i < want.size(); ++i)
      if (got->second[i] != want[i] && differing++ == 0)
        first = i;
    if (differing)
      report += "\n  " + name + ": " + std::to_string(differing) + " of " +
                std::to_string(want.size()) + " bytes differ, the first at byte " +
                std::to_string(first) + fmt::format(" (got 0x{:02x}, expected 0x{:02x})",
                                                    got->second[first], want[first]);
  }
  return report;
}

} // namespace mxf::e2e
