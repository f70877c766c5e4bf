//===- safetensors_parse_bench.cpp - Header and index parse time by size ---===//
//
// Issue 34: safetensors headers and index files parsed in quadratic time
// (200,000 keys, 11.8 MB: 150 s; the 100 MB limit: hours). This prints how
// long a header and an index take at growing key counts, up to the 100 MB
// header limit, so that linear time shows as a constant time per key.
//
//   safetensors_parse_bench [--repeats N] [--max-keys N]
//
// Rows:
//  - safetensors: SafetensorsFile::fromBytes (validate and index the
//    header) plus find() of every tensor, over a header in memory with
//    names like a checkpoint's ("model.layers.<i>.mlp.experts.<j>...");
//  - limit: the same at the 100 MB header limit with 940-byte names that
//    differ only in their last digits (every pairwise comparison reads all
//    of both: the worst case for the old reader);
//  - index: json::parse of a model.safetensors.index.json weight_map with
//    as many entries, plus a hash lookup of each (quantize's index check).
//
// Median of --repeats runs (default 3), in seconds. No timing is asserted:
// tests/unit/weights/test_safetensors_limits.cpp only bounds the limit row.
//
//===----------------------------------------------------------------------===//

#include "bench/bench_support.h"
#include "support/json.h"
#include "weights/safetensors.h"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

using namespace mxf;
using namespace mxf::weights;

std::string checkpointName(size_t i) {
  // 64 layers of experts: long shared prefixes, as in a real MoE checkpoint.
  return fmt::format("model.layers.{}.mlp.experts.{}.down_proj.weight", i % 64, i / 64);
}

std::string worstCaseName(size_t i) {
  std::string digits = std::to_string(i);
  return std::string(940 - digits.size(), 'w') + digits;
}

/// A header of `count` empty U8 tensors (the file is its header), as bytes.
std::vector<uint8_t> headerFile(size_t count, std::string (*name)(size_t)) {
  std::vector<PlannedTensor> tensors;
  tensors.reserve(count);
  for (size_t i = 0; i < count; ++i)
    tensors.push_back({name(i), "U8", {0}});
  Result<SafetensorsPlan> plan = planSafetensors(tensors, {{"format", "pt"}});
  if (!plan.ok()) {
    fmt::print(stderr, "error: {}\n", plan.error());
    std::exit(1);
  }
  return std::vector<uint8_t>(plan.value().header.begin(), plan.value().header.end());
}

double timeHeader(const std::vector<uint8_t> &bytes, size_t count) {
  const auto start = bench::Clock::now();
  Result<SafetensorsFile> file = SafetensorsFile::fromBytes(bytes.data(), bytes.size(), "bench");
  if (!file.ok() || file.value().tensors().size() != count) {
    fmt::print(stderr, "error: {}\n", file.ok() ? "wrong tensor count" : file.error());
    std::exit(1);
  }
  for (const TensorInfo &t : file.value().tensors())
    if (file.value().find(t.name) != &t)
      std::exit(1);
  return bench::millisSince(start) / 1e3;
}

std::string indexText(size_t count) {
  std::string text = "{\"metadata\":{\"total_size\":1},\"weight_map\":{";
  for (size_t i = 0; i < count; ++i)
    text += (i ? "," : "") + json::quote(checkpointName(i)) + ":" +
            json::quote(fmt::format("model-{:05}-of-00064.safetensors", i % 64 + 1));
  return text + "}}";
}

double timeIndex(const std::string &text, size_t count) {
  const auto start = bench::Clock::now();
  Result<json::Value> root = json::parse(text);
  const json::Value *map = root.ok() ? root.value().find("weight_map") : nullptr;
  if (!map || map->members.size() != count) {
    fmt::print(stderr, "error: {}\n", root.ok() ? "no weight_map" : root.error());
    std::exit(1);
  }
  std::unordered_map<std::string_view, std::string_view> shardOf;
  for (const auto &[name, file] : map->members)
    shardOf.emplace(name, file.text);
  for (const auto &[name, file] : map->members)
    if (shardOf.at(name) != file.text)
      std::exit(1);
  return bench::millisSince(start) / 1e3;
}

} // namespace

int main(int argc, char **argv) {
  int repeats = 3;
  size_t maxKeys = 2'000'000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--repeats") == 0)
      repeats = std::max(1, std::atoi(argv[i + 1]));
    else if (std::strcmp(argv[i], "--max-keys") == 0)
      maxKeys = size_t(std::strtoull(argv[i + 1], nullptr, 10));
  }
  fmt::print("{:<12} {:>10} {:>10} {:>10} {:>12}\n", "input", "keys", "header MB", "median s",
             "us per key");
  auto row = [&](const char *kind, size_t keys, size_t bytes, auto &&once) {
    std::vector<double> seconds;
    for (int r = 0; r < repeats; ++r)
      seconds.push_back(once());
    const double median = bench::median(seconds);
    fmt::print("{:<12} {:>10} {:>10.1f} {:>10.3f} {:>12.3f}\n", kind, keys, double(bytes) / 1e6,
               median, median * 1e6 / double(keys));
  };
  for (size_t keys : {10'000, 50'000, 200'000, 500'000, 900'000}) {
    if (keys > maxKeys)
      break;
    std::vector<uint8_t> header = headerFile(keys, checkpointName);
    if (header.size() - 8 > kMaxHeaderBytes)
      break;
    row("safetensors", keys, header.size() - 8, [&] { return timeHeader(header, keys); });
  }
  {
    const size_t keys = (kMaxHeaderBytes - 64) / 995; // 940-byte names + 52 bytes of entry
    std::vector<uint8_t> header = headerFile(keys, worstCaseName);
    row("limit", keys, header.size() - 8, [&] { return timeHeader(header, keys); });
  }
  for (size_t keys : {10'000, 50'000, 200'000, 1'000'000}) {
    if (keys > maxKeys)
      break;
    const std::string text = indexText(keys);
    row("index", keys, text.size(), [&] { return timeIndex(text, keys); });
  }
  return 0;
}
