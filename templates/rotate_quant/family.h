//===- family.h - The rotate_quant template family ----------------*- C++ -*-===//
#ifndef MXFORGE_TEMPLATES_ROTATE_QUANT_FAMILY_H
#define MXFORGE_TEMPLATES_ROTATE_QUANT_FAMILY_H

#include "templates/registry.h"
#include "templates/rotate_quant/rules.h"

namespace mxf {

/// rotate_quant's registry entry: its rules (rules.h) and its builder.
TemplateFamily rotateQuantFamily();

} // namespace mxf

#endif // MXFORGE_TEMPLATES_ROTATE_QUANT_FAMILY_H
