//===- e2e_runner.h - Compile a spec, launch it on the emu device -*- C++ -*-===//
//
// The mechanics of one end-to-end case, kept apart from what is checked:
// compile a rotate_quant spec in process, load it on an emu Device, and run
// it for m rows with given inputs and poisoned outputs, through the same
// runtime API an engine uses (arguments packed from the code object's
// metadata, grid from the launch record compiled with it).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TESTS_E2E_E2E_RUNNER_H
#define MXFORGE_TESTS_E2E_E2E_RUNNER_H

#include "abi/code_object.h"
#include "numerics/reference.h"
#include "support/status.h"
#include "runtime/device.h"
#include "runtime/emu_device.h"
#include "spec/kernel_spec.h"
#include "templates/common/rotating_quantizer/tiling.h"
#include "tests/e2e/e2e_check.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace mxf::e2e {

/// The emu device options the cases launch with unless told otherwise: one
/// worker thread (ctest -j already runs one spec per core), every other
/// option at its default. The launch helpers set the workgroup order on top;
/// bench/mutation_bench passes its own (two threads, a low instruction limit
/// so that a mutant that loops ends soon).
runtime::EmuDeviceOptions caseDeviceOptions();

/// One spec, compiled and loaded on one device.
struct LoadedKernel {
  KernelSpec spec;
  CodeObject code;
  KernelTiling tiling; // what the statistics checks expect of the waves
  OutputShape shape;   // at the bucket
  size_t rElements = 0; // learned rotation input (0: none)
  runtime::Kernel kernel;
  double compileMs = 0;
};

/// Compiles `spec` with compileSpec (installing the default frontend on
/// first use) and loads the code object on `device`.
Result<LoadedKernel> compileAndLoad(runtime::Device &device, const KernelSpec &spec);

struct RunInputs {
  int m = 1;
  std::vector<uint16_t> x; // m rows of K bf16 values
  std::vector<uint16_t> r; // the learned rotation, if the spec takes one
  uint32_t seed = 0;       // round=sr: the seed operand
  uint8_t poison = 0xA5;   // fills q and s (and q's stride gaps) before the launch
  /// Row strides of x (elements) and q (bytes); 0: dense. The gaps of x
  /// hold garbage the kernel must ignore.
  int64_t xStride = 0, qStride = 0;
  /// Selective rotation: the by-value `rotate` or `layer` (select=flag|mask)
  /// and the layer_mask operand (select=mask).
  std::optional<int64_t> selection;
  std::vector<int32_t> layerMask;
  /// Whether this launch rotates (numerics' selectionRotates).
  bool rotates(const KernelSpec &spec) const;
};

/// Shapes of the outputs of a launch of m rows (q: m rows; s: m rows, or
/// pad256(m) shuffled).
OutputShape outputShapeAt(const KernelSpec &spec, int m);

struct RunOutputs {
  std::vector<uint8_t> q, s; // q's m rows (dense, from the strided buffer), s whole
  size_t qGapBytesWritten = 0; // bytes of q's stride gaps that lost the poison
  runtime::LaunchReport report;
  std::array<uint32_t, 3> grid{};
  double emulateMs = 0;
};

/// Allocates x, q and s with exactly what m rows span at their strides (so
/// that the emulator's bounds check turns any access past row m into an
/// error naming the instruction), q and s filled with the poison, launches
/// from the code object's launch record and reads back.
Result<RunOutputs> runKernel(runtime::Device &device, const LoadedKernel &kernel,
                             const RunInputs &inputs);

/// The reference for m rows of x: codes [m, K/2] and *plain* scales.
Result<QuantizedRows> referenceFor(const KernelSpec &spec, const RunInputs &inputs);

/// The numerics problem a spec computes, with the given scale layout.
RotateQuantProblem problemFor(const KernelSpec &spec, ScaleLayout layout);

/// A matrix test's name: the spec's index in its matrix (three digits, so
/// that names sort in matrix order and stay unique) and its kernel name
/// without "mxf_<op>_" and "_gfx950", e.g. 003_K384_N272_RS0_none_....
std::string matrixTestName(const KernelSpec &spec, size_t index);

/// "Suite.Name" of the running gtest test: what its seed is derived from
/// (testing::testSeed) and what a replay line names.
std::string currentTestName();

/// A matrix case's start: prints the spec's line, compiles it in process
/// and expects no scratch (a gtest failure naming the spec otherwise).
Result<CodeObject> compileMatrixSpec(const KernelSpec &spec);

} // namespace mxf::e2e

#endif // MXFORGE_TESTS_E2E_E2E_RUNNER_H
