//===- family.h - The rotate_quant_moe template family ------------*- C++ -*-===//
#ifndef MXFORGE_TEMPLATES_ROTATE_QUANT_MOE_FAMILY_H
#define MXFORGE_TEMPLATES_ROTATE_QUANT_MOE_FAMILY_H

#include "templates/registry.h"

namespace mxf {

TemplateFamily rotateQuantMoeFamily();

} // namespace mxf

#endif // MXFORGE_TEMPLATES_ROTATE_QUANT_MOE_FAMILY_H
