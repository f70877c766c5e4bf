//===- norm_front_end.h - rmsnorm_rotate_quant's front end -------*- C++ -*-===//
#ifndef MXFORGE_TEMPLATES_RMSNORM_ROTATE_QUANT_NORM_FRONT_END_H
#define MXFORGE_TEMPLATES_RMSNORM_ROTATE_QUANT_NORM_FRONT_END_H

#include "templates/common/rotating_quantizer/emitter.h"

namespace mxf {

/// The residual add and RMSNorm in front of the dense body's units
/// (docs/templates.md, "rmsnorm_rotate_quant"; numerics/rmsnorm.h defines
/// every rounding and the order of the sum):
///  1. every workgroup reads the whole of its 16 rows: wave w takes the
///     32-channel blocks w, w + waves, ...; a lane forms z = bf16(x + r) of
///     its 8 channels (the rotation's B operand layout), writes z to
///     residual_out where the block belongs to this workgroup's units, and
///     the wave reduces the block's sum of squares in numerics' order (a
///     lane group's eight squares in order, then xor 16, then xor 32);
///     lane group 0 puts the partial in LDS, [token][block];
///  2. a barrier; each lane adds its row's partials in block order and
///     computes s = 1 / sqrt(S / K + eps) with IEEE operations;
///  3. the rotation stage then reads y = bf16(bf16(z * s) * gamma) through
///     its row source: x (and the residual) again, from L2.
void emitNormFrontEnd(const QuantizerKernel &kernel, const DenseRows &rows,
                      RotationStage &rotation);

} // namespace mxf

#endif // MXFORGE_TEMPLATES_RMSNORM_ROTATE_QUANT_NORM_FRONT_END_H
