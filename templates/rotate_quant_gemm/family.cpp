//===- family.cpp - The rotate_quant_gemm template family -----------------===//

#include "templates/rotate_quant_gemm/family.h"

#include "templates/rotate_quant_gemm/rotate_quant_gemm_template.h"
#include "templates/rotate_quant_gemm/rules.h"

namespace mxf {

TemplateFamily rotate_quant_gemm::family() {
  return {rotate_quant_gemm::rules(), buildRotateQuantGemmKernel};
}

} // namespace mxf
