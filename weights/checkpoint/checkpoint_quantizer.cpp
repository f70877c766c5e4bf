//===- checkpoint_quantizer.cpp - A checkpoint in, a quantized one out ----===//
//
// Three phases, so that a mistake costs no work and leaves nothing behind:
//  1. check: the spec, the pattern, the rotation, every input file's header,
//     every matched tensor (BF16, 2-D, named <p>.weight, no <p>.weight_scale
//     already), every output path (absent or --force, not an input);
//  2. build: per shard, lay the output out (planSafetensors), copy the
//     untouched tensors, quantize the matched ones straight into the buffer,
//     and stage the file (a temporary next to its destination);
//  3. commit: rename every staged file; only now does any output appear.
// config.json (Quark's quantization_config and our record) is one more
// output, checked, staged and committed with the others.
//
//===----------------------------------------------------------------------===//

#include "weights/checkpoint/checkpoint_quantizer.h"

#include "arrays/npy.h"
#include "numerics/packing.h"
#include "spec/kernel_spec.h"
#include "spec/reference_problem.h"
#include "support/directory_lock.h"
#include "support/file_io.h"
#include "support/output_files.h"
#include "support/printable.h"
#include "support/sha256.h"
#include "support/version.h"
#include "weights/checkpoint/layer_mask.h"
#include "weights/checkpoint/quantization_error.h"
#include "weights/checkpoint/quantized_config.h"
#include "weights/host_quantizer.h"
#include "support/json.h"
#include "weights/safetensors.h"

#include <regex.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>

namespace mxf::weights {
namespace {

using weights::SafetensorsFile;
using weights::TensorInfo;

constexpr std::string_view kWeightSuffix = ".weight";
constexpr std::string_view kIndexSuffix = ".index.json";

void say(const TextSink &sink, const std::string &text) {
  if (sink)
    sink(text);
}

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string joinPath(const std::string &dir, const std::string &name) {
  return dir.empty() || dir.back() == '/' ? dir + name : dir + "/" + name;
}

std::string dirName(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash + 1);
}

/// An existing output may be replaced (with --force) only if it is a plain
/// file: renaming over a device, a FIFO or a symlink would replace the node
/// itself, not write to it.
Status checkOutputPath(const std::string &path, bool force) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0)
    return Status::success();
  if (!S_ISREG(st.st_mode))
    return Status::failure(path + " exists and is not a regular file; mxforge quantize "
                                  "replaces only regular files");
  if (!force)
    return Status::failure(path + " exists; pass --force to replace it");
  return Status::success();
}

/// The spec text for one tensor: the user's keys plus K and N.
Result<KernelSpec> specFor(const std::string &userSpec, uint64_t n, uint64_t k) {
  return parseSpec(userSpec + ",K=" + std::to_string(k) + ",N=" + std::to_string(n));
}

/// The user's spec must be quant_weight's, written without K and N.
Status checkUserSpec(const std::string &spec) {
  const std::string prefix = "quant_weight:";
  if (spec.rfind(prefix, 0) != 0)
    return Status::failure("--spec '" + spec +
                           "': mxforge quantize takes a quant_weight spec without K and N, "
                           "e.g. quant_weight:RS=64,rot=hadamard,fmt=fp4");
  size_t start = prefix.size();
  while (start <= spec.size()) {
    size_t comma = spec.find(',', start);
    std::string item = spec.substr(start, comma == std::string::npos ? std::string::npos
                                                                    : comma - start);
    std::string key = item.substr(0, item.find('='));
    if (key == "K" || key == "N")
      return Status::failure("--spec '" + spec + "': leave out " + key +
                             "; it comes from each tensor's shape [N, K]");
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  // Validate what can be validated without a tensor (a typo fails here,
  // before any file is read): K=256, N=256 satisfy every layout rule.
  Result<KernelSpec> probe = specFor(spec, 256, 256);
  return probe.ok() ? Status::success() : Status::failure("--spec: " + probe.error());
}

/// --rotation's FILE and TENSOR (empty when not given) of FILE[:TENSOR].
std::pair<std::string, std::string> splitRotation(const std::string &spec) {
  const size_t st = spec.find(".safetensors:");
  if (st == std::string::npos)
    return {spec, ""};
  return {spec.substr(0, st + 12), spec.substr(st + 13)};
}

/// The learned rotation: bf16 bits from a .npy (<u2 as bf16 bit patterns,
/// or <f4 rounded to bf16) or a safetensors tensor (BF16 or F32).
Result<std::vector<uint16_t>> readRotation(const std::string &spec) {
  const auto [path, tensor] = splitRotation(spec);
  std::vector<uint16_t> out;
  if (endsWith(path, ".npy")) {
    Result<arrays::NpyArray> array = arrays::readNpy(path);
    if (!array.ok())
      return array.status();
    if (array.value().dtype() == arrays::NpyDType::U16)
      return array.value().as<uint16_t>();
    if (array.value().dtype() == arrays::NpyDType::F32) {
      for (float v : array.value().as<float>())
        out.push_back(f32ToBf16(v));
      return out;
    }
    return Result<std::vector<uint16_t>>::failure(
        path + ": --rotation needs <u2 (bf16 bit patterns) or <f4 values");
  }
  if (!endsWith(path, ".safetensors"))
    return Result<std::vector<uint16_t>>::failure(
        "--rotation '" + spec + "': give FILE.npy, FILE.safetensors or FILE.safetensors:TENSOR");
  Result<SafetensorsFile> file = SafetensorsFile::open(path);
  if (!file.ok())
    return file.status();
  const TensorInfo *t = nullptr;
  if (tensor.empty()) {
    if (file.value().tensors().size() != 1)
      return Result<std::vector<uint16_t>>::failure(
          path + ": holds " + std::to_string(file.value().tensors().size()) +
          " tensors; name one with --rotation " + path + ":TENSOR");
    t = &file.value().tensors()[0];
  } else if (!(t = file.value().find(tensor))) {
    return Result<std::vector<uint16_t>>::failure(path + ": no tensor '" + tensor + "'");
  }
  const uint8_t *data = file.value().data(*t);
  if (t->dtype == "BF16") {
    out.resize(t->elements());
    if (!out.empty())
      std::memcpy(out.data(), data, t->bytes());
  } else if (t->dtype == "F32") {
    for (uint64_t i = 0; i < t->elements(); ++i) {
      float v;
      std::memcpy(&v, data + 4 * i, 4);
      out.push_back(f32ToBf16(v));
    }
  } else {
    return Result<std::vector<uint16_t>>::failure(path + ": tensor '" + printable(t->name) +
                                                  "' is " + t->dtype +
                                                  "; --rotation needs BF16 or F32");
  }
  return out;
}

/// One input file and where its output goes.
struct Shard {
  std::string inputPath, outputPath, fileName;
  SafetensorsFile file;
};

/// One tensor to quantize.
struct Selected {
  size_t shard = 0;
  const TensorInfo *tensor = nullptr;
  KernelSpec spec; // without the rotation where --layer-mask says so
  std::string scaleName;
  weights::QuantWeightSizes sizes;
  /// The learned R the tensor's spec takes, or null (every other rotation,
  /// and RS=0).
  const uint16_t *learnedRotation(const std::vector<uint16_t> &rotation) const {
    return isLearned(spec.rot) && !rotation.empty() ? rotation.data() : nullptr;
  }
};

/// The spec of a tensor: the user's at the tensor's K and N, without its
/// rotation where the layer mask's entry for the tensor's layer is 0.
Result<KernelSpec> tensorSpec(const QuantizeOptions &options, const LayerMask *mask,
                              const TensorInfo &t, const std::string &where) {
  Result<KernelSpec> spec = specFor(options.spec, t.shape[0], t.shape[1]);
  if (!spec.ok())
    return Result<KernelSpec>::failure(where + " (N=" + std::to_string(t.shape[0]) + ", K=" +
                                       std::to_string(t.shape[1]) + "): " + spec.error());
  if (!mask)
    return spec;
  const std::optional<size_t> layer = layerIndexOf(t.name);
  if (!layer)
    return Result<KernelSpec>::failure(
        where + " matches --tensors but its name has no layer index (a number between dots, as "
                "in model.layers.7.) to look up in --layer-mask; narrow --tensors to the layers' "
                "tensors");
  return selectedSpec(spec.value(), mask->rotates(*layer));
}

std::string shapeText(const std::vector<uint64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

/// A POSIX extended regular expression that must match a whole name
/// (<regex.h>: the C library's, which reports a bad pattern as a value).
class NamePattern {
public:
  static Result<std::shared_ptr<NamePattern>> compile(const std::string &pattern) {
    auto compiled = std::shared_ptr<NamePattern>(new NamePattern());
    const std::string whole = "^(" + pattern + ")$";
    if (int code = regcomp(&compiled->regex_, whole.c_str(), REG_EXTENDED | REG_NOSUB);
        code != 0) {
      char message[256];
      regerror(code, &compiled->regex_, message, sizeof message);
      compiled->compiled_ = false;
      return Result<std::shared_ptr<NamePattern>>::failure(message);
    }
    return compiled;
  }
  ~NamePattern() {
    if (compiled_)
      regfree(&regex_);
  }
  NamePattern(const NamePattern &) = delete;
  NamePattern &operator=(const NamePattern &) = delete;
  bool matches(const std::string &name) const {
    return regexec(&regex_, name.c_str(), 0, nullptr, 0) == 0;
  }

private:
  NamePattern() = default;
  regex_t regex_{};
  bool compiled_ = true;
};

Status selectTensors(const QuantizeOptions &options, const std::vector<Shard> &shards,
                     const std::vector<uint16_t> &rotation, const LayerMask *mask,
                     std::vector<Selected> &selected) {
  Result<std::shared_ptr<NamePattern>> compiled = NamePattern::compile(options.tensors);
  if (!compiled.ok())
    return Status::failure("--tensors '" + printable(options.tensors) + "': " + compiled.error());
  const NamePattern &pattern = *compiled.value();
  std::set<std::string> allNames;
  for (const Shard &s : shards)
    for (const TensorInfo &t : s.file.tensors())
      allNames.insert(t.name);
  for (size_t i = 0; i < shards.size(); ++i)
    for (const TensorInfo &t : shards[i].file.tensors()) {
      if (!pattern.matches(t.name))
        continue;
      const std::string where = shards[i].inputPath + ": tensor '" + printable(t.name) + "'";
      if (t.shape.size() != 2)
        return Status::failure(where + " matches --tensors but has shape " + shapeText(t.shape) +
                               "; quant_weight takes 2-D [N, K] tensors");
      if (t.dtype != "BF16")
        return Status::failure(where + " matches --tensors but is " + t.dtype +
                               "; quant_weight takes BF16");
      if (!endsWith(t.name, kWeightSuffix))
        return Status::failure(where + " matches --tensors but its name does not end in "
                               "'.weight' (the scales are written as <prefix>.weight_scale)");
      Selected sel;
      sel.shard = i;
      sel.tensor = &t;
      sel.scaleName = t.name + "_scale";
      if (allNames.count(sel.scaleName))
        return Status::failure(where + ": the checkpoint already has '" + sel.scaleName +
                               "' (already quantized?)");
      Result<KernelSpec> spec = tensorSpec(options, mask, t, where);
      if (!spec.ok())
        return spec.status();
      sel.spec = spec.value();
      if (options.kernel)
        if (Status supported = options.kernel->checkSupported(sel.spec); !supported.ok())
          return Status::failure(where + ": " + supported.message());
      const RotateQuantProblem problem = rotateQuantProblem(sel.spec, 0);
      if (isLearned(sel.spec.rot)) {
        const size_t need = rotationMatrixElements(sel.spec.rot, sel.spec.RS, problem.k);
        if (rotation.size() != need)
          return Status::failure(where + ": rot=" + rotationKindName(sel.spec.rot) + " with RS=" +
                                 std::to_string(sel.spec.RS) + " and K=" +
                                 std::to_string(problem.k) + " needs " + std::to_string(need) +
                                 " rotation values; --rotation has " +
                                 std::to_string(rotation.size()));
      }
      Result<weights::QuantWeightSizes> sizes = weights::checkQuantWeight(
          problem, sel.spec.wlayout, t.shape[0], sel.learnedRotation(rotation));
      if (!sizes.ok())
        return Status::failure(where + ": " + sizes.error());
      sel.sizes = sizes.value();
      selected.push_back(sel);
    }
  if (selected.empty()) {
    std::string files;
    for (const Shard &s : shards)
      files += (files.empty() ? "" : ", ") + s.inputPath;
    return Status::failure("--tensors '" + options.tensors + "' matches no tensor in " + files);
  }
  return Status::success();
}

/// The progress line: bytes of input done (inside a tensor too: the host
/// path reports rows as it goes), tensors done, GB/s, time left. Redrawn at
/// most every 100 ms, and cleared before a --check row is printed so that
/// the two never share a line.
class Progress {
public:
  Progress(const TextSink &err, bool enabled, size_t tensors, uint64_t bytes)
      : err_(err), enabled_(enabled && err), tensors_(tensors), bytes_(bytes),
        start_(std::chrono::steady_clock::now()) {}
  /// `partial` bytes of the tensor in hand are done.
  void within(uint64_t partial) {
    if (enabled_)
      draw(doneBytes_ + partial, /*always=*/false);
  }
  void advance(uint64_t bytes) {
    ++done_;
    doneBytes_ += bytes;
    if (enabled_)
      draw(doneBytes_, /*always=*/true);
  }
  /// Blanks the line (before other text reaches the terminal).
  void clear() {
    if (enabled_ && shown_) {
      err_("\r" + std::string(width_, ' ') + "\r");
      shown_ = false;
    }
  }
  void finish() {
    if (enabled_ && done_)
      err_("\n");
  }

private:
  void draw(uint64_t doneBytes, bool always) {
    const auto now = std::chrono::steady_clock::now();
    if (!always && shown_ && now - lastDrawn_ < std::chrono::milliseconds(100))
      return;
    lastDrawn_ = now;
    const double s = std::chrono::duration<double>(now - start_).count();
    const double rate = s > 0 ? double(doneBytes) / s : 0;
    const double left = rate > 0 ? double(bytes_ - std::min(bytes_, doneBytes)) / rate : 0;
    // GB for a model's checkpoint, MB for a small one.
    const bool gigabytes = bytes_ >= 1000000000;
    const double unit = gigabytes ? 1e9 : 1e6;
    const std::string line = fmt::format(
        "quantize: {:.2f}/{:.2f} {}, {}/{} tensors, {:.2f} {}/s, {:.0f} s left",
        double(doneBytes) / unit, double(bytes_) / unit, gigabytes ? "GB" : "MB", done_,
        tensors_, rate / unit, gigabytes ? "GB" : "MB", left);
    width_ = std::max(width_, line.size());
    err_("\r" + line + std::string(width_ - line.size(), ' '));
    shown_ = true;
  }

  const TextSink &err_;
  bool enabled_;
  size_t tensors_, done_ = 0;
  uint64_t bytes_, doneBytes_ = 0;
  std::chrono::steady_clock::time_point start_, lastDrawn_;
  size_t width_ = 0;
  bool shown_ = false;
};

/// The output file of one shard, staged.
Result<StagedFile> buildShard(const QuantizeOptions &options, const Shard &shard,
                              const std::vector<const Selected *> &quantized,
                              const std::vector<uint16_t> &rotation, Progress &progress,
                              WeightKernel *kernel, const TextSink &out) {
  std::map<const TensorInfo *, const Selected *> byTensor;
  for (const Selected *s : quantized)
    byTensor[s->tensor] = s;
  std::vector<weights::PlannedTensor> planned;
  weights::Metadata metadata;
  for (const auto &[key, value] : shard.file.metadata())
    if (key.rfind("mxforge.", 0) != 0) // ours are rewritten below
      metadata.emplace_back(key, value);
  metadata.emplace_back("mxforge.version", mxforgeVersion());
  for (const TensorInfo &t : shard.file.tensors()) {
    auto it = byTensor.find(&t);
    if (it == byTensor.end()) {
      planned.push_back({t.name, t.dtype, t.shape});
      continue;
    }
    const Selected &s = *it->second;
    const uint64_t n = t.shape[0];
    planned.push_back({t.name, "U8", {n, s.sizes.codeBytes / n}});
    planned.push_back({s.scaleName, "U8", {s.sizes.scaleShape.rows, s.sizes.scaleShape.cols}});
    metadata.emplace_back("mxforge.spec." + t.name, printSpec(s.spec));
    // A learned R is not in the spec: its fingerprint lets a reader check
    // that the GEMM rotates x by the R the weights carry (docs/loaders.md).
    if (const uint16_t *r = s.learnedRotation(rotation))
      metadata.emplace_back("mxforge.rotation_sha256." + t.name,
                            sha256(r, rotation.size() * sizeof(uint16_t)).hex());
  }
  Result<weights::SafetensorsPlan> plan = weights::planSafetensors(planned, metadata);
  if (!plan.ok())
    return Result<StagedFile>::failure(shard.outputPath + ": " + plan.error());
  std::vector<uint8_t> bytes(plan.value().fileSize);
  std::memcpy(bytes.data(), plan.value().header.data(), plan.value().header.size());
  size_t slot = 0;
  for (const TensorInfo &t : shard.file.tensors()) {
    auto it = byTensor.find(&t);
    if (it == byTensor.end()) {
      std::memcpy(bytes.data() + plan.value().offsets[slot++], shard.file.data(t), t.bytes());
      continue;
    }
    const Selected &s = *it->second;
    uint8_t *codes = bytes.data() + plan.value().offsets[slot++];
    uint8_t *scales = bytes.data() + plan.value().offsets[slot++];
    const RotateQuantProblem problem = rotateQuantProblem(s.spec, 0);
    // The mapping is page-aligned, so the tensor is 2-byte aligned whenever
    // its offset is even (always, from any writer we know of); otherwise
    // it is read through an aligned copy.
    std::vector<uint16_t> copy;
    const uint16_t *w = reinterpret_cast<const uint16_t *>(shard.file.data(t));
    if (reinterpret_cast<uintptr_t>(shard.file.data(t)) % alignof(uint16_t) != 0) {
      copy.resize(t.elements());
      std::memcpy(copy.data(), shard.file.data(t), t.bytes());
      w = copy.data();
    }
    const uint16_t *r = s.learnedRotation(rotation);
    Status st = kernel ? kernel->quantize(s.spec, w, r, r ? rotation.size() : 0, codes,
                                          s.sizes.codeBytes,
                                          scales, s.sizes.scaleBytes)
                       : weights::quantWeightInto(
                             problem, s.spec.wlayout, w, t.shape[0], r, options.threads, codes,
                             scales, [&](size_t rows) {
                               progress.within(t.bytes() / t.shape[0] * rows);
                             });
    if (!st.ok())
      return Result<StagedFile>::failure(shard.inputPath + ": tensor '" + printable(t.name) +
                                         "': " + st.message());
    if (options.check) {
      progress.clear(); // the row gets a line of its own
      QuantizationError e =
          measureQuantization(problem, s.spec.wlayout, w, t.shape[0], r, codes, scales);
      say(out, fmt::format("{:<48} {:>12.6f} {:>12.6f} {:>10.6f}\n", t.name, e.relativeToSource,
                           e.relativeToRotated, e.clippedFraction));
    }
    progress.advance(t.bytes());
  }
  return StagedFile::stage(shard.outputPath, bytes.data(), bytes.size());
}

/// The index of a sharded checkpoint: its JSON and the shard file names.
struct Index {
  json::Value root;
  std::vector<std::string> shardNames; // in first-mention order
};

Result<Index> readIndex(const std::string &path) {
  Result<std::vector<uint8_t>> bytes = readFileBytes(path, uint64_t(256) << 20);
  if (!bytes.ok())
    return bytes.status();
  Result<json::Value> root = json::parse(
      std::string_view(reinterpret_cast<const char *>(bytes.value().data()), bytes.value().size()));
  if (!root.ok())
    return Result<Index>::failure(path + ": malformed JSON: " + root.error());
  const json::Value *map = root.value().find("weight_map");
  if (!root.value().isObject() || !map || !map->isObject())
    return Result<Index>::failure(path + ": no \"weight_map\" object (not a safetensors index)");
  Index index;
  std::set<std::string> seen;
  for (const auto &[name, file] : map->members) {
    if (!file.isString() || file.text.empty() || file.text.find('/') != std::string::npos)
      return Result<Index>::failure(path + ": weight_map entry '" + printable(name) +
                                    "' must name a shard file in the index's directory");
    // A NUL ("\u0000") would cut the name where the system reads it: the
    // shard opened would not be the one the index names.
    if (file.text.find('\0') != std::string::npos || !isValidUtf8(file.text))
      return Result<Index>::failure(path + ": weight_map entry '" + printable(name) +
                                    "' names the shard '" + printable(file.text) + "', " +
                                    (file.text.find('\0') != std::string::npos
                                         ? "which holds a NUL byte"
                                         : "which is not UTF-8") +
                                    "; a shard must be a plain file name");
    if (seen.insert(file.text).second)
      index.shardNames.push_back(file.text);
  }
  index.root = std::move(root.value());
  return index;
}

/// The index for the output: weight_map gains each <p>.weight_scale (in its
/// weight's shard) and metadata.total_size the output's data size.
std::string updatedIndex(const Index &index, const std::vector<Selected> &selected,
                         const std::vector<Shard> &shards, uint64_t totalSize) {
  json::Value root = index.root;
  for (auto &[key, value] : root.members) {
    if (key == "weight_map") {
      for (const Selected &s : selected) {
        json::Value file;
        file.kind = json::Value::Kind::String;
        file.text = shards[s.shard].fileName;
        value.members.emplace_back(s.scaleName, file);
      }
    } else if (key == "metadata" && value.isObject()) {
      for (auto &[mkey, mvalue] : value.members)
        if (mkey == "total_size") {
          mvalue.kind = json::Value::Kind::Number;
          mvalue.text = std::to_string(totalSize);
        }
    }
  }
  return json::serialize(root) + "\n";
}

/// Where the output's config.json comes from and goes (docs/weights.md):
/// a sharded output (a directory) always gets one, from the input's
/// config.json when it has one; a single-file output gets one beside it
/// only when the input has a config.json and the output is in another
/// directory (the input's config.json is never modified).
struct ConfigPlan {
  std::string inputPath;                   // empty: the input has none
  std::optional<json::Value> input;
  std::string outputPath;                  // empty: none written
  std::string note;                        // said after the summary
};

/// Whether something (of any kind, links followed) is at `path`.
bool exists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

bool sameDirectory(const std::string &a, const std::string &b) {
  struct stat sa, sb;
  return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

Result<ConfigPlan> planConfig(const QuantizeOptions &options, bool sharded) {
  ConfigPlan plan;
  const std::string candidate = joinPath(dirName(options.in), "config.json");
  // A config.json that is not a regular file (a FIFO, a directory) is an
  // error from readFileBytes, not taken for none: the output would silently
  // lack the model's config.
  if (exists(candidate)) {
    Result<std::vector<uint8_t>> bytes = readFileBytes(candidate, uint64_t(64) << 20);
    if (!bytes.ok())
      return bytes.status();
    Result<json::Value> root = json::parse(std::string_view(
        reinterpret_cast<const char *>(bytes.value().data()), bytes.value().size()));
    if (!root.ok())
      return Result<ConfigPlan>::failure(candidate + ": malformed JSON: " + root.error());
    if (!root.value().isObject())
      return Result<ConfigPlan>::failure(candidate + ": a model config must be a JSON object, "
                                                     "this is " +
                                         json::kindName(root.value().kind));
    plan.inputPath = candidate;
    plan.input = std::move(root.value());
  }
  if (sharded) {
    plan.outputPath = joinPath(options.out, "config.json");
    if (plan.inputPath.empty())
      plan.note = "note: no config.json beside the input; " + plan.outputPath +
                  " holds only quantization_config and mxforge_quantization (merge them into "
                  "the model's config)";
    return plan;
  }
  if (plan.inputPath.empty()) {
    plan.note = "note: no config.json beside the input, so none was written";
    return plan;
  }
  if (sameDirectory(dirName(options.in), dirName(options.out))) {
    plan.note = "note: config.json not written: the output is in the input's directory, and "
                "mxforge never modifies the input (write --out to another directory to get one)";
    return plan;
  }
  plan.outputPath = joinPath(dirName(options.out), "config.json");
  return plan;
}

/// The modules a loader must leave unquantized: every 2-D `<p>.weight` the
/// pattern did not select, in input order.
std::vector<std::string> excludedModules(const std::vector<Shard> &shards,
                                         const std::vector<Selected> &selected) {
  std::set<const TensorInfo *> chosen;
  for (const Selected &s : selected)
    chosen.insert(s.tensor);
  std::vector<std::string> out;
  for (const Shard &s : shards)
    for (const TensorInfo &t : s.file.tensors())
      if (t.shape.size() == 2 && endsWith(t.name, kWeightSuffix) && !chosen.count(&t))
        out.push_back(t.name.substr(0, t.name.size() - kWeightSuffix.size()));
  return out;
}

/// The learned R the spec needs (--rotation), or none for the other
/// rotation kinds, which refuse one.
Result<std::vector<uint16_t>> learnedRotationFor(const QuantizeOptions &options,
                                                 const KernelSpec &probe) {
  using R = Result<std::vector<uint16_t>>;
  if (isLearned(probe.rot)) {
    if (!options.rotation)
      return R::failure(std::string("rot=") + rotationKindName(probe.rot) +
                        " needs --rotation FILE (the learned R)");
    return readRotation(*options.rotation);
  }
  if (options.rotation)
    return R::failure(std::string("--rotation is only for learned rotations; the spec has rot=") +
                      rotationKindName(probe.rot));
  return std::vector<uint16_t>{};
}

/// The layer mask (--layer-mask), or none; refused for a spec without a
/// rotation to choose.
Result<std::optional<LayerMask>> layerMaskFor(const QuantizeOptions &options,
                                              const KernelSpec &probe) {
  using R = Result<std::optional<LayerMask>>;
  if (!options.layerMask)
    return std::optional<LayerMask>();
  if (probe.RS == 0)
    return R::failure("--layer-mask chooses per layer between the spec's rotation and none; the "
                      "spec has RS=0, no rotation to choose");
  Result<LayerMask> mask = readLayerMask(*options.layerMask);
  if (!mask.ok())
    return mask.status();
  return std::optional<LayerMask>(std::move(mask.value()));
}

std::vector<std::string> tensorNames(const std::vector<Shard> &shards) {
  std::vector<std::string> names;
  for (const Shard &s : shards)
    for (const TensorInfo &t : s.file.tensors())
      names.push_back(t.name);
  return names;
}

/// "0, 2-5, 9" (or "none").
std::string layerList(const std::vector<size_t> &layers) {
  std::string text;
  for (size_t i = 0; i < layers.size();) {
    size_t j = i;
    while (j + 1 < layers.size() && layers[j + 1] == layers[j] + 1)
      ++j;
    text += (text.empty() ? "" : ", ") + std::to_string(layers[i]) +
            (j > i ? "-" + std::to_string(layers[j]) : "");
    i = j + 1;
  }
  return text.empty() ? "none" : text;
}

/// The checkpoint --in names, every shard opened: one .safetensors file, or
/// the shards of a model.safetensors.index.json (index set, its output path
/// in --out's folder).
struct InputCheckpoint {
  std::optional<Index> index;
  std::vector<Shard> shards;
  std::string indexOutput;
};

/// The index and its shards must agree, in linear time: every tensor the
/// weight_map names is in its shard, and every tensor of a shard is named
/// there.
Status checkIndexAgreesWithShards(const std::string &indexPath, const Index &index,
                                  const std::vector<Shard> &shards) {
  const json::Value *map = index.root.find("weight_map");
  std::unordered_map<std::string_view, const Shard *> shardByName;
  for (const Shard &s : shards)
    shardByName.emplace(s.fileName, &s);
  std::unordered_map<std::string_view, std::string_view> shardOfTensor;
  shardOfTensor.reserve(map->members.size());
  for (const auto &[name, file] : map->members) {
    shardOfTensor.emplace(name, file.text);
    const Shard *shard = shardByName.at(file.text); // every named shard was opened
    if (!shard->file.find(name))
      return Status::failure(indexPath + ": weight_map puts '" + printable(name) + "' in " +
                             printable(file.text) + ", which has no such tensor");
  }
  for (const Shard &s : shards)
    for (const TensorInfo &t : s.file.tensors()) {
      auto entry = shardOfTensor.find(t.name);
      if (entry == shardOfTensor.end() || entry->second != s.fileName)
        return Status::failure(s.inputPath + ": tensor '" + printable(t.name) +
                               "' is not in the index's weight_map for this shard");
    }
  return Status::success();
}

Result<InputCheckpoint> openInputCheckpoint(const QuantizeOptions &options) {
  using R = Result<InputCheckpoint>;
  InputCheckpoint input;
  if (endsWith(options.in, kIndexSuffix)) {
    Result<Index> read = readIndex(options.in);
    if (!read.ok())
      return read.status();
    input.index = std::move(read.value());
    struct stat st;
    if (stat(options.out.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
      return R::failure("--out " + options.out +
                        ": a sharded checkpoint is written to a directory, and this is a file");
    const std::string inName = options.in.substr(options.in.rfind('/') + 1);
    input.indexOutput = joinPath(options.out, inName);
    for (const std::string &name : input.index->shardNames)
      input.shards.push_back(
          {joinPath(dirName(options.in), name), joinPath(options.out, name), name, {}});
  } else {
    if (!endsWith(options.in, ".safetensors"))
      return R::failure("--in " + options.in +
                        ": give a .safetensors file or a model.safetensors.index.json");
    input.shards.push_back({options.in, options.out, "", {}});
  }
  for (Shard &s : input.shards) {
    Result<SafetensorsFile> file = SafetensorsFile::open(s.inputPath);
    if (!file.ok())
      return file.status();
    s.file = std::move(file.value());
  }
  if (input.index)
    if (Status s = checkIndexAgreesWithShards(options.in, *input.index, input.shards); !s.ok())
      return s;
  return input;
}

} // namespace

Status quantizeCheckpoint(const QuantizeOptions &options, const TextSink &out,
                          const TextSink &err) {
  DirectoryLock lock; // held until every output is in place (below)
  // Phase 1: check everything.
  if (options.threads > kMaxQuantizeThreads)
    return Status::failure("threads=" + std::to_string(options.threads) + " is more than " +
                           std::to_string(kMaxQuantizeThreads) +
                           " (0 uses one per hardware thread)");
  if (Status s = checkUserSpec(options.spec); !s.ok())
    return s;
  Result<KernelSpec> probe = specFor(options.spec, 256, 256);
  Result<std::vector<uint16_t>> learned = learnedRotationFor(options, probe.value());
  if (!learned.ok())
    return learned.status();
  const std::vector<uint16_t> &rotation = learned.value();
  Result<std::optional<LayerMask>> mask = layerMaskFor(options, probe.value());
  if (!mask.ok())
    return mask.status();
  Result<InputCheckpoint> input = openInputCheckpoint(options);
  if (!input.ok())
    return input.status();
  const bool sharded = input.value().index.has_value();
  const std::optional<Index> &index = input.value().index;
  std::vector<Shard> &shards = input.value().shards;
  const std::string &indexOutput = input.value().indexOutput;
  if (mask.value())
    if (Status fits = checkMaskFitsModel(*mask.value(), modelLayerCount(tensorNames(shards)));
        !fits.ok())
      return fits;
  std::vector<Selected> selected;
  const LayerMask *maskOrNull = mask.value() ? &*mask.value() : nullptr;
  if (Status s = selectTensors(options, shards, rotation, maskOrNull, selected); !s.ok())
    return s;

  // Tensors quantized with the rotation (all of them without --layer-mask):
  // the config's record and the summary say how many.
  const size_t rotatedTensors = size_t(std::count_if(
      selected.begin(), selected.end(), [](const Selected &s) { return s.spec.RS > 0; }));

  Result<ConfigPlan> config = planConfig(options, sharded);
  if (!config.ok())
    return config.status();

  std::vector<std::string> outputs, what, inputs;
  for (const Shard &s : shards) {
    outputs.push_back(s.outputPath);
    what.push_back("output " + s.outputPath);
    inputs.push_back(s.inputPath);
  }
  if (sharded) {
    outputs.push_back(indexOutput);
    what.push_back("output index " + indexOutput);
    inputs.push_back(options.in);
  }
  if (!config.value().outputPath.empty()) {
    outputs.push_back(config.value().outputPath);
    what.push_back("output config " + config.value().outputPath);
  }
  if (!config.value().inputPath.empty())
    inputs.push_back(config.value().inputPath);
  if (options.rotation) // the learned R is an input like the checkpoint
    inputs.push_back(splitRotation(*options.rotation).first);
  if (options.layerMask)
    inputs.push_back(*options.layerMask);
  // One writer per output folder, from the first check of an output to the
  // last rename (support/directory_lock.h): a second run into the folder
  // fails here instead of mixing its shards with ours. A sharded run's folder
  // is created for the lock and removed again, if still empty, when a check
  // fails under the lock.
  const std::string folder = sharded ? options.out : dirName(options.out);
  struct stat folderInfo;
  const bool createdFolder = sharded && ::stat(folder.c_str(), &folderInfo) != 0;
  if (createdFolder)
    if (Status s = createDirectories(folder); !s.ok())
      return s;
  Status checked = [&]() -> Status {
    Result<DirectoryLock> locked =
        DirectoryLock::tryLock(folder, "mxforge quantize --out " + options.out);
    if (!locked.ok())
      return locked.status();
    lock = std::move(locked.value());
    // What an earlier run killed without a chance to clean up (SIGKILL)
    // left: only temporaries we can prove are such leftovers.
    for (const std::string &name : removeStaleTemporaries(folder))
      say(err, "note: removed " + joinPath(folder, name) +
                   ", a temporary an interrupted run left behind\n");
    for (const std::string &path : outputs)
      if (Status s = checkOutputPath(path, options.force); !s.ok())
        return s;
    return checkDistinctOutputs(outputs, what, inputs);
  }();
  if (!checked.ok()) {
    // Only under our lock: a writer that lost the lock must not remove the
    // (still empty) folder the winner is about to fill.
    if (createdFolder && lock.held())
      ::rmdir(folder.c_str()); // only if still empty
    return checked;
  }

  // Phase 2: build and stage every output.
  uint64_t quantBytes = 0;
  for (const Selected &s : selected)
    quantBytes += s.tensor->bytes();
  Progress progress(err, options.progress, selected.size(), quantBytes);
  if (options.check)
    say(out, fmt::format("{:<48} {:>12} {:>12} {:>10}\n", "tensor", "rel.err/src",
                         "rel.err/rot", "clipped"));
  std::vector<StagedFile> staged;
  uint64_t totalSize = 0;
  for (size_t i = 0; i < shards.size(); ++i) {
    std::vector<const Selected *> mine;
    for (const Selected &s : selected)
      if (s.shard == i)
        mine.push_back(&s);
    Result<StagedFile> file =
        buildShard(options, shards[i], mine, rotation, progress, options.kernel, out);
    if (!file.ok())
      return file.status();
    // total_size counts tensor bytes: the file size less its header.
    Result<SafetensorsFile> written = SafetensorsFile::open(file.value().temporary());
    if (!written.ok())
      return Status::failure("the staged output does not read back: " + written.error());
    for (const TensorInfo &t : written.value().tensors())
      totalSize += t.bytes();
    staged.push_back(std::move(file.value()));
  }
  progress.finish();
  if (sharded) {
    const std::string text = updatedIndex(*index, selected, shards, totalSize);
    Result<StagedFile> file = StagedFile::stage(indexOutput, text.data(), text.size());
    if (!file.ok())
      return file.status();
    staged.push_back(std::move(file.value()));
  }

  if (!config.value().outputPath.empty()) {
    QuantizedCheckpointFacts facts;
    facts.spec = probe.value();
    facts.specText = options.spec;
    facts.rotationFile = options.rotation;
    facts.layerMask = mask.value();
    facts.exclude = excludedModules(shards, selected);
    facts.quantizedTensors = selected.size();
    facts.rotatedTensors = rotatedTensors;
    const std::string text = quantizedModelConfig(config.value().input, facts);
    Result<StagedFile> file = StagedFile::stage(config.value().outputPath, text.data(), text.size());
    if (!file.ok())
      return file.status();
    staged.push_back(std::move(file.value()));
  }

  // Phase 3: commit.
  for (StagedFile &f : staged)
    if (Status s = f.commit(); !s.ok())
      return s;
  say(out, fmt::format("quantized {} tensor{} ({:.2f} M weights) into {} file{}: {}\n",
                       selected.size(), selected.size() == 1 ? "" : "s", double(quantBytes) / 2e6,
                       staged.size(), staged.size() == 1 ? "" : "s", options.out));
  if (mask.value()) {
    say(out, fmt::format("--layer-mask: {} tensor{} with the rotation (layers {}), {} without\n",
                         rotatedTensors, rotatedTensors == 1 ? "" : "s",
                         layerList(mask.value()->rotatedLayers()),
                         selected.size() - rotatedTensors));
  }
  if (!config.value().note.empty())
    say(out, config.value().note + "\n");
  return Status::success();
}

} // namespace mxf::weights
