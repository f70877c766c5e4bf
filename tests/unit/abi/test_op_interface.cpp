//===- test_op_interface.cpp - Each op's declared interface holds ---------===//
//
// Bindings build their functions, torch schemas and symbolic shapes from an
// op's declared interface (abi/op_abi.h: slots, rowsFrom, shapeKeys, row
// extents) instead of from a spec. This walks every spec of the four
// matrices, plus the operands only some specs take, at several row counts
// and checks that what kernelOperands returns is what the interface
// promises. Negative controls show that each check can fail.
//
//===----------------------------------------------------------------------===//

#include "abi/op_abi.h"
#include "abi/operands.h"
#include "spec/key_table.h"
#include "tests/support/spec_matrix.h"
#include "tests/support/parsed_spec.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace mxf {
namespace {

using testing::parsed;

std::string keyValue(const KernelSpec &spec, spec_detail::SpecKey key) {
  std::string text;
  spec_detail::keyDeclaration(key).appendValue(text, spec);
  return text;
}

/// "" when `ops` (a spec's operands at some rows) fits `abi`'s slots: a
/// subsequence in slot order, each in its slot's element, direction and
/// ranks, every non-optional slot present; else what does not fit.
std::string slotMismatch(const OpAbi &abi, const std::vector<KernelOperand> &ops) {
  size_t slot = 0;
  for (const KernelOperand &op : ops) {
    while (slot < abi.slots.count && std::strcmp(abi.slots.data[slot].name, op.name) != 0) {
      if (!abi.slots.data[slot].optional)
        return std::string("slot ") + abi.slots.data[slot].name + " is missing";
      ++slot;
    }
    if (slot == abi.slots.count)
      return std::string("operand ") + op.name + " has no slot (or is out of order)";
    const OperandSlot &declared = abi.slots.data[slot++];
    if (declared.element != op.element)
      return std::string(op.name) + ": element differs from its slot";
    if (declared.output != op.written)
      return std::string(op.name) + ": direction differs from its slot";
    if (!(declared.ranks & (1u << op.shape.size())))
      return std::string(op.name) + ": rank " + std::to_string(op.shape.size()) +
             " is not among its slot's";
  }
  for (; slot < abi.slots.count; ++slot)
    if (!abi.slots.data[slot].optional)
      return std::string("slot ") + abi.slots.data[slot].name + " is missing";
  return "";
}

/// "" when every extent of `spec`'s operands that changes between the row
/// counts is one of `extents` at each of them.
std::string unexplainedExtent(const KernelSpec &spec, const std::vector<int64_t> &rowCounts,
                              const std::vector<RowExtent> &extents) {
  std::vector<std::vector<KernelOperand>> listings;
  for (int64_t rows : rowCounts)
    listings.push_back(kernelOperands(spec, rows));
  for (size_t i = 0; i < listings[0].size(); ++i) {
    for (size_t d = 0; d < listings[0][i].shape.size(); ++d) {
      bool varies = false;
      for (const auto &listing : listings)
        varies |= listing[i].shape[d] != listings[0][i].shape[d];
      if (!varies)
        continue;
      bool explained = false;
      for (const RowExtent &extent : extents) {
        bool fits = true;
        for (size_t r = 0; r < rowCounts.size(); ++r)
          fits &= extent.at(rowCounts[r]) == listings[r][i].shape[d];
        explained |= fits;
      }
      if (!explained)
        return std::string(listings[0][i].name) + " dimension " + std::to_string(d) +
               " follows no declared row extent";
    }
  }
  return "";
}

/// The specs walked: the four matrices, plus the operands only some specs
/// take.
std::vector<KernelSpec> interfaceSpecs() {
  std::vector<KernelSpec> specs;
  for (const std::vector<KernelSpec> &matrix :
       {mxf::testing::rotateQuantSpecMatrix(), mxf::testing::quantWeightSpecMatrix(),
        mxf::testing::rotateQuantMoeSpecMatrix(), mxf::testing::rotateQuantGemmSpecMatrix()})
    specs.insert(specs.end(), matrix.begin(), matrix.end());
  for (const char *text :
       {"rotate_quant:K=512,RS=32,rot=learned,M=4,round=sr,select=mask,layers=3",
        "rotate_quant:K=512,RS=32,rot=learned_per_block,M=4,select=flag",
        "rotate_quant:K=4064,RS=32,M=16,fmt=fp6_e2m3,layout=mxfp6_c0c1_256_padk2",
        "rotate_quant_moe:K=512,RS=32,rot=learned,M=8,topk=2,E=8,emask=1,round=sr",
        "rotate_quant_moe:K=512,RS=32,M=8,topk=2,E=8,stage=2,block=16",
        "rotate_quant_gemm:K=512,N=64,RS=32,rot=learned_per_block,M=4",
        "quant_weight:K=512,N=48,RS=32,rot=learned"})
    specs.push_back(parsed(text));
  return specs;
}

TEST(OpInterface, EverySpecsOperandsFitTheSlotsRowsAndShapeKeys) {
  size_t walked = 0;
  for (const KernelSpec &spec : interfaceSpecs()) {
    const OpAbi &abi = *opAbi(spec.op);
    const std::string text = printSpec(spec);
    const int64_t top = abi.rowsFrom ? spec.M : spec.N;
    const std::vector<int64_t> rowCounts =
        abi.rowsFrom ? std::vector<int64_t>{1, top, 257, 300} : std::vector<int64_t>{top};
    for (int64_t rows : rowCounts) {
      const std::vector<KernelOperand> ops = kernelOperands(spec, rows);
      EXPECT_EQ(slotMismatch(abi, ops), "") << text << " at " << rows << " rows";
      for (const KernelOperand &op : ops) {
        if (abi.rowsFrom && std::strcmp(op.name, abi.rowsFrom) == 0) {
          EXPECT_EQ(op.shape.at(0), rows) << text << ": " << op.name << " gives the rows";
        }
        for (const ShapeKey &shapeKey : abi.shapeKeys) {
          if (std::strcmp(op.name, shapeKey.operand) != 0)
            continue;
          const size_t dimension = shapeKey.dimension < 0 ? op.shape.size() - 1
                                                          : size_t(shapeKey.dimension);
          EXPECT_EQ(std::to_string(op.shape.at(dimension)), keyValue(spec, shapeKey.key))
              << text << ": " << spec_detail::specKeyName(shapeKey.key) << " from "
              << op.name;
        }
      }
    }
    if (abi.rowsFrom) {
      EXPECT_EQ(unexplainedExtent(spec, {1, 2, 7, spec.M, 255, 256, 257, 300, 513, 1000},
                                  kernelRowExtents(spec)),
                "")
          << text;
    }
    ++walked;
  }
  std::cout << "walked " << walked << " specs (the four matrices, plus 7)\n";
  EXPECT_GT(walked, 1000u);
}

TEST(OpInterface, ChecksFailOnAWrongDeclaration) {
  // Negative controls: an operand out of its slot's order, a missing
  // required slot, a wrong element, and an extent no rule explains.
  const KernelSpec spec = parsed("rotate_quant_gemm:K=512,N=64,RS=32,rot=learned,M=4");
  const OpAbi &abi = *opAbi(spec.op);
  std::vector<KernelOperand> ops = kernelOperands(spec, 3);
  ASSERT_EQ(slotMismatch(abi, ops), "");
  std::vector<KernelOperand> swapped = ops;
  std::swap(swapped[0], swapped[1]);
  EXPECT_NE(slotMismatch(abi, swapped), "");
  std::vector<KernelOperand> missing = ops;
  missing.erase(missing.begin() + 2); // w_q
  EXPECT_NE(slotMismatch(abi, missing).find("w_q is missing"), std::string::npos);
  std::vector<KernelOperand> retyped = ops;
  retyped[2].element = OperandElement::F32;
  EXPECT_NE(slotMismatch(abi, retyped).find("element"), std::string::npos);

  // The MoE capacity extents are the op's own: without them the sorted
  // outputs are unexplained.
  const KernelSpec moe = parsed("rotate_quant_moe:K=512,RS=32,M=8,topk=2,E=8");
  const std::vector<RowExtent> extents = kernelRowExtents(moe);
  ASSERT_EQ(unexplainedExtent(moe, {1, 8, 300}, extents), "");
  const std::vector<RowExtent> sharedOnly(extents.begin(), extents.begin() + 2);
  EXPECT_NE(unexplainedExtent(moe, {1, 8, 300}, sharedOnly).find("follows no declared"),
            std::string::npos);
}

TEST(OpInterface, RowExtentsEvaluateTheirFormula) {
  const RowExtent capacity{"capacity", 8, 128 * 32 - 8, 1, 1};
  EXPECT_EQ(capacity.at(5), 5 * 8 + 128 * 32 - 8);
  EXPECT_EQ((RowExtent{"pad32", 8, 0, 1, 32}).at(5), 64);
  EXPECT_EQ((RowExtent{"blocks", 8, 0, 16, 1}).at(5), 3);
}

} // namespace
} // namespace mxf
