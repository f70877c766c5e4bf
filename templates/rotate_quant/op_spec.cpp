//===- op_spec.cpp - rotate_quant's op as the spec layer knows it ----------===//
//
// Plain C++, linked into mxforge_spec (spec/op_declaration.h): the keys of
// rotate_quant in canonical order (docs/spec.md) and which are required.
//
//===----------------------------------------------------------------------===//

#include "spec/op_declaration.h"

namespace mxf::rotate_quant {
namespace {

using SK = spec_detail::SpecKey;

constexpr SK kKeys[] = {SK::K,      SK::RS, SK::Rot, SK::Rconv, SK::Select, SK::Layers, SK::M,
                        SK::Fmt,    SK::Scale, SK::Round, SK::Inter, SK::Layout, SK::Arch};
constexpr SK kRequired[] = {SK::K};

} // namespace

// The only op that writes AITER's A6W6 operand tiles: its codes have no
// layout key of their own.
extern const OpDeclaration kOpDeclaration = {KernelOp::RotateQuant, "rotate_quant", keyList(kKeys),
                                             keyList(kRequired), /*writesA6W6Tiles=*/true};

} // namespace mxf::rotate_quant
