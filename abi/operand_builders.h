//===- operand_builders.h - Pieces every op's operand list uses -*- C++ -*-===//
//
// For the families' op_abi.cpp (abi/op_abi.h): operands whose shapes come
// from numerics/ (packedBytes, a4w4ShuffledShape, a6w6Shape), each with the
// derivation `mxforge inspect` prints and the meaning messages name.
// Internal to the ABI layer: callers use abi/operands.h.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_ABI_OPERAND_BUILDERS_H
#define MXFORGE_ABI_OPERAND_BUILDERS_H

#include "abi/operands.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mxf::abi_detail {

std::string str(int64_t value);
/// The spec spelling of a format (fp4, fp6_e2m3, ...).
const char *fmtName(ElemFormat format);

/// The scale matrix of `rows` rows of K channels in `layout`; shuffled rows
/// are padded to `rowPadding` (256 dense/weights, 32 MoE-sorted).
KernelOperand scaleOperand(const char *name, const KernelSpec &spec, int64_t rows,
                           const std::string &rowsWhy, size_t rowPadding, bool written);
/// Packed codes: rows x packedBytes(fmt, K).
KernelOperand codesOperand(const char *name, const KernelSpec &spec, int64_t rows,
                           const std::string &rowsWhy, bool written,
                           const char *rowStrideArg = nullptr);
KernelOperand bf16Rows(const char *name, int64_t rows, int64_t cols, const std::string &why,
                       bool written, const char *rowStrideArg = nullptr);
/// `op` with its meaning for messages and listings.
KernelOperand meant(KernelOperand op, std::string meaning);
std::string codesMeaning(const KernelSpec &spec);  // "packed fp4 codes"
std::string scalesMeaning(const KernelSpec &spec); // "E8M0 scales, plain"

/// layout=mxfp6_c0c1_256_padk2: q and s as AITER's A6W6 operand tiles.
void addA6W6Tiles(const KernelSpec &spec, int64_t rows, const std::string &rowsWhy,
                  std::vector<KernelOperand> &ops);
/// What follows every op's first operand: r for learned rotations, the
/// stochastic-rounding seed where the op takes one (kernelHasSeedOperand),
/// layer_mask for select=mask.
void addRotationInputs(const KernelSpec &spec, std::vector<KernelOperand> &ops);

} // namespace mxf::abi_detail

#endif // MXFORGE_ABI_OPERAND_BUILDERS_H
