//===- launch_file.h - Any gfx950 code object, launched from a JSON file -*- C++ -*-===//
//
// `mxforge launch LAUNCH.json` (docs/cli.md, "mxforge launch") runs a code
// object that mxforge did not compile (Triton's, a hand-written one) on a
// Device, so that scripts outside the project can drive the emulator and a
// real GPU with one description:
//
//   {"code_object": "k.hsaco", "kernel": "name", "grid": [x, y, z],
//    "block": [x, y, z], "dynamic_lds": 0, "args": [ ... ]}
//
// `grid` counts workgroups. Each argument, in kernarg order, is one of
//   {"buffer": "name", "in": "x.npy"}                      input bytes
//   {"buffer": "name", "out": "y.npy", "bytes": N}          N poisoned bytes, written back
//   {"buffer": "name", "in": "a.npy", "out": "b.npy"}       both
//   {"buffer": null, "bytes": N}                            scratch (N = 0: a null pointer)
//   {"i32": v} {"u32": v} {"i64": v} {"u64": v} {"f32": v}  by-value scalars
// Relative paths are relative to the JSON file; keys the format does not
// define are ignored (a test harness keeps its own notes there). Every
// argument is checked against the code object's metadata (count, kinds,
// sizes) before any buffer is allocated; the layout itself (offsets,
// padding, hidden arguments) comes from the metadata through
// packKernelArgs, as for our own kernels.
//
// LLVM-free like the rest of the runtime: the caller reads the code object
// and its KernelInfos (codeobj/hsaco_reader.h) and passes them in.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_RUNTIME_LAUNCH_FILE_H
#define MXFORGE_RUNTIME_LAUNCH_FILE_H

#include "support/status.h"
#include "runtime/device.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mxf::runtime {

/// What out-only and scratch buffers hold before the launch, so that bytes a
/// kernel does not write stay recognisable (and equal on every machine that
/// follows the same rule: the witness corpus fills them so on the GPU).
inline constexpr uint8_t kLaunchFilePoison = 0xA5;

struct LaunchFileArg {
  enum class Kind { Buffer, Scratch, I32, U32, I64, U64, F32 };
  Kind kind = Kind::Buffer;
  std::string buffer;   // Buffer: its name
  std::string inPath;   // Buffer: resolved input path, or empty
  std::string outPath;  // Buffer: resolved output path, or empty
  uint64_t bytes = 0;   // Buffer out-only and Scratch: the size asked for
  bool bytesGiven = false;
  uint64_t bits = 0;    // scalars: the bit pattern, zero-extended to 64 bits

  /// "argument 3 (buffer 'y')", "argument 5 (i32 7)", as messages name it.
  std::string describe(size_t index) const;
  /// Bytes the kernarg slot of this argument must have (8 for pointers).
  uint32_t kernargBytes() const;
};

struct LaunchFile {
  std::string path;           // the JSON file, as given
  std::string codeObjectPath; // resolved
  std::string kernel;         // empty: the code object's only kernel
  Dim3 grid{1, 1, 1};
  Dim3 block{1, 1, 1};
  uint32_t dynamicLds = 0;
  std::vector<LaunchFileArg> args;

  /// Every input path the launch reads (the JSON, the code object, the
  /// "in" arrays): no output may name one of them.
  std::vector<std::string> inputPaths() const;
};

/// Parses launch-file JSON; `path` resolves relative paths and starts every
/// message. Errors name the key and the argument.
Result<LaunchFile> parseLaunchFile(std::string_view text, const std::string &path);
/// Reads (a regular file of at most 16 MiB) and parses.
Result<LaunchFile> readLaunchFile(const std::string &path);

/// The kernel the file names among `kernels` (by `.name`, or its `.kd`
/// symbol), or the only one when it names none.
Result<KernelInfo> selectKernel(const LaunchFile &file, const std::vector<KernelInfo> &kernels);

/// Checks the file's arguments against `kernel`'s explicit arguments: their
/// number, and for each its kind (a buffer for a global_buffer, a scalar for
/// a by_value) and size.
Status checkLaunchArgs(const LaunchFile &file, const KernelInfo &kernel);

struct LaunchFileOutput {
  std::string buffer;
  std::string path;
  std::vector<uint8_t> bytes; // the buffer's whole contents after the launch
};

struct LaunchFileResult {
  std::string kernel;
  std::vector<LaunchFileOutput> outputs; // in argument order
  LaunchReport report;
  /// Every buffer's size (inputs, outputs, scratch), each once: what the
  /// kernel must move at least, for the performance model's floor.
  uint64_t bufferBytes = 0;
};

/// Loads `hsaco` on `device`, checks the arguments (checkLaunchArgs), reads
/// the inputs, allocates and fills every buffer (inputs as read, the others
/// poisoned), launches, waits, and copies each "out" buffer back. Nothing
/// is written to files here: the caller writes `outputs` (all or none).
Result<LaunchFileResult> runLaunchFile(Device &device, const LaunchFile &file,
                                       const std::vector<uint8_t> &hsaco,
                                       const std::vector<KernelInfo> &kernels);

} // namespace mxf::runtime

#endif // MXFORGE_RUNTIME_LAUNCH_FILE_H
