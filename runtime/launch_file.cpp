//===- launch_file.cpp - Any gfx950 code object, launched from a JSON file ===//

#include "runtime/launch_file.h"

#include "arrays/npy.h"
#include "support/file_io.h"
#include "support/json.h"
#include "support/printable.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>

namespace mxf::runtime {

namespace {

using json::Value;

constexpr uint64_t kMaxLaunchFileBytes = 16ull << 20;
/// A buffer larger than this is a typo, not a kernel's operand: the emu
/// device would try to hold it in host memory.
constexpr uint64_t kMaxBufferBytes = 16ull << 30;

std::string resolve(const std::string &jsonPath, const std::string &path) {
  if (path.empty() || path[0] == '/')
    return path;
  const size_t slash = jsonPath.rfind('/');
  return slash == std::string::npos ? path : jsonPath.substr(0, slash + 1) + path;
}

std::optional<int64_t> signedValue(const Value &v) {
  if (v.kind != Value::Kind::Number || v.text.empty())
    return std::nullopt;
  const bool negative = v.text[0] == '-';
  Value magnitude = v;
  if (negative)
    magnitude.text = v.text.substr(1);
  std::optional<uint64_t> u = magnitude.unsignedValue();
  if (!u)
    return std::nullopt;
  if (!negative)
    return *u <= uint64_t(std::numeric_limits<int64_t>::max()) ? std::optional<int64_t>(int64_t(*u))
                                                              : std::nullopt;
  if (*u > uint64_t(std::numeric_limits<int64_t>::max()) + 1)
    return std::nullopt;
  return int64_t(0 - *u);
}

/// The scalar keys and their kinds, in the order messages list them.
struct ScalarKey {
  const char *key;
  LaunchFileArg::Kind kind;
};
constexpr ScalarKey kScalarKeys[] = {{"i32", LaunchFileArg::Kind::I32},
                                     {"u32", LaunchFileArg::Kind::U32},
                                     {"i64", LaunchFileArg::Kind::I64},
                                     {"u64", LaunchFileArg::Kind::U64},
                                     {"f32", LaunchFileArg::Kind::F32}};

/// The bit pattern of scalar `v` as `kind`, or a message saying why not.
Result<uint64_t> scalarBits(LaunchFileArg::Kind kind, const Value &v, const std::string &key) {
  using R = Result<uint64_t>;
  const std::string text = v.kind == Value::Kind::Number ? v.text : "(" + std::string(json::kindName(v.kind)) + ")";
  auto outOfRange = [&](const char *range) {
    return R::failure("\"" + key + "\": " + printable(text.substr(0, 40)) + " is not " + range);
  };
  switch (kind) {
  case LaunchFileArg::Kind::I32: {
    std::optional<int64_t> s = signedValue(v);
    if (!s || *s < std::numeric_limits<int32_t>::min() || *s > std::numeric_limits<int32_t>::max())
      return outOfRange("an integer in [-2^31, 2^31)");
    return uint64_t(uint32_t(int32_t(*s)));
  }
  case LaunchFileArg::Kind::U32: {
    std::optional<uint64_t> u = v.unsignedValue();
    if (!u || *u > std::numeric_limits<uint32_t>::max())
      return outOfRange("an integer in [0, 2^32)");
    return *u;
  }
  case LaunchFileArg::Kind::I64: {
    std::optional<int64_t> s = signedValue(v);
    if (!s)
      return outOfRange("an integer in [-2^63, 2^63)");
    return uint64_t(*s);
  }
  case LaunchFileArg::Kind::U64: {
    std::optional<uint64_t> u = v.unsignedValue();
    if (!u)
      return outOfRange("an integer in [0, 2^64)");
    return *u;
  }
  case LaunchFileArg::Kind::F32: {
    if (v.kind != Value::Kind::Number)
      return outOfRange("a number");
    errno = 0;
    char *end = nullptr;
    const double d = std::strtod(v.text.c_str(), &end);
    if (errno == ERANGE || end != v.text.c_str() + v.text.size() || !std::isfinite(d) ||
        std::fabs(d) > double(std::numeric_limits<float>::max()))
      return outOfRange("a finite float32");
    const float f = float(d);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return uint64_t(bits);
  }
  default:
    return R::failure("not a scalar");
  }
}

Result<Dim3> parseDim3(const Value &root, const char *key, const std::string &where) {
  using R = Result<Dim3>;
  const Value *v = root.find(key);
  if (!v)
    return R::failure(where + "missing \"" + key + "\" (three positive integers [x, y, z])");
  if (!v->isArray() || v->items.empty() || v->items.size() > 3)
    return R::failure(where + "\"" + key + "\" must be an array of 1 to 3 positive integers");
  uint32_t d[3] = {1, 1, 1};
  for (size_t i = 0; i < v->items.size(); ++i) {
    std::optional<uint64_t> u = v->items[i].unsignedValue();
    if (!u || *u == 0 || *u > std::numeric_limits<uint32_t>::max())
      return R::failure(where + "\"" + key + "\"[" + std::to_string(i) +
                        "] must be an integer in [1, 2^32)");
    d[i] = uint32_t(*u);
  }
  return Dim3{d[0], d[1], d[2]};
}

Result<LaunchFileArg> parseArg(const Value &entry, size_t index, const std::string &jsonPath,
                               const std::string &where) {
  using R = Result<LaunchFileArg>;
  const std::string at = where + "\"args\"[" + std::to_string(index) + "]: ";
  if (!entry.isObject())
    return R::failure(at + "must be an object, not " + json::kindName(entry.kind));
  LaunchFileArg arg;
  // A scalar: exactly one of the scalar keys.
  const ScalarKey *scalar = nullptr;
  for (const ScalarKey &k : kScalarKeys) {
    if (!entry.find(k.key))
      continue;
    if (scalar)
      return R::failure(at + "has both \"" + scalar->key + "\" and \"" + k.key + "\"");
    scalar = &k;
  }
  const Value *buffer = entry.find("buffer");
  if (scalar) {
    if (buffer)
      return R::failure(at + "has both \"buffer\" and \"" + scalar->key + "\"");
    Result<uint64_t> bits = scalarBits(scalar->kind, *entry.find(scalar->key), scalar->key);
    if (!bits.ok())
      return R::failure(at + bits.error());
    arg.kind = scalar->kind;
    arg.bits = bits.value();
    return arg;
  }
  if (!buffer)
    return R::failure(at + "names no \"buffer\" and no scalar (i32, u32, i64, u64, f32)");
  const Value *in = entry.find("in"), *out = entry.find("out"), *bytes = entry.find("bytes");
  if (bytes) {
    std::optional<uint64_t> n = bytes->unsignedValue();
    if (!n || *n > kMaxBufferBytes)
      return R::failure(at + "\"bytes\" must be an integer in [0, " +
                        std::to_string(kMaxBufferBytes) + "]");
    arg.bytes = *n;
    arg.bytesGiven = true;
  }
  if (buffer->kind == Value::Kind::Null) {
    if (in || out)
      return R::failure(at + "a scratch buffer (\"buffer\": null) has no \"in\" or \"out\"");
    if (!bytes)
      return R::failure(at + "a scratch buffer (\"buffer\": null) needs \"bytes\" (0: a null "
                             "pointer)");
    arg.kind = LaunchFileArg::Kind::Scratch;
    return arg;
  }
  if (!buffer->isString() || buffer->text.empty())
    return R::failure(at + "\"buffer\" must be a non-empty name or null");
  arg.kind = LaunchFileArg::Kind::Buffer;
  arg.buffer = buffer->text;
  for (auto [value, key, slot] : {std::tuple{in, "in", &arg.inPath}, {out, "out", &arg.outPath}}) {
    if (!value)
      continue;
    if (!value->isString() || value->text.empty())
      return R::failure(at + "\"" + key + "\" must be a non-empty path");
    *slot = resolve(jsonPath, value->text);
  }
  if (!in && !out)
    return R::failure(at + "buffer '" + printable(arg.buffer) + "' has neither \"in\" nor \"out\"");
  if (!in && !bytes)
    return R::failure(at + "output buffer '" + printable(arg.buffer) +
                      "' needs \"bytes\" (its size)");
  return arg;
}

bool isHidden(const KernelArgInfo &arg) { return arg.valueKind.rfind("hidden_", 0) == 0; }

const char *kindName(LaunchFileArg::Kind kind) {
  switch (kind) {
  case LaunchFileArg::Kind::Buffer: return "buffer";
  case LaunchFileArg::Kind::Scratch: return "scratch buffer";
  case LaunchFileArg::Kind::I32: return "i32";
  case LaunchFileArg::Kind::U32: return "u32";
  case LaunchFileArg::Kind::I64: return "i64";
  case LaunchFileArg::Kind::U64: return "u64";
  case LaunchFileArg::Kind::F32: return "f32";
  }
  return "?";
}

} // namespace

std::string LaunchFileArg::describe(size_t index) const {
  std::string s = "argument " + std::to_string(index) + " (" + kindName(kind);
  if (kind == Kind::Buffer)
    s += " '" + printable(buffer) + "'";
  return s + ")";
}

uint32_t LaunchFileArg::kernargBytes() const {
  switch (kind) {
  case Kind::I32:
  case Kind::U32:
  case Kind::F32: return 4;
  default: return 8;
  }
}

std::vector<std::string> LaunchFile::inputPaths() const {
  std::vector<std::string> paths = {path, codeObjectPath};
  for (const LaunchFileArg &arg : args)
    if (!arg.inPath.empty())
      paths.push_back(arg.inPath);
  return paths;
}

Result<LaunchFile> parseLaunchFile(std::string_view text, const std::string &path) {
  using R = Result<LaunchFile>;
  const std::string where = path + ": ";
  Result<Value> parsed = json::parse(text);
  if (!parsed.ok())
    return R::failure(where + "not valid JSON: " + parsed.error());
  const Value &root = parsed.value();
  if (!root.isObject())
    return R::failure(where + "must hold a JSON object, not " + json::kindName(root.kind));
  LaunchFile file;
  file.path = path;
  const Value *code = root.find("code_object");
  if (!code || !code->isString() || code->text.empty())
    return R::failure(where + "\"code_object\" must name the code object (.hsaco) to launch");
  file.codeObjectPath = resolve(path, code->text);
  if (const Value *kernel = root.find("kernel"); kernel && kernel->kind != Value::Kind::Null) {
    if (!kernel->isString() || kernel->text.empty())
      return R::failure(where + "\"kernel\" must be a kernel name");
    file.kernel = kernel->text;
  }
  Result<Dim3> grid = parseDim3(root, "grid", where);
  if (!grid.ok())
    return grid.status();
  Result<Dim3> block = parseDim3(root, "block", where);
  if (!block.ok())
    return block.status();
  file.grid = grid.value();
  file.block = block.value();
  if (const Value *lds = root.find("dynamic_lds")) {
    std::optional<uint64_t> n = lds->unsignedValue();
    if (!n || *n > kGfx950LdsBytes)
      return R::failure(where + "\"dynamic_lds\" must be an integer in [0, " +
                        std::to_string(kGfx950LdsBytes) + "]");
    file.dynamicLds = uint32_t(*n);
  }
  const Value *args = root.find("args");
  if (!args || !args->isArray())
    return R::failure(where + "\"args\" must be the array of the kernel's explicit arguments");
  for (size_t i = 0; i < args->items.size(); ++i) {
    Result<LaunchFileArg> arg = parseArg(args->items[i], i, path, where);
    if (!arg.ok())
      return arg.status();
    for (size_t j = 0; j < file.args.size(); ++j)
      if (arg.value().kind == LaunchFileArg::Kind::Buffer &&
          file.args[j].kind == LaunchFileArg::Kind::Buffer &&
          file.args[j].buffer == arg.value().buffer)
        return R::failure(where + arg.value().describe(i) + " reuses the name of " +
                          file.args[j].describe(j) + "; every buffer needs its own name");
    file.args.push_back(std::move(arg.value()));
  }
  return file;
}

Result<LaunchFile> readLaunchFile(const std::string &path) {
  Result<std::vector<uint8_t>> bytes = readFileBytes(path, kMaxLaunchFileBytes);
  if (!bytes.ok())
    return bytes.status();
  const std::vector<uint8_t> &data = bytes.value();
  return parseLaunchFile(std::string_view(reinterpret_cast<const char *>(data.data()), data.size()),
                         path);
}

Result<KernelInfo> selectKernel(const LaunchFile &file, const std::vector<KernelInfo> &kernels) {
  using R = Result<KernelInfo>;
  std::string names;
  for (const KernelInfo &k : kernels)
    names += (names.empty() ? "" : ", ") + k.name;
  if (kernels.empty())
    return R::failure(file.codeObjectPath + ": the code object holds no kernel");
  if (file.kernel.empty()) {
    if (kernels.size() == 1)
      return kernels[0];
    return R::failure(file.path + ": \"kernel\" must say which kernel to launch; " +
                      file.codeObjectPath + " holds " + std::to_string(kernels.size()) + ": " +
                      names);
  }
  for (const KernelInfo &k : kernels)
    if (k.name == file.kernel || k.name + ".kd" == file.kernel)
      return k;
  return R::failure(file.path + ": no kernel named '" + printable(file.kernel) + "' in " +
                    file.codeObjectPath + " (it holds: " + names + ")");
}

Status checkLaunchArgs(const LaunchFile &file, const KernelInfo &kernel) {
  std::vector<const KernelArgInfo *> explicitArgs;
  for (const KernelArgInfo &a : kernel.args)
    if (!isHidden(a))
      explicitArgs.push_back(&a);
  const std::string where = file.path + ": kernel '" + kernel.name + "' ";
  auto metadataName = [&](size_t i) {
    const KernelArgInfo &a = *explicitArgs[i];
    return "'" + (a.name.empty() ? std::string("(unnamed)") : a.name) + "' (" + a.valueKind + ", " +
           std::to_string(a.size) + " bytes at offset " + std::to_string(a.offset) + ")";
  };
  if (file.args.size() < explicitArgs.size())
    return Status::failure(where + "takes " + std::to_string(explicitArgs.size()) +
                           " explicit arguments but the file gives " +
                           std::to_string(file.args.size()) + ": argument " +
                           std::to_string(file.args.size()) + " " +
                           metadataName(file.args.size()) + " is missing");
  if (file.args.size() > explicitArgs.size())
    return Status::failure(where + "takes " + std::to_string(explicitArgs.size()) +
                           " explicit arguments but the file gives " +
                           std::to_string(file.args.size()) + " (" +
                           file.args[explicitArgs.size()].describe(explicitArgs.size()) +
                           " is one too many)");
  for (size_t i = 0; i < explicitArgs.size(); ++i) {
    const KernelArgInfo &meta = *explicitArgs[i];
    const LaunchFileArg &arg = file.args[i];
    const bool pointer = arg.kind == LaunchFileArg::Kind::Buffer ||
                         arg.kind == LaunchFileArg::Kind::Scratch;
    if (pointer != (meta.valueKind == "global_buffer"))
      return Status::failure(where + "argument " + std::to_string(i) + " is " + metadataName(i) +
                             " but the file gives " + arg.describe(i) + " (" +
                             (pointer ? "a pointer needs a global_buffer" : "a scalar needs a by_value") +
                             ")");
    if (meta.size != arg.kernargBytes())
      return Status::failure(where + "argument " + std::to_string(i) + " is " + metadataName(i) +
                             " but the file gives " + arg.describe(i) + ", " +
                             std::to_string(arg.kernargBytes()) + " bytes");
  }
  return Status::success();
}

Result<LaunchFileResult> runLaunchFile(Device &device, const LaunchFile &file,
                                       const std::vector<uint8_t> &hsaco,
                                       const std::vector<KernelInfo> &kernels) {
  using R = Result<LaunchFileResult>;
  Result<KernelInfo> kernel = selectKernel(file, kernels);
  if (!kernel.ok())
    return kernel.status();
  if (Status s = checkLaunchArgs(file, kernel.value()); !s.ok())
    return s;
  if (Status s = checkLaunchGeometry(kernel.value(), {file.grid, file.block, file.dynamicLds});
      !s.ok())
    return R::failure(file.path + ": " + s.message());

  // Inputs first: a missing or malformed array is an error before any
  // device memory is taken.
  std::vector<std::vector<uint8_t>> contents(file.args.size());
  for (size_t i = 0; i < file.args.size(); ++i) {
    const LaunchFileArg &arg = file.args[i];
    if (arg.kind == LaunchFileArg::Kind::Scratch) {
      contents[i].assign(arg.bytes, kLaunchFilePoison);
      continue;
    }
    if (arg.kind != LaunchFileArg::Kind::Buffer)
      continue;
    if (arg.inPath.empty()) {
      contents[i].assign(arg.bytes, kLaunchFilePoison);
      continue;
    }
    Result<arrays::NpyRawArray> array = arrays::readNpyRaw(arg.inPath);
    if (!array.ok())
      return R::failure(file.path + ": " + arg.describe(i) + ": " + array.error());
    if (arg.bytesGiven && arg.bytes != array.value().bytes.size())
      return R::failure(file.path + ": " + arg.describe(i) + " says \"bytes\": " +
                        std::to_string(arg.bytes) + " but " + arg.inPath + " holds " +
                        std::to_string(array.value().bytes.size()));
    contents[i] = std::move(array.value().bytes);
  }

  Result<Module> module = device.loadCodeObject(hsaco, kernels);
  if (!module.ok())
    return R::failure(file.codeObjectPath + ": " + module.error());
  Result<Kernel> handle = device.getKernel(module.value(), kernel.value().name);
  if (!handle.ok())
    return handle.status();

  std::vector<ScopedBuffer> buffers(file.args.size());
  KernelArgs args;
  for (size_t i = 0; i < file.args.size(); ++i) {
    const LaunchFileArg &arg = file.args[i];
    if (arg.kind != LaunchFileArg::Kind::Buffer && arg.kind != LaunchFileArg::Kind::Scratch) {
      const uint64_t bits = arg.bits;
      if (arg.kernargBytes() == 4)
        args.value(uint32_t(bits));
      else
        args.value(bits);
      continue;
    }
    if (contents[i].empty()) { // an empty buffer: a null pointer, as Triton passes one
      args.add(KernelArg::nullPointer());
      continue;
    }
    Result<ScopedBuffer> buffer = ScopedBuffer::allocate(device, contents[i].size());
    if (!buffer.ok())
      return R::failure(file.path + ": " + arg.describe(i) + ": " + buffer.error());
    buffers[i] = std::move(buffer.value());
    if (Status s = device.copyIn(buffers[i], 0, contents[i].data(), contents[i].size()); !s.ok())
      return R::failure(file.path + ": " + arg.describe(i) + ": " + s.message());
    args.buffer(buffers[i]);
  }

  LaunchFileResult result;
  result.kernel = kernel.value().name;
  for (const std::vector<uint8_t> &bytes : contents)
    result.bufferBytes += bytes.size();
  LaunchConfig config;
  config.grid = file.grid;
  config.workgroup = file.block;
  config.dynamicLdsBytes = file.dynamicLds;
  if (Status s = device.launch(handle.value(), config, args, &result.report); !s.ok())
    return R::failure(file.path + ": kernel '" + result.kernel + "': " + s.message());
  if (Status s = device.synchronize(); !s.ok())
    return s;
  for (size_t i = 0; i < file.args.size(); ++i) {
    const LaunchFileArg &arg = file.args[i];
    if (arg.kind != LaunchFileArg::Kind::Buffer || arg.outPath.empty())
      continue;
    LaunchFileOutput out{arg.buffer, arg.outPath, std::vector<uint8_t>(contents[i].size())};
    if (!out.bytes.empty())
      if (Status s = device.copyOut(buffers[i], 0, out.bytes.data(), out.bytes.size()); !s.ok())
        return R::failure(file.path + ": " + arg.describe(i) + ": " + s.message());
    result.outputs.push_back(std::move(out));
  }
  return result;
}

} // namespace mxf::runtime
