//===- code_object.cpp - LoadedCodeObject: read once, decode once ---------===//

#include "codeobj/hsaco_reader.h"
#include "emulator/decoder.h"
#include "emulator/emulator.h"
#include "emulator/operands.h"
#include "emulator/program.h"

namespace mxf::emu {

struct LoadedCodeObject::Impl {
  std::vector<uint8_t> bytes; // the code object (KernelImage views point here)
  std::vector<std::unique_ptr<KernelProgram>> kernels;
};

LoadedCodeObject::LoadedCodeObject() : impl_(std::make_unique<Impl>()) {}
LoadedCodeObject::~LoadedCodeObject() = default;

Result<std::shared_ptr<const LoadedCodeObject>> LoadedCodeObject::load(const uint8_t *hsaco,
                                                                       size_t size) {
  using R = Result<std::shared_ptr<const LoadedCodeObject>>;
  std::shared_ptr<LoadedCodeObject> object(new LoadedCodeObject());
  object->impl_->bytes.assign(hsaco, hsaco + size);
  Result<codeobj::CodeObjectImage> image = codeobj::readCodeObject(object->impl_->bytes);
  if (!image.ok())
    return R::failure(image.error());
  for (const codeobj::KernelImage &kernel : image.value().kernels) {
    auto program = std::make_unique<KernelProgram>();
    program->info = kernel.info;
    program->descriptor = kernel.descriptor;
    program->codeAddress = kernel.codeAddress;
    Status decoded = decodeProgram(kernel.code, kernel.codeAddress, *program);
    if (!decoded.ok())
      program->decodeError = decoded.message();
    object->impl_->kernels.push_back(std::move(program));
  }
  return std::shared_ptr<const LoadedCodeObject>(std::move(object));
}

std::vector<KernelInfo> LoadedCodeObject::kernelInfos() const {
  std::vector<KernelInfo> infos;
  for (const auto &kernel : impl_->kernels)
    infos.push_back(kernel->info);
  return infos;
}

const KernelProgram *LoadedCodeObject::findKernel(const std::string &name) const {
  for (const auto &kernel : impl_->kernels)
    if (kernel->info.name == name)
      return kernel.get();
  return nullptr;
}

std::vector<std::string> LoadedCodeObject::unsupportedInstructions(const std::string &name) const {
  std::vector<std::string> out;
  const KernelProgram *kernel = findKernel(name);
  if (!kernel)
    return out;
  for (const Instruction &inst : kernel->instructions)
    if (!inst.op || !inst.decodeProblem.empty())
      out.push_back(inst.opcodeName + ": " + inst.text +
                    (inst.decodeProblem.empty() ? "" : " (" + inst.decodeProblem + ")"));
  return out;
}

std::string LoadedCodeObject::listing(const std::string &name) const {
  std::string out;
  const KernelProgram *kernel = findKernel(name);
  if (!kernel)
    return out;
  for (const Instruction &inst : kernel->instructions)
    out += hex(inst.address) + ": " + inst.text + (inst.op ? "" : "   ; NO SEMANTICS") + "\n";
  return out;
}

} // namespace mxf::emu
