//===- moe_sorter.h - rotate_quant_moe's row sorter for the quantizer -*- C++ -*-===//
//
// The MoE sort (moe_sort_emitter.h) behind the rotating quantizer's
// RowSorter interface, so that the shared emitter never names this folder.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_ROTATE_QUANT_MOE_MOE_SORTER_H
#define MXFORGE_TEMPLATES_ROTATE_QUANT_MOE_MOE_SORTER_H

#include "templates/rotate_quant_moe/row_sorter.h"

namespace mxf {

/// A RowSorterFactory: AITER's moe_sorting of the launch's routing, done by
/// every workgroup in the front-end LDS (sort_lds.h).
std::unique_ptr<RowSorter> makeMoeSorter(const RowSorterSetup &setup);

} // namespace mxf

#endif // MXFORGE_TEMPLATES_ROTATE_QUANT_MOE_MOE_SORTER_H
