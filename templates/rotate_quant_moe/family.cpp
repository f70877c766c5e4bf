//===- family.cpp - The rotate_quant_moe template family ------------------===//
//
// Built by rotate_quant's emitter (rotate_quant_template.h) with the MoE
// sorter (moe_sort_emitter.h) in front of it.
//
//===----------------------------------------------------------------------===//

#include "templates/rotate_quant_moe/family.h"

#include "templates/rotate_quant/rotate_quant_template.h"
#include "templates/rotate_quant_moe/rules.h"

namespace mxf {

TemplateFamily rotateQuantMoeFamily() {
  return {rotateQuantMoeRules(), buildRotateQuantMoeKernel};
}

} // namespace mxf
