//===- test_hsaco_reader.cpp - KernelInfo and descriptors, checked --------===//
//
// readKernelInfos and readKernelDescriptor on code objects built from
// Inputs/*.ll, compared with independent facts: the arguments and LDS the .ll
// files declare, llvm-readelf's decoding of the metadata note, and the
// .amdhsa_* directives llc wrote for the same descriptor.
//
//===----------------------------------------------------------------------===//

#include "codeobj/hsaco_reader.h"

#include "tests/unit/codeobj/codeobj_test_support.h"

#include "llvm/BinaryFormat/MsgPackDocument.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

namespace mxf::codeobj {
namespace {

using namespace mxf::codeobj::testing;

const KernelInfo *findKernel(const std::vector<KernelInfo> &infos, llvm::StringRef name) {
  for (const KernelInfo &info : infos)
    if (info.name == name)
      return &info;
  ADD_FAILURE() << "no kernel " << name.str();
  return nullptr;
}

std::vector<KernelInfo> infosOf(llvm::StringRef hsaco) {
  Result<std::vector<KernelInfo>> infos = readKernelInfos(loadHsaco(hsaco));
  EXPECT_TRUE(infos.ok()) << hsaco.str() << ": " << infos.error();
  return infos.ok() ? infos.value() : std::vector<KernelInfo>();
}

void expectArg(const KernelArgInfo &arg, const char *name, const char *kind,
               const char *addressSpace, uint32_t offset, uint32_t size) {
  EXPECT_EQ(arg.name, name);
  EXPECT_EQ(arg.valueKind, kind);
  EXPECT_EQ(arg.addressSpace, addressSpace);
  EXPECT_EQ(arg.offset, offset) << name;
  EXPECT_EQ(arg.size, size) << name;
}

TEST(HsacoReader, ArgumentsAreTheOnesDeclaredInTheSource) {
  std::vector<KernelInfo> infos = infosOf("mfma_cvt");
  ASSERT_EQ(infos.size(), 2u);
  const KernelInfo *k = findKernel(infos, "mfma_cvt");
  ASSERT_NE(k, nullptr);
  // (ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %out, float %scale)
  ASSERT_EQ(k->explicitArgCount(), 4u);
  expectArg(k->args[0], "a", "global_buffer", "global", 0, 8);
  expectArg(k->args[1], "b", "global_buffer", "global", 8, 8);
  expectArg(k->args[2], "out", "global_buffer", "global", 16, 8);
  expectArg(k->args[3], "scale", "by_value", "", 24, 4);
  // v5+ appends hidden arguments after the explicit ones.
  ASSERT_GT(k->args.size(), 4u);
  EXPECT_EQ(k->args[4].valueKind, "hidden_block_count_x");
  EXPECT_EQ(k->target, "amdgcn-amd-amdhsa--gfx950");
  EXPECT_EQ(k->codeObjectVersion, 6u); // LLVM 22's default
  EXPECT_EQ(k->wavefrontSize, 64u);
  EXPECT_EQ(k->ldsBytes, 0u);
  EXPECT_EQ(k->scratchBytes, 0u);
  EXPECT_EQ(k->maxWorkgroupSize, 1024u); // no attribute: the default
  EXPECT_GT(k->agprCount, 0u);           // the MFMA accumulates in AGPRs
  EXPECT_GE(k->vgprCount, k->agprCount);
  for (const KernelArgInfo &arg : k->args)
    EXPECT_LE(arg.offset + arg.size, k->kernargSize);
}

TEST(HsacoReader, LdsAndWorkgroupSizeAreTheOnesDeclared) {
  std::vector<KernelInfo> infos = infosOf("lds_v5");
  ASSERT_EQ(infos.size(), 1u);
  const KernelInfo &k = infos[0];
  EXPECT_EQ(k.name, "lds_reverse");
  EXPECT_EQ(k.ldsBytes, 16384u * 4);   // @tile = [16384 x i32]
  EXPECT_EQ(k.maxWorkgroupSize, 256u); // "amdgpu-flat-work-group-size"="256,256"
  EXPECT_EQ(k.codeObjectVersion, 5u);  // module flag amdhsa_code_object_version = 500
  ASSERT_EQ(k.explicitArgCount(), 2u);
  expectArg(k.args[0], "data", "global_buffer", "global", 0, 8);
  expectArg(k.args[1], "n", "by_value", "", 8, 4);
}

TEST(HsacoReader, CodeObjectV5AndV6DifferOnlyInVersion) {
  std::vector<KernelInfo> v6 = infosOf("mfma_cvt");
  std::vector<KernelInfo> v5 = infosOf("mfma_cvt_v5"); // llc --amdhsa-code-object-version=5
  ASSERT_EQ(v5.size(), v6.size());
  for (size_t i = 0; i < v5.size(); ++i) {
    EXPECT_EQ(v5[i].codeObjectVersion, 5u);
    EXPECT_EQ(v6[i].codeObjectVersion, 6u);
    EXPECT_EQ(v5[i].name, v6[i].name);
    EXPECT_EQ(v5[i].kernargSize, v6[i].kernargSize);
    EXPECT_EQ(v5[i].vgprCount, v6[i].vgprCount);
    ASSERT_EQ(v5[i].args.size(), v6[i].args.size());
    for (size_t a = 0; a < v5[i].args.size(); ++a) {
      EXPECT_EQ(v5[i].args[a].valueKind, v6[i].args[a].valueKind);
      EXPECT_EQ(v5[i].args[a].offset, v6[i].args[a].offset);
    }
  }
}

TEST(HsacoReader, ScratchAndSpillCounts) {
  std::vector<KernelInfo> infos = infosOf("scratch");
  const KernelInfo *array = findKernel(infos, "private_array");
  const KernelInfo *spill = findKernel(infos, "vgpr_spill");
  ASSERT_TRUE(array && spill);
  EXPECT_GE(array->scratchBytes, 64u * 4); // alloca [64 x i32]
  EXPECT_EQ(array->vgprSpillCount, 0u);
  EXPECT_GT(spill->vgprSpillCount, 0u); // 40 live floats in a 16-VGPR budget
  EXPECT_GT(spill->scratchBytes, 0u);
}

TEST(HsacoReader, StrippedObjectKeepsItsKernels) {
  // llvm-strip --strip-all drops .symtab; .dynsym still names kernels.
  std::vector<KernelInfo> full = infosOf("mfma_cvt");
  std::vector<KernelInfo> stripped = infosOf("mfma_cvt_stripped");
  ASSERT_EQ(full.size(), stripped.size());
  for (size_t i = 0; i < full.size(); ++i) {
    EXPECT_EQ(full[i].name, stripped[i].name);
    EXPECT_EQ(full[i].vgprCount, stripped[i].vgprCount);
  }
  // The images' code views point into these buffers.
  const std::vector<uint8_t> fullBytes = loadHsaco("mfma_cvt");
  const std::vector<uint8_t> strippedBytes = loadHsaco("mfma_cvt_stripped");
  Result<CodeObjectImage> a = readCodeObject(fullBytes);
  Result<CodeObjectImage> b = readCodeObject(strippedBytes);
  ASSERT_TRUE(a.ok() && b.ok());
  for (size_t i = 0; i < a.value().kernels.size(); ++i)
    EXPECT_EQ(a.value().kernels[i].code.size(), b.value().kernels[i].code.size());
}

// --- llvm-readelf --notes ----------------------------------------------------

/// The YAML that llvm-readelf prints for the note, as a msgpack Document.
bool readelfNote(llvm::StringRef hsaco, llvm::msgpack::Document &document, std::string &yaml) {
  std::istringstream in(readText(testFile(hsaco, "notes")));
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    llvm::StringRef text = llvm::StringRef(line).trim();
    if (text == "---") {
      inside = true;
      continue;
    }
    if (text == "...")
      break;
    if (inside)
      yaml += line + "\n";
  }
  return !yaml.empty() && document.fromYAML(yaml);
}

uint64_t number(llvm::msgpack::MapDocNode &map, llvm::StringRef key) {
  auto it = map.find(key);
  if (it == map.end())
    return 0; // an absent optional count
  llvm::msgpack::DocNode &node = it->second;
  if (node.getKind() == llvm::msgpack::Type::UInt)
    return node.getUInt();
  if (node.getKind() == llvm::msgpack::Type::Int)
    return static_cast<uint64_t>(node.getInt());
  ADD_FAILURE() << key.str() << " is not a number";
  return ~0ull;
}

std::string text(llvm::msgpack::MapDocNode &map, llvm::StringRef key) {
  auto it = map.find(key);
  return it == map.end() ? std::string() : it->second.toString();
}

class AgainstReadelf : public ::testing::TestWithParam<const char *> {};

TEST_P(AgainstReadelf, EveryFieldEqualsWhatReadelfPrints) {
  std::vector<KernelInfo> infos = infosOf(GetParam());
  llvm::msgpack::Document document;
  std::string yaml;
  ASSERT_TRUE(readelfNote(GetParam(), document, yaml)) << yaml;
  llvm::msgpack::MapDocNode root = document.getRoot().getMap();
  llvm::msgpack::ArrayDocNode kernels = root["amdhsa.kernels"].getArray();
  ASSERT_EQ(kernels.size(), infos.size());
  for (llvm::msgpack::DocNode &node : kernels) {
    llvm::msgpack::MapDocNode kernel = node.getMap();
    const KernelInfo *info = findKernel(infos, text(kernel, ".name"));
    ASSERT_NE(info, nullptr);
    SCOPED_TRACE(info->name);
    EXPECT_EQ(info->target, text(root, "amdhsa.target"));
    EXPECT_EQ(info->kernargSize, number(kernel, ".kernarg_segment_size"));
    EXPECT_EQ(info->kernargAlign, number(kernel, ".kernarg_segment_align"));
    EXPECT_EQ(info->ldsBytes, number(kernel, ".group_segment_fixed_size"));
    EXPECT_EQ(info->scratchBytes, number(kernel, ".private_segment_fixed_size"));
    EXPECT_EQ(info->wavefrontSize, number(kernel, ".wavefront_size"));
    EXPECT_EQ(info->sgprCount, number(kernel, ".sgpr_count"));
    EXPECT_EQ(info->vgprCount, number(kernel, ".vgpr_count"));
    EXPECT_EQ(info->agprCount, number(kernel, ".agpr_count"));
    EXPECT_EQ(info->vgprSpillCount, number(kernel, ".vgpr_spill_count"));
    EXPECT_EQ(info->sgprSpillCount, number(kernel, ".sgpr_spill_count"));
    EXPECT_EQ(info->maxWorkgroupSize, number(kernel, ".max_flat_workgroup_size"));
    auto argsIt = kernel.find(".args");
    const size_t argCount = argsIt == kernel.end() ? 0 : argsIt->second.getArray().size();
    ASSERT_EQ(info->args.size(), argCount);
    for (size_t i = 0; i < argCount; ++i) {
      llvm::msgpack::MapDocNode arg = argsIt->second.getArray()[i].getMap();
      EXPECT_EQ(info->args[i].name, text(arg, ".name"));
      EXPECT_EQ(info->args[i].valueKind, text(arg, ".value_kind"));
      EXPECT_EQ(info->args[i].addressSpace, text(arg, ".address_space"));
      EXPECT_EQ(info->args[i].offset, number(arg, ".offset"));
      EXPECT_EQ(info->args[i].size, number(arg, ".size"));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(CodeObjects, AgainstReadelf,
                         ::testing::Values("mfma_cvt", "mfma_cvt_v5", "scratch", "lds_v5",
                                           "occupancy", "lds_gfx942"));

// --- the kernel descriptor against llc's .amdhsa_* directives ---------------

/// kernel -> directive -> value, from the .amdhsa_kernel blocks of <name>.s.
std::map<std::string, std::map<std::string, int64_t>> amdhsaDirectives(llvm::StringRef hsaco) {
  std::map<std::string, std::map<std::string, int64_t>> kernels;
  std::istringstream in(readText(testFile(hsaco, "s")));
  std::string line, kernel;
  while (std::getline(in, line)) {
    llvm::StringRef text = llvm::StringRef(line).trim();
    if (text.consume_front(".amdhsa_kernel ")) {
      kernel = text.trim().str();
      continue;
    }
    if (text.starts_with(".end_amdhsa_kernel")) {
      kernel.clear();
      continue;
    }
    if (kernel.empty() || !text.consume_front(".amdhsa_"))
      continue;
    auto [key, value] = text.split(' ');
    int64_t number = 0;
    if (!value.trim().getAsInteger(0, number))
      kernels[kernel][key.str()] = number;
  }
  return kernels;
}

class DescriptorAgainstLlc : public ::testing::TestWithParam<const char *> {};

TEST_P(DescriptorAgainstLlc, FieldsEqualTheAssemblerDirectives) {
  const std::vector<uint8_t> bytes = loadHsaco(GetParam());
  Result<CodeObjectImage> image = readCodeObject(bytes);
  ASSERT_TRUE(image.ok()) << image.error();
  auto directives = amdhsaDirectives(GetParam());
  ASSERT_EQ(directives.size(), image.value().kernels.size());
  for (const KernelImage &kernel : image.value().kernels) {
    SCOPED_TRACE(kernel.info.name);
    ASSERT_TRUE(directives.count(kernel.info.name));
    std::map<std::string, int64_t> &d = directives[kernel.info.name];
    const KernelDescriptor &kd = kernel.descriptor;
    auto expectField = [&](const char *directive, int64_t actual) {
      ASSERT_TRUE(d.count(directive)) << directive;
      EXPECT_EQ(actual, d[directive]) << directive;
    };
    expectField("group_segment_fixed_size", kd.groupSegmentFixedSize);
    expectField("private_segment_fixed_size", kd.privateSegmentFixedSize);
    expectField("kernarg_size", kd.kernargSize);
    expectField("user_sgpr_count", kd.userSgprCount);
    expectField("user_sgpr_dispatch_ptr", kd.enableSgprDispatchPtr);
    expectField("user_sgpr_queue_ptr", kd.enableSgprQueuePtr);
    expectField("user_sgpr_kernarg_segment_ptr", kd.enableSgprKernargSegmentPtr);
    expectField("user_sgpr_dispatch_id", kd.enableSgprDispatchId);
    expectField("user_sgpr_private_segment_size", kd.enableSgprPrivateSegmentSize);
    expectField("user_sgpr_kernarg_preload_length", kd.kernargPreloadLength);
    expectField("user_sgpr_kernarg_preload_offset", kd.kernargPreloadOffset);
    expectField("uses_dynamic_stack", kd.usesDynamicStack);
    expectField("enable_private_segment", kd.enablePrivateSegment);
    expectField("system_sgpr_workgroup_id_x", kd.enableWorkgroupIdX);
    expectField("system_sgpr_workgroup_id_y", kd.enableWorkgroupIdY);
    expectField("system_sgpr_workgroup_id_z", kd.enableWorkgroupIdZ);
    expectField("system_sgpr_workgroup_info", kd.enableWorkgroupInfo);
    expectField("system_vgpr_workitem_id", kd.enableVgprWorkitemId);
    expectField("accum_offset", kd.accumOffset());
    expectField("float_round_mode_32", kd.floatRoundMode32);
    expectField("float_round_mode_16_64", kd.floatRoundMode16_64);
    expectField("float_denorm_mode_32", kd.floatDenormMode32);
    expectField("float_denorm_mode_16_64", kd.floatDenormMode16_64);
    expectField("dx10_clamp", kd.dx10Clamp);
    expectField("ieee_mode", kd.ieeeMode);
    expectField("fp16_overflow", kd.fp16Overflow);
    expectField("tg_split", kd.tgSplit);
    expectField("exception_int_div_zero", (kd.enableExceptions >> 6) & 1);
    // The granules: VGPRs in blocks of 8 (gfx90a+); SGPRs in blocks of 8
    // after adding the 6 that gfx940+ always reserves (VCC, flat scratch,
    // XNACK: getNumExtraSGPRs with architected flat scratch).
    const int64_t nextFreeVgpr = std::max<int64_t>(1, d["next_free_vgpr"]);
    EXPECT_EQ(kd.allocatedVgprs(), (nextFreeVgpr + 7) / 8 * 8);
    EXPECT_EQ(kd.allocatedSgprs(), (d["next_free_sgpr"] + 6 + 7) / 8 * 8);
    // The enable bits account for every user SGPR the count claims.
    EXPECT_EQ(kd.enabledUserSgprs(), kd.userSgprCount);
    // What the runtime reads from the note agrees with the descriptor.
    EXPECT_EQ(kd.groupSegmentFixedSize, kernel.info.ldsBytes);
    EXPECT_EQ(kd.kernargSize, kernel.info.kernargSize);
    EXPECT_GE(kd.allocatedVgprs(), kernel.info.vgprCount);
    // AGPRs start right after the arch VGPRs aligned to 4 (§D).
    if (kernel.info.agprCount) {
      EXPECT_EQ(kd.accumOffset(), kernel.info.vgprCount - kernel.info.agprCount);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(CodeObjects, DescriptorAgainstLlc,
                         ::testing::Values("mfma_cvt", "mfma_cvt_v5", "scratch", "lds_v5",
                                           "occupancy"));

TEST(HsacoReader, CodeStartsWhereObjdumpPutsTheKernelLabel) {
  const std::vector<uint8_t> bytes = loadHsaco("mfma_cvt");
  Result<CodeObjectImage> image = readCodeObject(bytes);
  ASSERT_TRUE(image.ok()) << image.error();
  std::vector<ObjdumpLine> lines = objdumpListing("mfma_cvt");
  ASSERT_FALSE(lines.empty());
  for (const KernelImage &kernel : image.value().kernels) {
    // The entry is the descriptor's address plus its (signed) entry offset.
    EXPECT_EQ(kernel.codeAddress,
              kernel.descriptorAddress + uint64_t(kernel.descriptor.kernelCodeEntryByteOffset));
    bool found = false;
    for (const ObjdumpLine &line : lines)
      found |= line.address == kernel.codeAddress;
    EXPECT_TRUE(found) << kernel.info.name;
    EXPECT_EQ(kernel.code.size() % 4, 0u);
  }
  EXPECT_EQ(image.value().kernels[0].codeAddress, lines[0].address); // first in .text
}

TEST(HsacoReader, DescriptorByName) {
  std::vector<uint8_t> hsaco = loadHsaco("lds_v5");
  Result<KernelDescriptor> kd = readKernelDescriptor(hsaco, "lds_reverse");
  ASSERT_TRUE(kd.ok()) << kd.error();
  EXPECT_EQ(kd.value().groupSegmentFixedSize, 65536u);
  EXPECT_TRUE(kd.value().enableSgprKernargSegmentPtr);
  Result<KernelDescriptor> missing = readKernelDescriptor(hsaco, "nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("no kernel named 'nope'"), std::string::npos);
  EXPECT_NE(missing.error().find("lds_reverse"), std::string::npos) << missing.error();
}

TEST(HsacoReader, OtherTargetsReadToo) {
  // The reader is not gfx950-specific (inspect is): a gfx942 object reads.
  std::vector<KernelInfo> infos = infosOf("lds_gfx942");
  ASSERT_EQ(infos.size(), 1u);
  EXPECT_EQ(infos[0].target.rfind("amdgcn-amd-amdhsa--gfx942", 0), 0u) << infos[0].target;
}

} // namespace
} // namespace mxf::codeobj
