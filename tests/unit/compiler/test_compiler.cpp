//===- test_compiler.cpp - MLIR text -> gfx950 code object ----------------===//
//
// End-to-end tests of the compiler through compileMlirText (no MLIR headers
// here): the code object is a valid gfx950 ELF with the kernel we asked for,
// every stage can be stopped at and shown, failures name their stage and the
// diagnostic, nothing is left in the temporary directory, dumps are numbered,
// and concurrent compiles agree byte for byte.
//
//===----------------------------------------------------------------------===//

#include "compiler/compiler.h"
#include "tests/unit/compiler/test_kernels.h"
#include "tests/unit/compiler/test_support.h"

#include "codeobj/hsaco_reader.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <thread>

namespace mxf {
namespace {

using test::listDirectory;
using test::ScratchDir;

Result<CodeObject> compileText(const char *text, CompileOptions options = {},
                               const std::string &name = "test.mlir") {
  return compileMlirText(text, name, options);
}

/// The text of one stage (compile stopped after it).
std::string stageText(const char *text, const std::string &stage) {
  CompileOptions options;
  std::string out;
  options.stopAfter = stage;
  options.stageText = &out;
  Result<CodeObject> result = compileText(text, options);
  EXPECT_TRUE(result.ok()) << result.error();
  return out;
}

/// Points TMPDIR at `dir` for the lifetime of this object.
class TmpDirOverride {
public:
  explicit TmpDirOverride(const std::string &dir) {
    if (const char *old = std::getenv("TMPDIR"))
      old_ = old;
    setenv("TMPDIR", dir.c_str(), 1);
  }
  ~TmpDirOverride() {
    if (old_)
      setenv("TMPDIR", old_->c_str(), 1);
    else
      unsetenv("TMPDIR");
  }

private:
  std::optional<std::string> old_;
};

using ELF = llvm::object::ELF64LEObjectFile;

TEST(Compiler, QuantMfmaKernelBecomesAValidGfx950CodeObject) {
  Result<CodeObject> result = compileText(test::kQuantMfma, {}, "quant_mfma.mlir");
  ASSERT_TRUE(result.ok()) << result.error();
  const CodeObject &co = result.value();
  EXPECT_EQ(co.spec, "quant_mfma.mlir");
  ASSERT_FALSE(co.hsaco.empty());

  llvm::StringRef bytes(reinterpret_cast<const char *>(co.hsaco.data()), co.hsaco.size());
  llvm::Expected<ELF> elf = ELF::create(llvm::MemoryBufferRef(bytes, "quant_mfma.hsaco"));
  ASSERT_TRUE(static_cast<bool>(elf)) << llvm::toString(elf.takeError());
  const auto &header = elf->getELFFile().getHeader();
  EXPECT_EQ(header.e_machine, llvm::ELF::EM_AMDGPU);
  EXPECT_EQ(header.e_type, llvm::ELF::ET_DYN);
  EXPECT_EQ(header.e_ident[llvm::ELF::EI_OSABI], llvm::ELF::ELFOSABI_AMDGPU_HSA);
  EXPECT_EQ(header.e_ident[llvm::ELF::EI_ABIVERSION], llvm::ELF::ELFABIVERSION_AMDGPU_HSA_V5);
  EXPECT_EQ(header.e_flags & llvm::ELF::EF_AMDGPU_MACH, llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX950);
  // No feature string: xnack and sramecc are "any" (v4+ encoding).
  EXPECT_EQ(header.e_flags & llvm::ELF::EF_AMDGPU_FEATURE_XNACK_V4,
            llvm::ELF::EF_AMDGPU_FEATURE_XNACK_ANY_V4);
  EXPECT_EQ(header.e_flags & llvm::ELF::EF_AMDGPU_FEATURE_SRAMECC_V4,
            llvm::ELF::EF_AMDGPU_FEATURE_SRAMECC_ANY_V4);

  bool hasDescriptor = false, hasKernelCode = false;
  auto checkSymbols = [&](auto symbols) {
    for (const llvm::object::ELFSymbolRef &symbol : symbols) {
      llvm::Expected<llvm::StringRef> name = symbol.getName();
      ASSERT_TRUE(static_cast<bool>(name)) << llvm::toString(name.takeError());
      llvm::Expected<uint32_t> flags = symbol.getFlags();
      ASSERT_TRUE(static_cast<bool>(flags)) << llvm::toString(flags.takeError());
      EXPECT_FALSE(*flags & llvm::object::SymbolRef::SF_Undefined)
          << "undefined symbol '" << name->str() << "'";
      hasDescriptor |= *name == "quant_mfma.kd";
      hasKernelCode |= *name == "quant_mfma";
    }
  };
  checkSymbols(elf->symbols());
  checkSymbols(elf->getDynamicSymbolIterators());
  EXPECT_TRUE(hasDescriptor);
  EXPECT_TRUE(hasKernelCode);

  // Read back from the metadata note by codeobj/ (not predicted).
  const KernelInfo &k = co.kernel;
  EXPECT_EQ(k.name, "quant_mfma");
  EXPECT_EQ(k.codeObjectVersion, 5u);
  EXPECT_NE(k.target.find("gfx950"), std::string::npos) << k.target;
  EXPECT_EQ(k.scratchBytes, 0u);
  EXPECT_EQ(k.vgprSpillCount, 0u);
  EXPECT_EQ(k.sgprSpillCount, 0u);
  EXPECT_EQ(k.maxWorkgroupSize, 64u); // from known_block_size
  EXPECT_EQ(k.wavefrontSize, 64u);
  ASSERT_EQ(k.explicitArgCount(), 6u);
  // Bare pointers: one 8-byte kernarg per memref, then the f32.
  const uint32_t offsets[] = {0, 8, 16, 24, 32, 40};
  const uint32_t sizes[] = {8, 8, 8, 8, 8, 4};
  for (size_t i = 0; i < 6; ++i) {
    SCOPED_TRACE("argument " + std::to_string(i));
    EXPECT_EQ(k.args[i].offset, offsets[i]);
    EXPECT_EQ(k.args[i].size, sizes[i]);
    EXPECT_EQ(k.args[i].valueKind, i < 5 ? "global_buffer" : "by_value");
  }
  EXPECT_GE(k.kernargSize, 44u);
  // The O3 pipeline keeps the kernarg segment small (TOOLCHAIN.md: 304 B
  // without it for a similar kernel).
  EXPECT_LE(k.kernargSize, 304u);

  // codeobj/'s reader agrees when run on the bytes directly.
  Result<std::vector<KernelInfo>> infos = codeobj::readKernelInfos(co.hsaco);
  ASSERT_TRUE(infos.ok()) << infos.error();
  ASSERT_EQ(infos.value().size(), 1u);
  EXPECT_EQ(infos.value()[0].kernargSize, k.kernargSize);
}

TEST(Compiler, CodeObjectVersion6) {
  CompileOptions options;
  options.codeObjectVersion = 6;
  Result<CodeObject> result = compileText(test::kQuantMfma, options);
  ASSERT_TRUE(result.ok()) << result.error();
  const std::vector<uint8_t> &hsaco = result.value().hsaco;
  ASSERT_GT(hsaco.size(), size_t(llvm::ELF::EI_ABIVERSION));
  EXPECT_EQ(hsaco[llvm::ELF::EI_ABIVERSION], llvm::ELF::ELFABIVERSION_AMDGPU_HSA_V6);
  EXPECT_EQ(result.value().kernel.codeObjectVersion, 6u);
}

TEST(Compiler, EveryStageCanBeShown) {
  const std::string mxf = stageText(test::kQuantMfma, "mxf");
  EXPECT_CONTAINS(mxf, "amdgpu.mfma 16x16x32");
  EXPECT_CONTAINS(mxf, "amdgpu.packed_scaled_trunc");
  // gpu-level input: nothing to lower, the gpu stage is the input.
  EXPECT_EQ(stageText(test::kQuantMfma, "gpu"), mxf);

  const std::string rocdl = stageText(test::kQuantMfma, "rocdl");
  EXPECT_CONTAINS(rocdl, "rocdl.mfma.f32.16x16x32.bf16");
  EXPECT_CONTAINS(rocdl, "rocdl.cvt.scalef32.pk.fp4.f32");
  EXPECT_CONTAINS(rocdl, "rocdl.kernel");
  EXPECT_EQ(rocdl.find("amdgpu."), std::string::npos);
  EXPECT_EQ(rocdl.find("vector."), std::string::npos);
  EXPECT_EQ(rocdl.find("unrealized_conversion_cast"), std::string::npos);

  const std::string llvmIr = stageText(test::kQuantMfma, "llvm");
  EXPECT_CONTAINS(llvmIr, "target triple = \"amdgcn-amd-amdhsa\"");
  EXPECT_CONTAINS(llvmIr, "amdgpu_kernel void @quant_mfma");
  EXPECT_CONTAINS(llvmIr, "@llvm.amdgcn.mfma.f32.16x16x32.bf16");
  EXPECT_CONTAINS(llvmIr, "@llvm.amdgcn.cvt.scalef32.pk.fp4.f32");
  EXPECT_CONTAINS(llvmIr, "!\"amdhsa_code_object_version\", i32 500");

  const std::string assembly = stageText(test::kQuantMfma, "asm");
  EXPECT_CONTAINS(assembly, "v_mfma_f32_16x16x32_bf16");
  EXPECT_CONTAINS(assembly, "v_cvt_scalef32_pk_fp4_f32");
  EXPECT_CONTAINS(assembly, "s_endpgm");
  EXPECT_CONTAINS(assembly, ".amdgcn_target \"amdgcn-amd-amdhsa--gfx950\"");
  EXPECT_EQ(assembly.find("scratch_"), std::string::npos);
  // O3 turned the bare pointers into global (not flat) accesses.
  EXPECT_CONTAINS(assembly, "global_load");
  EXPECT_EQ(assembly.find("flat_load"), std::string::npos);
}

TEST(Compiler, StoppingEarlyGivesNoCodeObject) {
  CompileOptions options;
  std::string text;
  options.stopAfter = "rocdl";
  options.stageText = &text;
  Result<CodeObject> result = compileText(test::kQuantMfma, options);
  ASSERT_TRUE(result.ok()) << result.error();
  EXPECT_TRUE(result.value().hsaco.empty());
  EXPECT_TRUE(result.value().kernel.name.empty());
  EXPECT_FALSE(text.empty());
}

TEST(Compiler, SyntaxErrorNamesStageLocationAndDiagnostic) {
  Result<CodeObject> result = compileText(test::kSyntaxError, {}, "broken.mlir");
  ASSERT_FALSE(result.ok());
  EXPECT_CONTAINS(result.error(), "[stage mxf] broken.mlir: cannot parse the input");
  EXPECT_CONTAINS(result.error(), "broken.mlir:4:");
  EXPECT_CONTAINS(result.error(), "error: ");
}

TEST(Compiler, UnsupportedOpFailsInTheRocdlStage) {
  Result<CodeObject> result = compileText(test::kWmma, {}, "wmma.mlir");
  ASSERT_FALSE(result.ok());
  EXPECT_CONTAINS(result.error(), "[stage rocdl] wmma.mlir: ");
  EXPECT_CONTAINS(result.error(), "WMMA only supported on gfx11 and gfx12");
  EXPECT_CONTAINS(result.error(), "wmma.mlir:8:");
}

TEST(Compiler, DeviceLibraryCallsFailTheLinkNamingTheSymbol) {
  Result<CodeObject> blockDim = compileText(test::kBlockDim, {}, "block_dim.mlir");
  ASSERT_FALSE(blockDim.ok());
  EXPECT_CONTAINS(blockDim.error(), "[stage hsaco] block_dim.mlir: lld failed");
  EXPECT_CONTAINS(blockDim.error(), "undefined symbol: __ockl_get_local_size");
  // The object is named without the (already removed) temporary directory.
  EXPECT_CONTAINS(blockDim.error(), ">>> referenced by kernel.o:(block_dim)");
  EXPECT_EQ(blockDim.error().find("mxforge-lld"), std::string::npos) << blockDim.error();

  Result<CodeObject> tanh = compileText(test::kTanh, {}, "tanh.mlir");
  ASSERT_FALSE(tanh.ok());
  EXPECT_CONTAINS(tanh.error(), "[stage hsaco]");
  EXPECT_CONTAINS(tanh.error(), "undefined symbol: __ocml_tanh_f32");
}

TEST(Compiler, LlvmErrorsAreReportedNotFatal) {
  Result<CodeObject> result = compileText(test::kBigLds, {}, "big_lds.mlir");
  ASSERT_FALSE(result.ok());
  EXPECT_CONTAINS(result.error(), "[stage asm] big_lds.mlir: AMDGPU code generation failed");
  EXPECT_CONTAINS(result.error(),
                  "llvm: error: local memory (262144) exceeds limit (163840) in function "
                  "'big_lds'");
}

// A code generation that fails half way (LLVM reports the LDS overflow
// while the kept pipeline runs, compiler/gfx950_target.h) must not leave
// anything behind for the next compile on the same pooled target.
TEST(Compiler, CodeGenerationFailureLeavesTheNextCompileIntact) {
  CompileOptions fresh;
  fresh.freshCodeGenPipeline = true;
  Result<CodeObject> reference = compileText(test::kQuantMfma, fresh);
  ASSERT_TRUE(reference.ok()) << reference.error();
  for (int round = 0; round < 3; ++round) {
    EXPECT_FALSE(compileText(test::kBigLds, {}, "big_lds.mlir").ok());
    Result<CodeObject> after = compileText(test::kQuantMfma);
    ASSERT_TRUE(after.ok()) << after.error();
    EXPECT_TRUE(after.value().hsaco == reference.value().hsaco) << "round " << round;
  }
}

TEST(Compiler, ModuleShapeErrors) {
  Result<CodeObject> two = compileText(test::kTwoKernels, {}, "two.mlir");
  ASSERT_FALSE(two.ok());
  EXPECT_CONTAINS(two.error(), "[stage llvm] two.mlir: gpu.module @kernels holds 2 "
                                     "kernels (first, second)");

  Result<CodeObject> none = compileText(test::kNoGpuModule, {}, "host.mlir");
  ASSERT_FALSE(none.ok());
  EXPECT_CONTAINS(none.error(), "[stage rocdl] host.mlir: the module holds no gpu.module");
}

TEST(Compiler, InvalidOptionsAreRejectedUpFront) {
  CompileOptions badStage;
  std::string text;
  badStage.stopAfter = "ptx";
  badStage.stageText = &text;
  Result<CodeObject> r1 = compileText(test::kQuantMfma, badStage);
  ASSERT_FALSE(r1.ok());
  EXPECT_CONTAINS(r1.error(), "stop-after stage 'ptx' is not one of "
                                    "mxf|gpu|rocdl|llvm|asm|hsaco");

  CompileOptions badCov;
  badCov.codeObjectVersion = 4;
  Result<CodeObject> r2 = compileText(test::kQuantMfma, badCov);
  ASSERT_FALSE(r2.ok());
  EXPECT_CONTAINS(r2.error(), "code object version 4 is not 5 or 6");

  CompileOptions noText;
  noText.stopAfter = "asm";
  Result<CodeObject> r3 = compileText(test::kQuantMfma, noText);
  ASSERT_FALSE(r3.ok());
  EXPECT_CONTAINS(r3.error(), "CompileOptions::stageText");
}

TEST(Compiler, DiagnosticsStayOffStderr) {
  ::testing::internal::CaptureStderr();
  Result<CodeObject> failed = compileText(test::kWmma);
  Result<CodeObject> linkFailed = compileText(test::kTanh);
  Result<CodeObject> codegenFailed = compileText(test::kBigLds);
  Result<CodeObject> ok = compileText(test::kQuantMfma);
  const std::string stderrText = ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(failed.ok());
  EXPECT_FALSE(linkFailed.ok());
  EXPECT_FALSE(codegenFailed.ok());
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(stderrText, "");
}

TEST(Compiler, DiagnosticsCanBeEchoed) {
  std::string echoed;
  llvm::raw_string_ostream echo(echoed);
  CompileOptions options;
  options.diagnosticStream = &echo;
  EXPECT_FALSE(compileText(test::kWmma, options).ok());
  EXPECT_CONTAINS(echoed, "WMMA only supported on gfx11 and gfx12");
}

TEST(Compiler, NoTemporaryFilesAreLeftBehind) {
  ScratchDir tmp;
  TmpDirOverride override(tmp.path());
  // Success, a link failure and a compile that never reaches the linker.
  EXPECT_TRUE(compileText(test::kQuantMfma).ok());
  EXPECT_FALSE(compileText(test::kBlockDim).ok());
  EXPECT_FALSE(compileText(test::kWmma).ok());
  EXPECT_EQ(listDirectory(tmp.path()), std::vector<std::string>{});
}

TEST(Compiler, TheLinkDirectoryComesFromTmpdir) {
  // Proves the test above looked in the right place: with TMPDIR unusable,
  // the link cannot make its directory, and says what to do.
  ScratchDir tmp;
  TmpDirOverride override(tmp.file("does-not-exist"));
  Result<CodeObject> result = compileText(test::kQuantMfma, {}, "k.mlir");
  ASSERT_FALSE(result.ok());
  EXPECT_CONTAINS(result.error(), "[stage hsaco] k.mlir: cannot create a temporary directory "
                                  "for lld");
  EXPECT_CONTAINS(result.error(), "set TMPDIR to a writable directory");
}

TEST(Compiler, DumpDirectoryHoldsEveryStageInOrder) {
  ScratchDir tmp;
  const std::string dir = tmp.file("dumps/nested"); // created on demand
  CompileOptions options;
  options.dumpDir = dir;
  Result<CodeObject> result = compileText(test::kQuantMfma, options);
  ASSERT_TRUE(result.ok()) << result.error();
  const std::vector<std::string> expected = {
      "00-input.mlir",
      "01-lower-affine.mlir",
      "02-convert-scf-to-cf.mlir",
      "03-expand-strided-metadata.mlir",
      "04-convert-vector-to-llvm.mlir",
      "05-convert-amdgpu-to-rocdl.mlir",
      "06-convert-gpu-to-rocdl.mlir",
      "07-reconcile-unrealized-casts.mlir",
      "08-kernel.ll",
      "09-kernel-O3.ll",
      "10-kernel.s",
      "11-kernel.hsaco",
  };
  EXPECT_EQ(listDirectory(dir), expected);

  // The dumped code object is the one returned.
  auto hsaco = llvm::MemoryBuffer::getFile(dir + "/11-kernel.hsaco", false, false);
  ASSERT_TRUE(static_cast<bool>(hsaco));
  EXPECT_EQ(std::vector<uint8_t>((*hsaco)->getBuffer().bytes_begin(),
                                 (*hsaco)->getBuffer().bytes_end()),
            result.value().hsaco);
  auto rocdl = llvm::MemoryBuffer::getFile(dir + "/07-reconcile-unrealized-casts.mlir");
  ASSERT_TRUE(static_cast<bool>(rocdl));
  EXPECT_CONTAINS((*rocdl)->getBuffer().str(), "rocdl.mfma.f32.16x16x32.bf16");
  auto assembly = llvm::MemoryBuffer::getFile(dir + "/10-kernel.s");
  ASSERT_TRUE(static_cast<bool>(assembly));
  EXPECT_CONTAINS((*assembly)->getBuffer().str(), "v_mfma_f32_16x16x32_bf16");
}

TEST(Compiler, DumpsOfAFailedCompileShowTheFailingPass) {
  ScratchDir tmp;
  CompileOptions options;
  options.dumpDir = tmp.path();
  EXPECT_FALSE(compileText(test::kWmma, options).ok());
  const std::vector<std::string> files = listDirectory(tmp.path());
  ASSERT_FALSE(files.empty());
  EXPECT_EQ(files.front(), "00-input.mlir");
  EXPECT_EQ(files.back(), "05-convert-amdgpu-to-rocdl-failed.mlir");
}

TEST(Compiler, UnwritableDumpDirectoryIsAnError) {
  ScratchDir tmp;
  const std::string file = tmp.file("not-a-directory");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(file, ec);
    ASSERT_FALSE(ec);
  }
  CompileOptions options;
  options.dumpDir = file + "/dumps";
  Result<CodeObject> result = compileText(test::kQuantMfma, options);
  ASSERT_FALSE(result.ok());
  EXPECT_CONTAINS(result.error(), "cannot create dump directory");
}

TEST(Compiler, PrintIrAfterAllPrintsEveryPassAndStage) {
  std::string printed;
  llvm::raw_string_ostream print(printed);
  CompileOptions options;
  options.printIrAfterAll = true;
  options.printStream = &print;
  ASSERT_TRUE(compileText(test::kQuantMfma, options).ok());
  EXPECT_CONTAINS(printed, "// -----// IR Dump of the input //----- //");
  EXPECT_CONTAINS(printed, "(convert-gpu-to-rocdl) //----- //");
  EXPECT_CONTAINS(printed, "// -----// LLVM IR after O3 //----- //");
  EXPECT_CONTAINS(printed, "// -----// gfx950 assembly //----- //");
  EXPECT_CONTAINS(printed, "v_mfma_f32_16x16x32_bf16");
}

TEST(Compiler, ConcurrentCompilesAreByteIdentical) {
  Result<CodeObject> reference = compileText(test::kQuantMfma);
  ASSERT_TRUE(reference.ok()) << reference.error();
  constexpr int kThreads = 4, kRounds = 3;
  std::vector<std::vector<std::vector<uint8_t>>> outputs(kThreads);
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRounds; ++round) {
        // Mix in failing compiles: error paths run concurrently too.
        if (round == 1) {
          EXPECT_FALSE(compileText(test::kTanh).ok());
        }
        Result<CodeObject> result = compileText(test::kQuantMfma);
        if (!result.ok()) {
          errors[t] = result.error();
          return;
        }
        outputs[t].push_back(result.value().hsaco);
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(errors[t], "");
    ASSERT_EQ(outputs[t].size(), size_t(kRounds));
    for (const std::vector<uint8_t> &hsaco : outputs[t])
      EXPECT_TRUE(hsaco == reference.value().hsaco) << "thread " << t << " differs";
  }
}

TEST(Compiler, VerifyingEveryPassChangesNothing) {
  CompileOptions everyPass;
  everyPass.verifyEachPass = true;
  Result<CodeObject> verified = compileText(test::kQuantMfma, everyPass);
  Result<CodeObject> plain = compileText(test::kQuantMfma);
  ASSERT_TRUE(verified.ok()) << verified.error();
  ASSERT_TRUE(plain.ok()) << plain.error();
  EXPECT_TRUE(verified.value().hsaco == plain.value().hsaco);
}

// Prints compile latency, cumulative up to each stage (never asserts a
// timing: machines differ). Run alone to see the first compile of a process.
TEST(Compiler, CompileLatency) {
  using Clock = std::chrono::steady_clock;
  auto time = [](const char *stage) {
    CompileOptions options;
    std::string text;
    options.stopAfter = stage;
    options.stageText = &text;
    const auto start = Clock::now();
    Result<CodeObject> result = compileText(test::kQuantMfma, options);
    EXPECT_TRUE(result.ok()) << result.error();
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  };
  const double first = time("hsaco");
  std::printf("[ latency  ] quant_mfma: first compile in this test %.1f ms\n", first);
  for (const char *stage : {"mxf", "rocdl", "llvm", "asm", "hsaco"}) {
    double best = 1e9;
    for (int i = 0; i < 10; ++i)
      best = std::min(best, time(stage));
    std::printf("[ latency  ] quant_mfma: up to %-5s best of 10 %5.1f ms\n", stage, best);
  }
}

} // namespace
} // namespace mxf
