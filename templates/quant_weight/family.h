//===- family.h - The quant_weight template family ----------------*- C++ -*-===//
#ifndef MXFORGE_TEMPLATES_QUANT_WEIGHT_FAMILY_H
#define MXFORGE_TEMPLATES_QUANT_WEIGHT_FAMILY_H

#include "templates/registry.h"

namespace mxf {

TemplateFamily quantWeightFamily();

} // namespace mxf

#endif // MXFORGE_TEMPLATES_QUANT_WEIGHT_FAMILY_H
