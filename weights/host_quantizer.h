//===- host_quantizer.h - quant_weight on the host, fast ---------*- C++ -*-===//
//
// The reference's quantWeight (numerics/reference.h) made fast: the same
// bytes for every problem the reference accepts, computed row by row on
// `threads` threads (rows are independent, so the output does not depend on
// the thread count), streaming: besides the caller's input and output only
// per-thread row buffers (K floats and K codes). The output can go straight
// into a caller's buffer (e.g. a safetensors file being assembled).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_WEIGHTS_HOST_QUANTIZER_H
#define MXFORGE_WEIGHTS_HOST_QUANTIZER_H

#include "numerics/reference.h"
#include "support/status.h"

#include <cstddef>
#include <cstdint>
#include <functional>

namespace mxf::weights {

/// The byte sizes of one quantized weight matrix.
struct QuantWeightSizes {
  size_t codeBytes = 0; // n * packedBytes(format, k)
  ScaleShape scaleShape{}; // [n, k/32], or the a4w4 shape padded to 256 rows
  size_t scaleBytes = 0;
};

/// Checks everything the reference checks (K, rotation, layout against the
/// format, learned matrix present, preshuffle tiling of N and K) and returns
/// the sizes; the message names the problem as the reference would.
Result<QuantWeightSizes> checkQuantWeight(const RotateQuantProblem &problem,
                                          WeightLayout weightLayout, size_t n,
                                          const uint16_t *rotation);

/// Told the rows done so far (a running count), on the calling thread only,
/// after each batch of rows it quantized itself: a progress line for one
/// large tensor.
using RowProgress = std::function<void(size_t rowsDone)>;

/// quantWeight into caller buffers of the sizes checkQuantWeight gives.
/// threads = 0 means one per hardware thread.
Status quantWeightInto(const RotateQuantProblem &problem, WeightLayout weightLayout,
                       const uint16_t *w, size_t n, const uint16_t *rotation, unsigned threads,
                       uint8_t *codes, uint8_t *scales, const RowProgress &progress = {});

/// quantWeight with the reference's signature plus a thread count.
Result<QuantizedRows> quantWeightHost(const RotateQuantProblem &problem,
                                      WeightLayout weightLayout, const uint16_t *w, size_t n,
                                      const uint16_t *rotation, unsigned threads);

} // namespace mxf::weights

#endif // MXFORGE_WEIGHTS_HOST_QUANTIZER_H
