//===- op_abi_registry.cpp - Every op's ABI, by KernelOp -------------------===//
//
// Made from templates/families.def (one line per family); the declarations
// live in the families' folders (abi/op_abi.h).
//
//===----------------------------------------------------------------------===//

#include "abi/op_abi.h"
#include "spec/family_table.h"

namespace mxf {

// Each family's ABI, defined in its op_abi.cpp.
#define MXF_FAMILY(Op, folder)                                                                     \
  namespace folder {                                                                               \
  extern const OpAbi kOpAbi;                                                                       \
  }
#include "templates/families.def"
#undef MXF_FAMILY

const OpAbi *opAbi(KernelOp op) {
  static const OpAbi *const kOps[] = {
#define MXF_FAMILY(Op, folder) &folder::kOpAbi,
#include "templates/families.def"
#undef MXF_FAMILY
  };
  return familyEntry(kOps, op);
}

} // namespace mxf
