//===- disassembler.cpp - gfx950 machine code to instructions -------------===//

#include "codeobj/disassembler.h"

#include "codeobj/decode_guards.h"
#include "codeobj/hsaco_reader.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/bit.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

namespace mxf::codeobj {

namespace {

constexpr const char *kTriple = "amdgcn-amd-amdhsa";
constexpr const char *kCpu = "gfx950";
/// Zeros after the code handed to the decoder (see disassemble()).
constexpr size_t kDecodePadding = 32;

/// Registers only the AMDGPU pieces the disassembler needs. call_once makes
/// concurrent first uses safe; LLVM's registration itself ignores repeats, so
/// the compiler registering all targets as well is harmless.
void initializeAmdgpuOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUDisassembler();
  });
}

std::string hexBytes(llvm::ArrayRef<uint8_t> bytes) {
  std::string out;
  for (uint8_t byte : bytes) {
    if (!out.empty())
      out += ' ';
    out += llvm::utohexstr(byte, /*LowerCase=*/true, /*Width=*/2);
  }
  return out;
}

} // namespace

struct Disassembler::Impl {
  llvm::Triple triple{kTriple};
  std::unique_ptr<llvm::MCRegisterInfo> registers;
  std::unique_ptr<llvm::MCAsmInfo> asmInfo;
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget;
  std::unique_ptr<llvm::MCInstrInfo> instrInfo;
  std::unique_ptr<llvm::MCContext> context;
  std::unique_ptr<llvm::MCDisassembler> disassembler;
  std::unique_ptr<llvm::MCInstPrinter> printer;
};

Disassembler::Disassembler(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Disassembler::~Disassembler() = default;

Result<std::unique_ptr<Disassembler>> Disassembler::create() {
  using R = Result<std::unique_ptr<Disassembler>>;
  initializeAmdgpuOnce();
  auto impl = std::make_unique<Impl>();
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(impl->triple, error);
  if (!target)
    return R::failure("no AMDGPU target in this LLVM: " + error);
  impl->registers.reset(target->createMCRegInfo(impl->triple));
  if (!impl->registers)
    return R::failure("AMDGPU: no MC register info");
  llvm::MCTargetOptions options;
  impl->asmInfo.reset(target->createMCAsmInfo(*impl->registers, impl->triple, options));
  impl->subtarget.reset(target->createMCSubtargetInfo(impl->triple, kCpu, ""));
  impl->instrInfo.reset(target->createMCInstrInfo());
  if (!impl->asmInfo || !impl->subtarget || !impl->instrInfo)
    return R::failure("AMDGPU: cannot create the MC layer for gfx950");
  if (impl->subtarget->getCPU() != kCpu)
    return R::failure("this LLVM does not know the CPU gfx950");
  impl->context = std::make_unique<llvm::MCContext>(impl->triple, impl->asmInfo.get(),
                                                    impl->registers.get(), impl->subtarget.get());
  impl->disassembler.reset(target->createMCDisassembler(*impl->subtarget, *impl->context));
  impl->printer.reset(
      target->createMCInstPrinter(impl->triple, impl->asmInfo->getAssemblerDialect(),
                                  *impl->asmInfo, *impl->instrInfo, *impl->registers));
  if (!impl->disassembler || !impl->printer)
    return R::failure("AMDGPU: no disassembler or instruction printer in this LLVM");
  return std::unique_ptr<Disassembler>(new Disassembler(std::move(impl)));
}

Result<std::vector<DecodedInstruction>> Disassembler::disassemble(llvm::ArrayRef<uint8_t> code,
                                                                  uint64_t address) const {
  using R = Result<std::vector<DecodedInstruction>>;
  // LLVM 22's AMDGPU decoder crashes (a null comment stream in errOperand)
  // when an instruction's 32-bit literal is cut off by the end of the buffer
  // (llvm/llvm-project#170318, fixed upstream after 22). So it always gets
  // the code followed by zeros, more than the longest instruction (16 bytes),
  // and an instruction that reaches into them is reported as truncated, as
  // ROCm's comgr does.
  std::vector<uint8_t> padded(code.begin(), code.end());
  padded.resize(code.size() + kDecodePadding, 0);
  std::vector<DecodedInstruction> instructions;
  uint64_t offset = 0;
  while (offset < code.size()) {
    llvm::MCInst inst;
    uint64_t size = 0;
    std::string comments;
    llvm::raw_string_ostream commentStream(comments);
    const llvm::ArrayRef<uint8_t> rest = code.drop_front(offset);
    const llvm::ArrayRef<uint8_t> window = llvm::ArrayRef(padded).drop_front(offset);
    const std::string where = "the instruction at offset 0x" + llvm::utohexstr(offset) +
                              " (address 0x" + llvm::utohexstr(address + offset) + ", bytes " +
                              hexBytes(rest.take_front(8)) + ")";
    if (Status guard = checkBeforeDecode(window); !guard.ok())
      return R::failure("cannot decode " + where + ": " + guard.message());
    const auto status =
        impl_->disassembler->getInstruction(inst, size, window, address + offset, commentStream);
    // SoftFail decodes with "unpredictable" bits set: for an emulator that is
    // as bad as no decode at all.
    if (status != llvm::MCDisassembler::Success || size == 0)
      return R::failure(
          "cannot decode " + where +
          (status == llvm::MCDisassembler::SoftFail ? ": unpredictable encoding" : ""));
    if (size > rest.size())
      return R::failure("cannot decode " + where + ": truncated, it needs " + std::to_string(size) +
                        " bytes and " + std::to_string(rest.size()) + " remain");
    DecodedInstruction decoded;
    decoded.offset = offset;
    decoded.address = address + offset;
    decoded.size = static_cast<unsigned>(size);
    decoded.opcode = inst.getOpcode();
    decoded.opcodeName = impl_->instrInfo->getName(inst.getOpcode()).str();
    if (Status guard = checkBeforePrint(inst, decoded.opcodeName, rest.take_front(size),
                                        *impl_->instrInfo, *impl_->registers, *impl_->subtarget);
        !guard.ok())
      return R::failure("cannot decode " + where + ": " + guard.message());
    llvm::raw_string_ostream text(decoded.text);
    impl_->printer->printInst(&inst, address + offset, "", *impl_->subtarget, text);
    decoded.text = llvm::StringRef(decoded.text).trim().str();
    decoded.mnemonic = llvm::StringRef(decoded.text).split(' ').first.str();
    for (const llvm::MCOperand &operand : inst) {
      DecodedOperand out;
      if (operand.isReg()) {
        out.kind = DecodedOperand::Kind::Register;
        out.reg = operand.getReg().id();
        out.regName = impl_->registers->getName(operand.getReg());
      } else if (operand.isImm()) {
        out.kind = DecodedOperand::Kind::Immediate;
        out.imm = operand.getImm();
      } else if (operand.isDFPImm()) {
        out.kind = DecodedOperand::Kind::FloatImmediate;
        out.fpImm = llvm::bit_cast<double>(operand.getDFPImm());
      } else if (operand.isSFPImm()) {
        out.kind = DecodedOperand::Kind::FloatImmediate;
        out.fpImm = llvm::bit_cast<float>(operand.getSFPImm());
      } else if (operand.isExpr()) {
        out.kind = DecodedOperand::Kind::Expression;
        llvm::raw_string_ostream expression(out.expression);
        impl_->asmInfo->printExpr(expression, *operand.getExpr());
      }
      decoded.operands.push_back(std::move(out));
    }
    decoded.bytes = rest.take_front(size);
    instructions.push_back(std::move(decoded));
    offset += size;
  }
  return instructions;
}

Result<std::vector<DecodedInstruction>> disassembleKernel(llvm::ArrayRef<uint8_t> hsaco,
                                                          llvm::StringRef kernelName) {
  using R = Result<std::vector<DecodedInstruction>>;
  Result<CodeObjectImage> image = readCodeObject(hsaco);
  if (!image.ok())
    return image.status();
  for (const KernelImage &kernel : image.value().kernels) {
    if (kernel.info.name != kernelName)
      continue;
    Result<std::unique_ptr<Disassembler>> disassembler = Disassembler::create();
    if (!disassembler.ok())
      return disassembler.status();
    R instructions = disassembler.value()->disassemble(kernel.code, kernel.codeAddress);
    if (!instructions.ok())
      return R::failure("kernel '" + kernel.info.name + "': " + instructions.error());
    return instructions;
  }
  return R::failure("no kernel named '" + kernelName.str() + "'");
}

} // namespace mxf::codeobj
