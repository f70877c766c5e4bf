//===- family.cpp - The quant_weight template family ----------------------===//
//
// Built by rotate_quant's emitter (rotate_quant_template.h): the weight
// kernel is the same rotation and quantization over N fixed rows.
//
//===----------------------------------------------------------------------===//

#include "templates/quant_weight/family.h"

#include "templates/quant_weight/rules.h"
#include "templates/rotate_quant/rotate_quant_template.h"

namespace mxf {

TemplateFamily quantWeightFamily() { return {quantWeightRules(), buildQuantWeightKernel}; }

} // namespace mxf
