//===- quantize_kernel.cpp - quantize's tensors through the gfx950 kernel -===//

#include "tools/mxforge/quantize_kernel.h"

#include "abi/operands.h"
#include "compiler/compiler.h"
#include "compiler/dump.h"
#include "runtime/emu_device.h"
#include "runtime/spec_launcher.h"
#include "templates/family_rules.h"

#include <cstring>

namespace mxf::cli {

Result<KernelWeightQuantizer> KernelWeightQuantizer::open() {
  Result<std::unique_ptr<runtime::Device>> device = runtime::openEmuDevice({});
  if (!device.ok())
    return device.status();
  KernelWeightQuantizer quantizer;
  quantizer.device_ = std::move(device.value());
  return quantizer;
}

Status KernelWeightQuantizer::checkSupported(const KernelSpec &spec) {
  if (Status compilable = checkCompilable(spec); !compilable.ok())
    return Status::failure("--device emu runs the quant_weight kernel, which cannot take this "
                           "tensor: " + compilable.message());
  return Status::success();
}

Status KernelWeightQuantizer::quantize(const KernelSpec &spec, const uint16_t *w,
                                       const uint16_t *rotation, uint64_t rotationElements,
                                       uint8_t *codes, uint64_t codeBytes, uint8_t *scales,
                                       uint64_t scaleBytes) {
  const std::string key = printSpec(spec);
  auto it = compiled_.find(key);
  if (it == compiled_.end()) {
    CompileOptions options; // MXFORGE_DUMP_DIR as the library's JIT reads it
    if (Status s = compiler::useDumpRoot(compiler::dumpRootFromEnvironment(), spec,
                                         options.dumpDir);
        !s.ok())
      return s;
    Result<CodeObject> code = compileSpec(spec, options);
    if (!code.ok())
      return code.status();
    it = compiled_.emplace(key, std::move(code.value())).first;
  }
  const CodeObject &code = it->second;
  runtime::HostArrays inputs;
  const uint64_t wBytes = uint64_t(spec.N) * uint64_t(spec.K) * 2;
  inputs["w"].assign(reinterpret_cast<const uint8_t *>(w),
                     reinterpret_cast<const uint8_t *>(w) + wBytes);
  if (isLearned(spec.rot))
    inputs["r"].assign(reinterpret_cast<const uint8_t *>(rotation),
                       reinterpret_cast<const uint8_t *>(rotation) + rotationElements * 2);
  Result<runtime::SpecLaunch> launched = runtime::launchSpec(
      *device_, code.hsaco, code.kernel, code.launch, spec, spec.N, inputs);
  if (!launched.ok())
    return launched.status();
  const std::vector<uint8_t> &q = launched.value().outputs.at("q");
  const std::vector<uint8_t> &s = launched.value().outputs.at("s");
  if (q.size() != codeBytes || s.size() != scaleBytes)
    return Status::failure("the kernel wrote " + std::to_string(q.size()) + " code and " +
                           std::to_string(s.size()) + " scale bytes; the checkpoint has room "
                           "for " + std::to_string(codeBytes) + " and " +
                           std::to_string(scaleBytes));
  std::memcpy(codes, q.data(), q.size());
  std::memcpy(scales, s.data(), s.size());
  return Status::success();
}

} // namespace mxf::cli
