//===- opcode_table.h - Mnemonic -> semantics, and LLVM opcodes --*- C++ -*-===//
//
// Each semantics file registers its handlers by base mnemonic
// ("v_add_co_u32"). At start-up the table walks every opcode of LLVM's
// MCInstrInfo once and maps opcode numbers (specific to one LLVM build) to
// handlers through their names, e.g. V_ADD_CO_U32_e32_gfx9 -> v_add_co_u32:
// LLVM's variant suffixes are lowercase (e32, sdwa, vi, gfx940, vcd, f4_f4)
// or one of a few uppercase addressing tags (IMM, SGPR, SADDR).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_EMULATOR_OPCODE_TABLE_H
#define MXFORGE_EMULATOR_OPCODE_TABLE_H

#include "emulator/instruction.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>
#include <vector>

namespace mxf::emu {

class OpRegistry {
public:
  /// Registers `mnemonic` (lowercase base form). The family comes from
  /// codeobj's classification, so statistics match `mxforge inspect`.
  void add(llvm::StringRef mnemonic, Handler handler);
  const OpInfo *find(llvm::StringRef mnemonic) const;
  size_t size() const { return ops_.size(); }
  /// Every registered mnemonic, sorted (docs/emulator.md's table).
  std::vector<std::string> mnemonics() const;

private:
  llvm::StringMap<std::unique_ptr<OpInfo>> ops_;
};

/// The registry with every family's handlers (built once, thread-safe).
const OpRegistry &opRegistry();

/// LLVM opcode name -> base mnemonic: "S_LOAD_DWORDX2_IMM_vi" -> "s_load_dwordx2".
std::string baseMnemonic(llvm::StringRef opcodeName);

/// Printed mnemonic -> base mnemonic: drops _e32, _e64, _sdwa, _dpp.
std::string basePrintedMnemonic(llvm::StringRef printed);

// Registration functions, one per semantics file.
void registerSalu(OpRegistry &registry);
void registerSopp(OpRegistry &registry);
void registerSmem(OpRegistry &registry);
void registerValu(OpRegistry &registry);
void registerValuFloat(OpRegistry &registry);
void registerValuCmp(OpRegistry &registry);
void registerValuPacked(OpRegistry &registry);
void registerVmem(OpRegistry &registry);
void registerMubuf(OpRegistry &registry);
void registerLds(OpRegistry &registry);
void registerMfma(OpRegistry &registry);
void registerCvtScaled(OpRegistry &registry);
void registerPermlane(OpRegistry &registry);
void registerSwizzle(OpRegistry &registry);
void registerHwReg(OpRegistry &registry);

} // namespace mxf::emu

#endif // MXFORGE_EMULATOR_OPCODE_TABLE_H
