//===- emu_harness.cpp - Assemble snippets into kernels and run them ------===//

#include "emu_harness.h"

#include <gtest/gtest.h>

#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstring>
#include <map>
#include <mutex>
#include <sstream>

namespace mxf::emu::test {

namespace {

std::string wrap(const AsmKernel &k) {
  const unsigned accum = ((k.vgprs + 3) / 4) * 4;
  const unsigned totalVgprs = k.agprs ? accum + k.agprs : k.vgprs;
  std::ostringstream s;
  s << ".amdgcn_target \"amdgcn-amd-amdhsa--gfx950\"\n"
    << ".text\n.globl k\n.p2align 8\n.type k,@function\nk:\n"
    << k.body << "\n  s_endpgm\n.Lk_end:\n.size k, .Lk_end-k\n\n"
    << ".rodata\n.p2align 6\n.amdhsa_kernel k\n"
    << "  .amdhsa_next_free_vgpr " << totalVgprs << "\n"
    << "  .amdhsa_next_free_sgpr " << k.sgprs << "\n"
    << "  .amdhsa_accum_offset " << (k.agprs ? accum : std::max(4u, accum)) << "\n"
    << "  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n"
    << "  .amdhsa_system_sgpr_workgroup_id_x 1\n"
    << "  .amdhsa_system_sgpr_workgroup_id_y " << (k.workgroupIdY ? 1 : 0) << "\n"
    << "  .amdhsa_system_sgpr_workgroup_id_z " << (k.workgroupIdZ ? 1 : 0) << "\n"
    << "  .amdhsa_system_vgpr_workitem_id " << k.workitemIdDims << "\n"
    << "  .amdhsa_group_segment_fixed_size " << k.lds << "\n"
    << "  .amdhsa_kernarg_size " << k.kernargSize << "\n"
    << "  .amdhsa_float_denorm_mode_32 " << k.floatDenormMode32
    << "\n  .amdhsa_float_denorm_mode_16_64 3\n"
    << k.extraDirectives << ".end_amdhsa_kernel\n\n"
    << ".amdgpu_metadata\n---\namdhsa.version: [ 1, 2 ]\n"
    << "amdhsa.target: amdgcn-amd-amdhsa--gfx950\namdhsa.kernels:\n"
    << "  - .name: k\n    .symbol: k.kd\n"
    << "    .kernarg_segment_size: " << k.kernargSize << "\n"
    << "    .kernarg_segment_align: 8\n"
    << "    .group_segment_fixed_size: " << k.lds << "\n"
    << "    .private_segment_fixed_size: 0\n    .wavefront_size: 64\n"
    << "    .sgpr_count: " << k.sgprs << "\n"
    << "    .vgpr_count: " << totalVgprs << "\n"
    << "    .agpr_count: " << k.agprs << "\n"
    << "    .max_flat_workgroup_size: 1024\n"
    << "...\n.end_amdgpu_metadata\n";
  return s.str();
}

/// Runs a tool; on failure returns its stderr.
Status runTool(llvm::StringRef program, llvm::ArrayRef<llvm::StringRef> args,
               const std::string &errFile) {
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, std::nullopt,
                                                llvm::StringRef(errFile)};
  std::string message;
  const int rc = llvm::sys::ExecuteAndWait(program, args, std::nullopt, redirects, 60, 0,
                                           &message);
  if (rc == 0)
    return Status::success();
  auto err = llvm::MemoryBuffer::getFile(errFile);
  return Status::failure(program.str() + " failed (" + std::to_string(rc) + "): " +
                         (err ? (*err)->getBuffer().str() : message));
}

struct TempDir {
  llvm::SmallString<128> path;
  TempDir() { llvm::sys::fs::createUniqueDirectory("mxforge-emu-test", path); }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
  std::string file(const char *name) const {
    llvm::SmallString<128> p(path);
    llvm::sys::path::append(p, name);
    return std::string(p);
  }
};

Status writeFile(const std::string &path, const std::string &text) {
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec);
  if (ec)
    return Status::failure("cannot write " + path);
  out << text;
  return Status::success();
}

Result<std::vector<uint8_t>> readFile(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return Result<std::vector<uint8_t>>::failure("cannot read " + path);
  return std::vector<uint8_t>((*buffer)->getBufferStart(), (*buffer)->getBufferEnd());
}

} // namespace

Result<std::vector<uint8_t>> assemble(const AsmKernel &kernel) {
  using R = Result<std::vector<uint8_t>>;
  TempDir dir;
  const std::string src = dir.file("k.s"), obj = dir.file("k.o"), out = dir.file("k.hsaco"),
                    err = dir.file("err.txt");
  if (Status s = writeFile(src, wrap(kernel)); !s.ok())
    return s;
  if (Status s = runTool(MXFORGE_LLVM_MC,
                         {"llvm-mc", "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx950", "-filetype=obj",
                          src, "-o", obj},
                         err);
      !s.ok())
    return R::failure(s.message());
  if (Status s = runTool(MXFORGE_LD_LLD, {"ld.lld", "-shared", obj, "-o", out}, err); !s.ok())
    return R::failure(s.message());
  return readFile(out);
}

Result<std::vector<uint8_t>> assembleText(const std::string &source) {
  using R = Result<std::vector<uint8_t>>;
  TempDir dir;
  const std::string src = dir.file("t.s"), obj = dir.file("t.o"), err = dir.file("err.txt");
  if (Status s = writeFile(src, source); !s.ok())
    return s;
  if (Status s = runTool(MXFORGE_LLVM_MC,
                         {"llvm-mc", "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx950", "-filetype=obj",
                          src, "-o", obj},
                         err);
      !s.ok())
    return R::failure(s.message());
  auto buffer = llvm::MemoryBuffer::getFile(obj);
  if (!buffer)
    return R::failure("cannot read " + obj);
  auto object = llvm::object::ObjectFile::createObjectFile((*buffer)->getMemBufferRef());
  if (!object) {
    llvm::consumeError(object.takeError());
    return R::failure("not an object file");
  }
  for (const llvm::object::SectionRef &section : (*object)->sections()) {
    if (!section.isText())
      continue;
    auto contents = section.getContents();
    if (!contents) {
      llvm::consumeError(contents.takeError());
      continue;
    }
    return std::vector<uint8_t>(contents->begin(), contents->end());
  }
  return R::failure("no .text");
}

Result<std::shared_ptr<const LoadedCodeObject>> build(const AsmKernel &kernel) {
  using R = Result<std::shared_ptr<const LoadedCodeObject>>;
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const LoadedCodeObject>> cache;
  const std::string key = wrap(kernel);
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(key);
    if (it != cache.end())
      return it->second;
  }
  Result<std::vector<uint8_t>> bytes = assemble(kernel);
  if (!bytes.ok())
    return R::failure(bytes.error());
  R loaded = LoadedCodeObject::load(bytes.value().data(), bytes.value().size());
  if (loaded.ok()) {
    std::lock_guard<std::mutex> lock(mutex);
    cache[key] = loaded.value();
  }
  return loaded;
}

Result<LaunchStats> run(const LoadedCodeObject &code, std::vector<Buffer *> buffers,
                        std::array<uint32_t, 3> grid, std::array<uint32_t, 3> workgroup,
                        uint32_t dynamicLds, unsigned threads) {
  std::vector<EmuBuffer> registered;
  std::vector<uint8_t> kernargs(64, 0);
  for (unsigned i = 0; i < buffers.size(); ++i) {
    registered.push_back({bufferAddress(i), buffers[i]->data(), buffers[i]->size() * 4});
    const uint64_t address = bufferAddress(i);
    if (8 * i + 8 > kernargs.size())
      kernargs.resize(8 * i + 8, 0);
    std::memcpy(&kernargs[8 * i], &address, 8);
  }
  LaunchOptions options;
  options.threads = threads;
  return launch(code, "k", grid, workgroup, dynamicLds, kernargs, registered, options);
}

Result<LaunchStats> runAsm(const AsmKernel &kernel, std::vector<Buffer *> buffers,
                           std::array<uint32_t, 3> grid, std::array<uint32_t, 3> workgroup) {
  auto code = build(kernel);
  if (!code.ok())
    return Result<LaunchStats>::failure(code.error());
  return run(*code.value(), std::move(buffers), grid, workgroup);
}

Buffer lanes(std::function<uint32_t(unsigned)> f, unsigned n) {
  Buffer b(n);
  for (unsigned i = 0; i < n; ++i)
    b[i] = f(i);
  return b;
}

Buffer runLaneOp(const std::string &op, const Buffer &a, const Buffer &b, const Buffer &c,
                 Buffer init) {
  AsmKernel k;
  k.body = std::string(kPrologue) + R"(
  global_load_dword v2, v1, s[6:7]
  global_load_dword v3, v1, s[8:9]
  global_load_dword v4, v1, s[10:11]
  global_load_dword v5, v1, s[4:5]
  s_waitcnt vmcnt(0)
)" + op + R"(
  s_nop 1
  global_store_dword v1, v5, s[4:5]
)";
  Buffer out = std::move(init), ia = a, ib = b, ic = c;
  auto stats = runAsm(k, {&out, &ia, &ib, &ic});
  EXPECT_TRUE(stats.ok()) << stats.error();
  return out;
}

Result<LaunchStats> runAsmWith(const AsmKernel &kernel, std::vector<Buffer *> buffers,
                               const LaunchOptions &options, std::array<uint32_t, 3> workgroup) {
  auto code = build(kernel);
  if (!code.ok())
    return Result<LaunchStats>::failure(code.error());
  std::vector<EmuBuffer> registered;
  std::vector<uint8_t> kernargs(64, 0);
  for (unsigned i = 0; i < buffers.size(); ++i) {
    const uint64_t address = bufferAddress(i);
    registered.push_back({address, buffers[i]->data(), buffers[i]->size() * 4});
    std::memcpy(&kernargs[8 * i], &address, 8);
  }
  return launch(*code.value(), "k", {1, 1, 1}, workgroup, 0, kernargs, registered, options);
}

} // namespace mxf::emu::test
