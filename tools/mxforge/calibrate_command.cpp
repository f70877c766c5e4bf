//===- calibrate_command.cpp - mxforge calibrate: where a rotation helps --===//
//
// Reads per-layer activation samples (a folder of .npy files, or one
// safetensors file, one tensor per layer), measures each layer's
// quantization error with and without the spec's rotation
// (arrays/calibration.h), prints the table and writes the layer mask a
// selective kernel reads: one int32 per layer, 1 = rotate, in the table's
// order (file or tensor names, sorted). docs/cli.md, "calibrate".
//
//===----------------------------------------------------------------------===//

#include "tools/mxforge/commands.h"

#include "arrays/calibration.h"
#include "arrays/npy.h"
#include "numerics/formats.h"
#include "numerics/rotation.h"
#include "spec/kernel_spec.h"
#include "support/file_io.h"
#include "support/output_files.h"
#include "tools/mxforge/cli_support.h"
#include "tools/mxforge/text_table.h"
#include "weights/checkpoint/layer_mask.h"
#include "weights/safetensors.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace mxf::cli {
namespace {

namespace cl = llvm::cl;
namespace fs = std::filesystem;

cl::SubCommand calibrateCommand(
    "calibrate", "Per-layer error with and without a spec's rotation; writes the layer mask");

cl::opt<std::string> specFlag("spec", cl::sub(calibrateCommand), cl::value_desc("SPEC"),
                              cl::desc("rotate_quant spec with the rotation to judge (required)"),
                              cl::cat(mxforgeCategory()));
cl::opt<std::string> samplesFlag(
    "samples", cl::sub(calibrateCommand), cl::value_desc("DIR|FILE.safetensors"),
    cl::desc("Activation samples: a folder of .npy files or a safetensors file, one array per "
             "layer, [..., K] bf16 (uint16 bits) or float32 (required)"),
    cl::cat(mxforgeCategory()));
cl::opt<std::string> thresholdFlag(
    "threshold", cl::sub(calibrateCommand), cl::value_desc("T"),
    cl::desc("Rotate a layer when the rotation removes more than this share of its relative "
             "RMS error, in [0, 1) (default 0.05)"),
    cl::init("0.05"), cl::cat(mxforgeCategory()));
cl::opt<std::string> rotationFlag("r", cl::sub(calibrateCommand), cl::value_desc("FILE.npy"),
                                  cl::desc("The learned rotation (bf16 bits) of rot=learned or "
                                           "learned_per_block"),
                                  cl::cat(mxforgeCategory()));
cl::opt<std::string> maskFlag("mask", cl::sub(calibrateCommand), cl::value_desc("FILE.npy"),
                              cl::desc("Write the layer mask: int32 [layers], 1 = rotate"),
                              cl::cat(mxforgeCategory()));
cl::opt<std::string> tableFlag("table", cl::sub(calibrateCommand), cl::value_desc("FILE"),
                               cl::desc("Also write the table as tab-separated text"),
                               cl::cat(mxforgeCategory()));
cl::opt<bool> forceFlag("force", cl::sub(calibrateCommand),
                        cl::desc("Replace --mask and --table files that exist"),
                        cl::cat(mxforgeCategory()));

/// bf16 bits of an array's values: uint16 as given, float32 rounded to
/// nearest even; other dtypes are refused by name.
Result<std::vector<uint16_t>> bf16Values(const std::string &what, const std::string &dtype,
                                         const uint8_t *data, size_t elements) {
  std::vector<uint16_t> out(elements);
  if (dtype == "bf16") {
    std::memcpy(out.data(), data, elements * 2);
  } else if (dtype == "f32") {
    for (size_t i = 0; i < elements; ++i) {
      float value;
      std::memcpy(&value, data + 4 * i, 4);
      out[i] = f32ToBf16(value);
    }
  } else {
    return Result<std::vector<uint16_t>>::failure(
        what + " holds " + dtype + "; samples are bf16 (numpy uint16 bit patterns, safetensors "
        "BF16) or float32");
  }
  return out;
}

/// A layer from an array of `shape`: rows = the product of all dimensions
/// but the last, which must be K.
Result<arrays::LayerSamples> layerOf(const std::string &name, const std::vector<size_t> &shape,
                                     const std::string &dtype, const uint8_t *data, int k) {
  if (shape.empty() || shape.back() != size_t(k))
    return Result<arrays::LayerSamples>::failure(
        "layer '" + name + "' has shape " + arrays::shapeString(shape) +
        ", whose last dimension is not the spec's K=" + std::to_string(k));
  arrays::LayerSamples layer;
  layer.name = name;
  layer.rows = 1;
  for (size_t d = 0; d + 1 < shape.size(); ++d)
    layer.rows *= shape[d];
  Result<std::vector<uint16_t>> values =
      bf16Values("layer '" + name + "'", dtype, data, layer.rows * size_t(k));
  if (!values.ok())
    return values.status();
  layer.x = std::move(values.value());
  return layer;
}

const char *npyDtypeName(arrays::NpyDType dtype) {
  switch (dtype) {
  case arrays::NpyDType::U16:
    return "bf16";
  case arrays::NpyDType::F32:
    return "f32";
  case arrays::NpyDType::U8:
    return "uint8";
  case arrays::NpyDType::I32:
    return "int32";
  }
  return "?";
}

Result<std::vector<arrays::LayerSamples>> readLayers(const std::string &path, int k) {
  using R = Result<std::vector<arrays::LayerSamples>>;
  std::vector<arrays::LayerSamples> layers;
  std::error_code error;
  if (fs::is_directory(path, error)) {
    std::vector<fs::path> files;
    for (const fs::directory_entry &entry : fs::directory_iterator(path, error))
      if (entry.path().extension() == ".npy")
        files.push_back(entry.path());
    if (error)
      return R::failure("cannot list '" + path + "': " + error.message());
    if (files.empty())
      return R::failure("'" + path + "' holds no .npy files (one per layer)");
    std::sort(files.begin(), files.end(), [](const fs::path &a, const fs::path &b) {
      return weights::naturalNameLess(a.filename().string(), b.filename().string());
    });
    for (const fs::path &file : files) {
      Result<arrays::NpyArray> array = arrays::readNpy(file.string());
      if (!array.ok())
        return R::failure(file.string() + ": " + array.error());
      const arrays::NpyArray &a = array.value();
      const std::vector<uint8_t> bytes = [&] {
        std::vector<uint8_t> raw(a.size() * arrays::npyItemSize(a.dtype()));
        std::visit([&](const auto &values) { std::memcpy(raw.data(), values.data(), raw.size()); },
                   a.values);
        return raw;
      }();
      Result<arrays::LayerSamples> layer =
          layerOf(file.stem().string(), a.shape, npyDtypeName(a.dtype()), bytes.data(), k);
      if (!layer.ok())
        return R::failure(file.string() + ": " + layer.error());
      layers.push_back(std::move(layer.value()));
    }
    return layers;
  }
  if (!fs::exists(path, error))
    return R::failure("'" + path + "' does not exist");
  Result<weights::SafetensorsFile> file = weights::SafetensorsFile::open(path);
  if (!file.ok())
    return R::failure(file.error());
  std::vector<const weights::TensorInfo *> tensors;
  for (const weights::TensorInfo &tensor : file.value().tensors())
    tensors.push_back(&tensor);
  if (tensors.empty())
    return R::failure("'" + path + "' holds no tensors (one per layer)");
  std::sort(tensors.begin(), tensors.end(), [](const auto *a, const auto *b) {
    return weights::naturalNameLess(a->name, b->name);
  });
  for (const weights::TensorInfo *tensor : tensors) {
    std::vector<size_t> shape(tensor->shape.begin(), tensor->shape.end());
    const std::string dtype = tensor->dtype == "BF16" ? "bf16"
                              : tensor->dtype == "F32" ? "f32"
                                                       : tensor->dtype;
    Result<arrays::LayerSamples> layer =
        layerOf(tensor->name, shape, dtype, file.value().data(*tensor), k);
    if (!layer.ok())
      return R::failure(path + ": " + layer.error());
    layers.push_back(std::move(layer.value()));
  }
  return layers;
}

/// The files calibrate reads (the samples file, or every .npy of the
/// samples folder, and --r): no output may be one of them.
std::vector<std::string> inputFiles(const std::string &samples, const std::string &rotation) {
  std::vector<std::string> files;
  std::error_code error;
  if (fs::is_directory(samples, error)) {
    for (const fs::directory_entry &entry : fs::directory_iterator(samples, error))
      if (entry.path().extension() == ".npy")
        files.push_back(entry.path().string());
  } else {
    files.push_back(samples);
  }
  if (!rotation.empty())
    files.push_back(rotation);
  return files;
}

Status refuseExisting(const std::string &path, const char *flag, bool force) {
  std::error_code error;
  if (!path.empty() && !force && fs::exists(path, error))
    return Status::failure("--" + std::string(flag) + " '" + path +
                           "' exists; pass --force to replace it");
  return Status::success();
}

int calibrateSelected(llvm::raw_ostream &out, llvm::raw_ostream &err) {
  if (!specFlag.getNumOccurrences())
    return reportError(err, "mxforge calibrate needs --spec SPEC", kExitUsage);
  if (!samplesFlag.getNumOccurrences())
    return reportError(err, "mxforge calibrate needs --samples DIR|FILE.safetensors", kExitUsage);
  char *end = nullptr;
  errno = 0;
  const std::string thresholdText = thresholdFlag;
  const double threshold = std::strtod(thresholdText.c_str(), &end);
  if (thresholdText.empty() || *end != '\0' || errno != 0)
    return reportError(err, "--threshold: '" + thresholdText + "' is not a number", kExitUsage);
  Result<KernelSpec> spec = parseSpec(specFlag);
  if (!spec.ok())
    return reportError(err, "invalid spec: " + spec.error());
  const bool haveRotation = rotationFlag.getNumOccurrences() > 0;
  if (spec.value().RS > 0 && isLearned(spec.value().rot) && !haveRotation)
    return reportError(err, "rot=" + std::string(rotationKindName(spec.value().rot)) +
                                " needs its rotation matrix (--r FILE.npy)");
  if (Status usable = arrays::checkCalibration(spec.value(), threshold, haveRotation);
      !usable.ok())
    return reportError(err, usable.message());
  const std::string maskPath = maskFlag, tablePath = tableFlag;
  for (const auto &[path, flag] : {std::pair{maskPath, "mask"}, std::pair{tablePath, "table"}})
    if (Status fresh = refuseExisting(path, flag, forceFlag); !fresh.ok())
      return reportError(err, fresh.message());
  // By identity, links followed, before any work: --force replaces an
  // output, never the samples or the rotation the command reads.
  std::vector<std::string> outputPaths, outputWhats;
  for (const auto &[path, what] : {std::pair{maskPath, "--mask"}, std::pair{tablePath, "--table"}})
    if (!path.empty()) {
      outputPaths.push_back(path);
      outputWhats.push_back(what);
    }
  const std::vector<std::string> inputs =
      inputFiles(samplesFlag, haveRotation ? std::string(rotationFlag) : std::string());
  if (Status distinct = checkDistinctOutputs(outputPaths, outputWhats, inputs); !distinct.ok())
    return reportError(err, distinct.message());

  std::vector<uint16_t> rotation;
  if (haveRotation) {
    if (!isLearned(spec.value().rot))
      return reportError(err, "--r is the matrix of a learned rotation; rot=" +
                                  std::string(rotationKindName(spec.value().rot)) + " has none");
    Result<arrays::NpyArray> r = arrays::readNpy(rotationFlag);
    if (!r.ok())
      return reportError(err, "--r: " + r.error());
    const size_t expected =
        rotationMatrixElements(spec.value().rot, spec.value().RS, size_t(spec.value().K));
    if (r.value().dtype() != arrays::NpyDType::U16 || r.value().size() != expected)
      return reportError(err, "--r must hold " + std::to_string(expected) +
                                  " bf16 values (uint16) for " + printSpec(spec.value()) +
                                  ", got " + arrays::describeArray(r.value().dtype(), r.value().shape));
    rotation = r.value().as<uint16_t>();
  }

  Result<std::vector<arrays::LayerSamples>> layers = readLayers(samplesFlag, spec.value().K);
  if (!layers.ok())
    return reportError(err, layers.error());
  std::vector<arrays::LayerCalibration> results;
  for (const arrays::LayerSamples &layer : layers.value()) {
    Result<arrays::LayerCalibration> measured = arrays::calibrateLayer(
        spec.value(), layer, rotation.empty() ? nullptr : rotation.data(), threshold);
    if (!measured.ok())
      return reportError(err, measured.error());
    results.push_back(measured.value());
  }

  using Align = TextTable::Align;
  TextTable table;
  table.addColumn("layer", Align::Left);
  table.addColumn("index");
  table.addColumn("rows");
  table.addColumn("rel rms");
  table.addColumn("rtn rel rms");
  table.addColumn("clipped");
  table.addColumn("rtn clipped");
  table.addColumn("gain");
  table.addColumn("rotate", Align::Left);
  std::string tsv = "layer\tindex\trows\trel_rms\trtn_rel_rms\tclipped\trtn_clipped\tgain\trotate\n";
  std::vector<int32_t> mask;
  for (size_t i = 0; i < results.size(); ++i) {
    const arrays::LayerCalibration &c = results[i];
    mask.push_back(c.rotate ? 1 : 0);
    table.addRow({c.name, fmt::format("{}", i), fmt::format("{}", c.rows),
                  fmt::format("{:.4f}", c.rotatedRelRms), fmt::format("{:.4f}", c.plainRelRms),
                  fmt::format("{:.3f}%", 100 * c.rotatedClipped),
                  fmt::format("{:.3f}%", 100 * c.plainClipped), fmt::format("{:+.3f}", c.gain),
                  c.rotate ? "yes" : "no"});
    tsv += fmt::format("{}\t{}\t{}\t{:.6f}\t{:.6f}\t{:.6f}\t{:.6f}\t{:.6f}\t{}\n", c.name, i,
                       c.rows, c.rotatedRelRms, c.plainRelRms, c.rotatedClipped, c.plainClipped,
                       c.gain, c.rotate ? 1 : 0);
  }
  out << fmt::format("calibrate {} against RS=0, threshold {}\n", printSpec(spec.value()),
                     threshold)
      << table.render();
  const size_t rotated = size_t(std::count(mask.begin(), mask.end(), 1));
  out << fmt::format("rotate {} of {} layers\n", rotated, mask.size());
  // quantize --layer-mask and a selective kernel read entry i as layer i.
  for (size_t i = 0; i < results.size(); ++i) {
    const std::optional<size_t> layer = weights::layerIndexOf(results[i].name);
    if (layer && *layer != i) {
      out << fmt::format("note: '{}' is row {} of the table, so the mask's entry {} is its; its "
                         "name says layer {} (samples of layers 0..{} give entry i to layer i)\n",
                         results[i].name, i, i, *layer, results.size() - 1);
      break;
    }
  }
  // Both outputs all or none (support/output_files.h): a path through
  // /dev/stdout is written through, an existing file replaced whole.
  std::vector<OutputFile> files;
  if (!maskPath.empty()) {
    Result<std::string> bytes =
        arrays::encodeNpy(arrays::NpyArray::of<int32_t>({mask.size()}, mask));
    if (!bytes.ok())
      return reportError(err, "--mask: " + bytes.error());
    files.push_back({"--mask", maskPath,
                     std::vector<uint8_t>(bytes.value().begin(), bytes.value().end())});
  }
  if (!tablePath.empty())
    files.push_back({"--table", tablePath, std::vector<uint8_t>(tsv.begin(), tsv.end())});
  if (Status written = writeOutputFiles(files, inputs); !written.ok())
    return reportError(err, written.message());
  if (!maskPath.empty())
    out << "wrote the mask to " << maskPath << "\n";
  if (!tablePath.empty())
    out << "wrote the table to " << tablePath << "\n";
  return kExitSuccess;
}

} // namespace

Subcommand calibrateSubcommand() { return {&calibrateCommand, calibrateSelected}; }

} // namespace mxf::cli
