//===- family.cpp - The rotate_quant template family ----------------------===//

#include "templates/rotate_quant/family.h"

#include "templates/rotate_quant/rotate_quant_template.h"
#include "templates/rotate_quant/rules.h"

namespace mxf {

TemplateFamily rotateQuantFamily() { return {rotateQuantRules(), buildRotateQuantKernel}; }

} // namespace mxf
