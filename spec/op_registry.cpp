//===- op_registry.cpp - Every op's declaration, by KernelOp ---------------===//
//
// Made from templates/families.def (one line per family); the declarations
// themselves live in the families' folders (op_declaration.h).
//
//===----------------------------------------------------------------------===//

#include "spec/op_declaration.h"
#include "spec/family_table.h"

namespace mxf {

// Each family's declaration, defined in its op_spec.cpp.
#define MXF_FAMILY(Op, folder)                                                                     \
  namespace folder {                                                                               \
  extern const OpDeclaration kOpDeclaration;                                                       \
  }
#include "templates/families.def"
#undef MXF_FAMILY

const OpDeclaration *opDeclaration(KernelOp op) {
  static const OpDeclaration *const kOps[] = {
#define MXF_FAMILY(Op, folder) &folder::kOpDeclaration,
#include "templates/families.def"
#undef MXF_FAMILY
  };
  return familyEntry(kOps, op);
}

} // namespace mxf
