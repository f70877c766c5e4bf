//===- moe_sorter.cpp - rotate_quant_moe's row sorter for the quantizer ---===//

#include "templates/rotate_quant_moe/moe_sorter.h"

#include "templates/rotate_quant_moe/moe_sort_emitter.h"

namespace mxf {

std::unique_ptr<RowSorter> makeMoeSorter(const RowSorterSetup &setup) {
  return std::make_unique<MoeSortEmitter>(setup.b, setup.spec, setup.args, setup.lds,
                                          setup.threads, setup.gridX);
}

} // namespace mxf
