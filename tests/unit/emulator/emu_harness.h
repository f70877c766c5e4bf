//===- emu_harness.h - Assemble snippets into kernels and run them -*- C++ -*-===//
//
// Test support for the emulator: wraps an assembly snippet in the
// `.amdhsa_kernel` boilerplate and a metadata note, assembles it with
// llvm-mc-22 and links it with ld.lld-22 at test time (so every test runs a
// real gfx950 code object), then launches it with host buffers.
//
// Buffer i is registered at device address bufferAddress(i) and the kernarg
// segment holds those addresses, 8 bytes each, in order. kPrologue loads the
// first four into s[4:5], s[6:7], s[8:9], s[10:11] and puts the byte offset
// 4 * (work-item x) in v1.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TESTS_EMULATOR_EMU_HARNESS_H
#define MXFORGE_TESTS_EMULATOR_EMU_HARNESS_H

#include "emulator/emulator.h"

#include "numerics/formats.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mxf::emu::test {

struct AsmKernel {
  std::string body;            // instructions (s_endpgm appended)
  unsigned vgprs = 64;         // .amdhsa_next_free_vgpr (ArchVGPRs)
  unsigned agprs = 0;          // AGPRs after them
  unsigned sgprs = 32;
  unsigned lds = 0;            // static group segment
  unsigned kernargSize = 64;
  unsigned workitemIdDims = 0; // .amdhsa_system_vgpr_workitem_id
  bool workgroupIdY = false, workgroupIdZ = false;
  unsigned floatDenormMode32 = 3; // 0: flush f32 denormals (refused unless countsOnly)
  std::string extraDirectives; // more .amdhsa_* lines
};

constexpr const char *kPrologue = R"(
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  s_load_dwordx4 s[8:11], s[0:1], 0x10
  s_waitcnt lgkmcnt(0)
  v_and_b32 v1, 0x3ff, v0
  v_lshlrev_b32 v1, 2, v1
)";

/// Assembles and loads (cached by source). Fails with llvm-mc's message.
Result<std::shared_ptr<const LoadedCodeObject>> build(const AsmKernel &kernel);
/// Assembles only: the HSACO bytes.
Result<std::vector<uint8_t>> assemble(const AsmKernel &kernel);
/// Assembles a raw .s file text (no wrapping) into a relocatable object's
/// .text bytes, for decoder tests.
Result<std::vector<uint8_t>> assembleText(const std::string &source);

constexpr uint64_t bufferAddress(unsigned i) { return 0x100000000ull * (i + 1); }

/// One buffer of dwords.
using Buffer = std::vector<uint32_t>;

/// Launches kernel "k" with `buffers` (registered in order, addresses in the
/// kernarg segment).
Result<LaunchStats> run(const LoadedCodeObject &code, std::vector<Buffer *> buffers,
                        std::array<uint32_t, 3> grid = {1, 1, 1},
                        std::array<uint32_t, 3> workgroup = {64, 1, 1}, uint32_t dynamicLds = 0,
                        unsigned threads = 1);

/// Assemble + run one workgroup with explicit launch options (schedules,
/// the timeline, counts-only).
Result<LaunchStats> runAsmWith(const AsmKernel &kernel, std::vector<Buffer *> buffers,
                               const LaunchOptions &options,
                               std::array<uint32_t, 3> workgroup = {64, 1, 1});

/// Assemble + run in one step.
Result<LaunchStats> runAsm(const AsmKernel &kernel, std::vector<Buffer *> buffers,
                           std::array<uint32_t, 3> grid = {1, 1, 1},
                           std::array<uint32_t, 3> workgroup = {64, 1, 1});

Buffer lanes(std::function<uint32_t(unsigned)> f, unsigned n = 64);

/// Runs `op` with v2, v3, v4 loaded from a, b, c and v5 from init (one
/// dword per lane), then stores v5 of every lane and returns it. An s_nop
/// follows `op` as real code needs after byte-select converts (§C2); it is a
/// functional no-op here.
Buffer runLaneOp(const std::string &op, const Buffer &a, const Buffer &b, const Buffer &c,
                 Buffer init = Buffer(64, 0));
inline uint32_t bits(float f) { return f32Bits(f); }
inline float flt(uint32_t b) { return f32FromBits(b); }

} // namespace mxf::emu::test

#endif // MXFORGE_TESTS_EMULATOR_EMU_HARNESS_H
