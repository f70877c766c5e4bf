//===- witness_case.cpp - One case of the witness corpus ------------------===//

#include "tests/witness/witness_case.h"

#include "arrays/npy.h"
#include "codeobj/hsaco_reader.h"
#include "runtime/emu_device.h"
#include "support/file_io.h"
#include "support/json.h"

#include <cmath>
#include <cstring>

namespace mxf::witness {

namespace {

Result<json::Value> readJson(const std::string &path) {
  Result<std::vector<uint8_t>> bytes = readFileBytes(path, 16u << 20);
  if (!bytes.ok())
    return bytes.status();
  Result<json::Value> v = json::parse(
      std::string_view(reinterpret_cast<const char *>(bytes.value().data()), bytes.value().size()));
  if (!v.ok())
    return Result<json::Value>::failure(path + ": " + v.error());
  return v;
}

std::string text(const json::Value &v) {
  return v.isString() ? v.text : json::serialize(v);
}

float f32At(const std::vector<uint8_t> &bytes, size_t i) {
  float f;
  std::memcpy(&f, &bytes[4 * i], 4);
  return f;
}

/// Distance in units in the last place between two finite floats of one
/// sign convention (the usual ordered-integer mapping).
uint64_t ulpDistance(float a, float b) {
  auto ordered = [](float f) {
    int32_t i;
    std::memcpy(&i, &f, 4);
    return i < 0 ? int64_t(INT32_MIN) - i : int64_t(i);
  };
  const int64_t d = ordered(a) - ordered(b);
  return uint64_t(d < 0 ? -d : d);
}

} // namespace

Result<std::vector<std::string>> corpusCaseNames(const std::string &corpusDir) {
  using R = Result<std::vector<std::string>>;
  Result<json::Value> manifest = readJson(corpusDir + "/MANIFEST.json");
  if (!manifest.ok())
    return manifest.status();
  const json::Value *cases = manifest.value().find("cases");
  if (!cases || !cases->isArray())
    return R::failure(corpusDir + "/MANIFEST.json: \"cases\" must be an array of case names");
  std::vector<std::string> names;
  for (const json::Value &c : cases->items) {
    if (!c.isString())
      return R::failure(corpusDir + "/MANIFEST.json: a case name is not a string");
    names.push_back(c.text);
  }
  return names;
}

Result<std::vector<std::string>> corpusProvenance(const std::string &corpusDir) {
  Result<json::Value> manifest = readJson(corpusDir + "/MANIFEST.json");
  if (!manifest.ok())
    return manifest.status();
  std::vector<std::string> lines;
  if (const json::Value *p = manifest.value().find("provenance"); p && p->isObject())
    for (const auto &[key, value] : p->members)
      lines.push_back(key + ": " + text(value));
  return lines;
}

Result<WitnessCase> loadCase(const std::string &corpusDir, const std::string &name) {
  using R = Result<WitnessCase>;
  const std::string path = corpusDir + "/" + name + "/launch.json";
  Result<runtime::LaunchFile> launch = runtime::readLaunchFile(path);
  if (!launch.ok())
    return launch.status();
  Result<json::Value> root = readJson(path);
  if (!root.ok())
    return root.status();
  const json::Value *witness = root.value().find("witness");
  const json::Value *expected = witness ? witness->find("expected") : nullptr;
  if (!expected || !expected->isObject() || expected->members.empty())
    return R::failure(path + ": \"witness\".\"expected\" must map output buffers to the GPU's "
                             "bytes");
  const json::Value *compare = witness->find("compare");
  WitnessCase c;
  c.name = name;
  c.launch = std::move(launch.value());
  for (const auto &[buffer, file] : expected->members) {
    if (!file.isString())
      return R::failure(path + ": expected file of '" + buffer + "' is not a string");
    Expectation e;
    e.buffer = buffer;
    e.expectedPath = corpusDir + "/" + name + "/" + file.text;
    if (const json::Value *how = compare ? compare->find(buffer) : nullptr) {
      if (const json::Value *kind = how->find("kind"); kind && kind->isString())
        e.kind = kind->text;
      if (const json::Value *bound = how->find("bound"))
        e.bound = std::strtod(bound->text.c_str(), nullptr);
      if (const json::Value *ulp = how->find("max_ulp"))
        e.maxUlp = ulp->unsignedValue().value_or(0);
      if (const json::Value *reason = how->find("reason"); reason && reason->isString())
        e.reason = reason->text;
    }
    if (e.kind != "bytes" && e.kind != "f32_abs" && e.kind != "f32_ulp")
      return R::failure(path + ": compare kind '" + e.kind + "' of '" + buffer +
                        "' is not bytes, f32_abs or f32_ulp");
    if (e.kind != "bytes" && e.reason.empty())
      return R::failure(path + ": an inexact comparison of '" + buffer + "' needs a \"reason\"");
    bool found = false;
    for (const runtime::LaunchFileArg &arg : c.launch.args)
      found |= arg.kind == runtime::LaunchFileArg::Kind::Buffer && arg.buffer == buffer &&
               !arg.outPath.empty();
    if (!found)
      return R::failure(path + ": expected output '" + buffer + "' is no \"out\" buffer");
    c.expectations.push_back(std::move(e));
  }
  return c;
}

Result<runtime::LaunchFileResult> runOnEmulator(const WitnessCase &c) {
  Result<std::vector<uint8_t>> hsaco = readFileBytes(c.launch.codeObjectPath, 256u << 20);
  if (!hsaco.ok())
    return hsaco.status();
  Result<std::vector<KernelInfo>> kernels = codeobj::readKernelInfos(hsaco.value());
  if (!kernels.ok())
    return kernels.status();
  Result<std::unique_ptr<runtime::Device>> device = runtime::openEmuDevice();
  if (!device.ok())
    return device.status();
  return runtime::runLaunchFile(*device.value(), c.launch, hsaco.value(), kernels.value());
}

Result<std::vector<uint8_t>> readExpected(const Expectation &expectation) {
  Result<arrays::NpyRawArray> npy = arrays::readNpyRaw(expectation.expectedPath);
  if (!npy.ok())
    return npy.status();
  return std::move(npy.value().bytes);
}

std::string compareOutput(const Expectation &e, const std::vector<uint8_t> &actual,
                          const std::vector<uint8_t> &expected) {
  if (actual.size() != expected.size())
    return "output '" + e.buffer + "' has " + std::to_string(actual.size()) +
           " bytes, the GPU's " + std::to_string(expected.size());
  std::string details;
  size_t mismatches = 0;
  auto note = [&](const std::string &line) {
    if (++mismatches <= 8)
      details += "\n  " + line;
  };
  if (e.kind == "bytes") {
    for (size_t i = 0; i < actual.size(); ++i)
      if (actual[i] != expected[i])
        note("byte " + std::to_string(i) + ": emulator " + std::to_string(actual[i]) + ", GPU " +
             std::to_string(expected[i]));
  } else {
    if (actual.size() % 4)
      return "output '" + e.buffer + "' is not a whole number of float32s";
    for (size_t i = 0; i < actual.size() / 4; ++i) {
      const float a = f32At(actual, i), b = f32At(expected, i);
      if (std::isnan(a) || std::isnan(b)) {
        if (std::isnan(a) != std::isnan(b))
          note("float " + std::to_string(i) + ": emulator " + std::to_string(a) + ", GPU " +
               std::to_string(b));
        continue;
      }
      const bool ok = e.kind == "f32_abs" ? std::fabs(double(a) - double(b)) <= e.bound
                                          : ulpDistance(a, b) <= e.maxUlp;
      if (!ok)
        note("float " + std::to_string(i) + ": emulator " + std::to_string(a) + ", GPU " +
             std::to_string(b));
    }
  }
  if (!mismatches)
    return "";
  return "output '" + e.buffer + "': " + std::to_string(mismatches) + " " +
         (e.kind == "bytes" ? "bytes differ" : "values outside the " + e.kind + " bound") +
         " from the GPU's" + details;
}

} // namespace mxf::witness
