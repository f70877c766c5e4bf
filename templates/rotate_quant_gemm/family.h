//===- family.h - The rotate_quant_gemm template family -----------*- C++ -*-===//
#ifndef MXFORGE_TEMPLATES_ROTATE_QUANT_GEMM_FAMILY_H
#define MXFORGE_TEMPLATES_ROTATE_QUANT_GEMM_FAMILY_H

#include "templates/registry.h"

namespace mxf {

namespace rotate_quant_gemm {
TemplateFamily family();
} // namespace rotate_quant_gemm

} // namespace mxf

#endif // MXFORGE_TEMPLATES_ROTATE_QUANT_GEMM_FAMILY_H
