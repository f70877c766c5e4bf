//===- op_reference_registry.cpp - Every op's reference, by KernelOp -------===//
//
// Made from templates/families.def (one line per family); the declarations
// live in the families' folders (arrays/op_reference.h).
//
//===----------------------------------------------------------------------===//

#include "arrays/op_reference.h"
#include "spec/family_table.h"

// Each family's reference run, defined in its op_reference.cpp.
#define MXF_FAMILY(Op, folder)                                                                     \
  namespace mxf::folder {                                                                          \
  extern const arrays::OpReference kOpReference;                                                   \
  }
#include "templates/families.def"
#undef MXF_FAMILY

namespace mxf::arrays {

const OpReference *opReference(KernelOp op) {
  static const OpReference *const kOps[] = {
#define MXF_FAMILY(Op, folder) &mxf::folder::kOpReference,
#include "templates/families.def"
#undef MXF_FAMILY
  };
  return familyEntry(kOps, op);
}

size_t elementCount(const std::vector<size_t> &shape) {
  size_t count = 1;
  for (size_t dim : shape)
    count *= dim; // shapes here come from a validated spec: no overflow
  return count;
}

} // namespace mxf::arrays
