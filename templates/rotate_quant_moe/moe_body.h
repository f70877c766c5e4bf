//===- moe_body.h - rotate_quant_moe's kernel body ---------------*- C++ -*-===//
#ifndef MXFORGE_TEMPLATES_ROTATE_QUANT_MOE_MOE_BODY_H
#define MXFORGE_TEMPLATES_ROTATE_QUANT_MOE_MOE_BODY_H

#include "templates/common/rotating_quantizer/emitter.h"

namespace mxf {

/// The sort (moe_sort_emitter.h) by every thread, then the shared load +
/// rotate stage over the tile's 16 tokens (stage 1) or its 16 * topk routed
/// rows, 16 at a time (stage 2); each finished block is quantized, its codes
/// stored in token order and its scale byte scattered to the sorted rows of
/// its input row (docs/templates.md, "rotate_quant_moe").
void emitMoeBody(const QuantizerKernel &kernel);

} // namespace mxf

#endif // MXFORGE_TEMPLATES_ROTATE_QUANT_MOE_MOE_BODY_H
