//===- op_interfaces.cpp - C API: each op's interface for bindings ---------===//
//
// The ops as their folders declare them (spec/op_declaration.h for the keys,
// abi/op_abi.h for the operand slots, the rows input and the keys an input's
// shape supplies), in C structs, so that Python builds one function and one
// torch op per op from them instead of restating any (docs/abi.md, "The
// ops' interfaces").
//
//===----------------------------------------------------------------------===//

#include "capi/capi_internal.h"

#include "abi/op_abi.h"
#include "abi/operands.h"
#include "spec/op_declaration.h"
#include "spec/spec_keys.h"

#include <iterator>
#include <vector>

using mxf::capi::fail;
using mxf::capi::guarded;
using mxf::capi::nullArgument;

namespace {

/// One op's C view; the arrays live as long as the process (built once).
struct OpInterface {
  std::vector<const char *> keys;
  std::vector<mxf_op_operand> operands;
  std::vector<mxf_op_shape_key> shapeKeys;
  mxf_op_info info{};
};

OpInterface describe(mxf::KernelOp op) {
  const mxf::OpDeclaration &declaration = *mxf::opDeclaration(op);
  const mxf::OpAbi &abi = *mxf::opAbi(op);
  OpInterface described;
  for (mxf::spec_detail::SpecKey key : declaration.keys)
    described.keys.push_back(mxf::spec_detail::specKeyName(key));
  for (const mxf::OperandSlot &slot : abi.slots)
    described.operands.push_back({slot.name, mxf::operandElementName(slot.element),
                                  slot.output ? 1 : 0, slot.optional ? 1 : 0, slot.ranks});
  for (const mxf::ShapeKey &shapeKey : abi.shapeKeys)
    described.shapeKeys.push_back(
        {mxf::spec_detail::specKeyName(shapeKey.key), shapeKey.operand, shapeKey.dimension});
  return described;
}

const std::vector<OpInterface> &interfaces() {
  static const std::vector<OpInterface> table = [] {
    std::vector<OpInterface> built;
    for (mxf::KernelOp op : mxf::kAllKernelOps)
      built.push_back(describe(op));
    // Pointers into the vectors only once nothing moves them.
    for (size_t i = 0; i < built.size(); ++i) {
      OpInterface &entry = built[i];
      entry.info.name = mxf::opDeclaration(mxf::kAllKernelOps[i])->name;
      entry.info.rows_from = mxf::opAbi(mxf::kAllKernelOps[i])->rowsFrom;
      entry.info.keys = entry.keys.data();
      entry.info.key_count = entry.keys.size();
      entry.info.operands = entry.operands.data();
      entry.info.operand_count = entry.operands.size();
      entry.info.shape_keys = entry.shapeKeys.data();
      entry.info.shape_key_count = entry.shapeKeys.size();
      entry.info.description = mxf::opDeclaration(mxf::kAllKernelOps[i])->description;
    }
    return built;
  }();
  return table;
}

} // namespace

mxf_status mxf_op_count(size_t *count) {
  if (!count)
    return nullArgument("mxf_op_count", "count");
  *count = std::size(mxf::kAllKernelOps);
  return MXF_SUCCESS;
}

mxf_status mxf_op_get_info(size_t index, mxf_op_info *info) {
  return guarded("mxf_op_get_info", [&]() -> mxf_status {
    if (!info)
      return nullArgument("mxf_op_get_info", "info");
    const std::vector<OpInterface> &table = interfaces();
    if (index >= table.size())
      return fail(MXF_ERROR_INVALID_ARGUMENT, "mxf_op_get_info: index " + std::to_string(index) +
                                                  " >= op count " +
                                                  std::to_string(table.size()));
    *info = table[index].info;
    return MXF_SUCCESS;
  });
}

mxf_status mxf_op_get_value(size_t opIndex, size_t index, const char **name,
                            const char **meaning, size_t *count) {
  return guarded("mxf_op_get_value", [&]() -> mxf_status {
    if (opIndex >= std::size(mxf::kAllKernelOps))
      return fail(MXF_ERROR_INVALID_ARGUMENT,
                  "mxf_op_get_value: op index " + std::to_string(opIndex) + " >= op count " +
                      std::to_string(std::size(mxf::kAllKernelOps)));
    return mxf::capi::describeValue("mxf_op_get_value",
                                    mxf::opAbi(mxf::kAllKernelOps[opIndex])->values, index, name,
                                    meaning, count);
  });
}

mxf_status mxf_spec_get_row_extents(const char *spec, mxf_row_extent *extents, size_t capacity,
                                    size_t *count) {
  return guarded("mxf_spec_get_row_extents", [&]() -> mxf_status {
    if (!spec)
      return nullArgument("mxf_spec_get_row_extents", "spec");
    if (!count)
      return nullArgument("mxf_spec_get_row_extents", "count");
    if (!extents && capacity)
      return nullArgument("mxf_spec_get_row_extents", "extents");
    *count = 0;
    mxf::Result<mxf::KernelSpec> parsed = mxf::parseSpec(spec);
    if (!parsed.ok())
      return fail(MXF_ERROR_INVALID_ARGUMENT,
                  "mxf_spec_get_row_extents: invalid spec: " + parsed.error());
    const std::vector<mxf::RowExtent> found = mxf::kernelRowExtents(parsed.value());
    for (size_t i = 0; i < found.size() && i < capacity; ++i)
      extents[i] = {found[i].label, found[i].scale, found[i].offset, found[i].divisor,
                    found[i].multiple};
    *count = found.size();
    return MXF_SUCCESS;
  });
}
