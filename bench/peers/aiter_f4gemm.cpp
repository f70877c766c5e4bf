//===- aiter_f4gemm.cpp - AITER's MXFP4 GEMM code objects, counted ---------===//

#include "bench/peers/aiter_f4gemm.h"

#include "bench/mi355x_model.h"
#include "codeobj/hsaco_reader.h"
#include "runtime/emu_device.h"
#include "runtime/launch_file.h"
#include "support/file_io.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace mxf::bench {
namespace {

/// "32x128" -> {32, 128}.
bool parseTile(const std::string &tile, int &tileM, int &tileN) {
  char x = 0;
  std::istringstream in(tile);
  return bool(in >> tileM >> x >> tileN) && x == 'x' && tileM > 0 && tileN > 0 && in.eof();
}

runtime::LaunchFileArg scratch(uint64_t bytes) {
  runtime::LaunchFileArg arg;
  arg.kind = runtime::LaunchFileArg::Kind::Scratch;
  arg.bytes = bytes;
  return arg;
}

runtime::LaunchFileArg scalar(runtime::LaunchFileArg::Kind kind, uint64_t bits) {
  runtime::LaunchFileArg arg;
  arg.kind = kind;
  arg.bits = bits;
  return arg;
}

} // namespace

Result<std::vector<F4GemmRow>> readF4GemmRows(const std::string &path) {
  using R = Result<std::vector<F4GemmRow>>;
  std::ifstream in(path);
  if (!in)
    return R::failure(path + ": cannot open");
  std::vector<F4GemmRow> rows;
  std::string line;
  bool header = false;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#')
      continue;
    if (!header) {
      if (line != "M,N,K,tile,us")
        return R::failure(path + ":" + std::to_string(number) +
                          ": expected the header M,N,K,tile,us");
      header = true;
      continue;
    }
    F4GemmRow row;
    std::istringstream fields(line);
    std::string m, n, k, us;
    int tileM = 0, tileN = 0;
    if (!std::getline(fields, m, ',') || !std::getline(fields, n, ',') ||
        !std::getline(fields, k, ',') || !std::getline(fields, row.tile, ',') ||
        !std::getline(fields, us) || !parseTile(row.tile, tileM, tileN))
      return R::failure(path + ":" + std::to_string(number) + ": expected M,N,K,tile,us");
    try {
      row.m = std::stoi(m), row.n = std::stoi(n), row.k = std::stoi(k);
      row.publishedUs = std::stod(us);
    } catch (const std::exception &) {
      return R::failure(path + ":" + std::to_string(number) + ": a field is not a number");
    }
    if (row.m <= 0 || row.n % tileN != 0 || row.k % 256 != 0 || row.publishedUs <= 0)
      return R::failure(path + ":" + std::to_string(number) +
                        ": the kernel needs M > 0, N a multiple of the tile's N and K of 256");
    rows.push_back(row);
  }
  if (rows.empty())
    return R::failure(path + ": no rows");
  return rows;
}

Result<CountedF4Gemm> countF4Gemm(const F4GemmRow &row, const std::string &codeObjects,
                                  const emu::TimelineCosts &costs) {
  using R = Result<CountedF4Gemm>;
  int tileM = 0, tileN = 0;
  if (!parseTile(row.tile, tileM, tileN))
    return R::failure("tile '" + row.tile + "' is not <M>x<N>");
  runtime::LaunchFile file;
  file.path = "aiter f4gemm " + row.tile;
  file.codeObjectPath = codeObjects + "/f4gemm_bf16_per1x32Fp4_BpreShuffle_" + row.tile + ".co";
  Result<std::vector<uint8_t>> hsaco = readFileBytes(file.codeObjectPath, 1 << 20);
  if (!hsaco.ok())
    return hsaco.status();
  Result<std::vector<KernelInfo>> kernels = codeobj::readKernelInfos(hsaco.value());
  if (!kernels.ok())
    return R::failure(file.codeObjectPath + ": " + kernels.error());
  if (kernels.value().size() != 1)
    return R::failure(file.codeObjectPath + ": expected one kernel");

  const uint64_t m = uint64_t(row.m), n = uint64_t(row.n), k = uint64_t(row.k);
  const uint64_t paddedM = (m + 31) / 32 * 32; // AITER pads D and the A scales to 32 rows
  using Kind = runtime::LaunchFileArg::Kind;
  const std::vector<std::pair<std::string, runtime::LaunchFileArg>> byName = {
      {"D", scratch(paddedM * n * 2)},
      {"C", scratch(0)}, // no bias: a null pointer
      {"A", scratch(paddedM * k / 2)},
      {"B", scratch(n * k / 2)},
      {"ScaleA", scratch(paddedM * k / 32)},
      {"ScaleB", scratch(n * k / 32)},
      {"alpha", scalar(Kind::F32, 0x3f800000)}, // 1.0f
      {"beta", scalar(Kind::F32, 0)},
      {"strideC0", scalar(Kind::U32, n)}, // AITER sets out->stride(0) here
      {"strideA0", scalar(Kind::U32, k)}, // bytes * 2 (fp4x2)
      {"strideB0", scalar(Kind::U32, k)},
      {"Mdim", scalar(Kind::U32, m)},
      {"Ndim", scalar(Kind::U32, n)},
      {"Kdim", scalar(Kind::U32, k)},
      {"strideScaleA0", scalar(Kind::U32, k / 32)},
      {"strideScaleB0", scalar(Kind::U32, k / 32)},
      // Left 0 by AITER's gemm_a4w4_asm (or unset and unread): splitK 0.
      {"strideD0", scalar(Kind::U32, 0)},
      {"strideD1", scalar(Kind::U32, 0)},
      {"strideC1", scalar(Kind::U32, 0)},
      {"strideA1", scalar(Kind::U32, 0)},
      {"strideB1", scalar(Kind::U32, 0)},
      {"strideScaleA1", scalar(Kind::U32, 0)},
      {"strideScaleB1", scalar(Kind::U32, 0)},
      {"log2_k_split", scalar(Kind::U32, 0)},
  };
  for (const KernelArgInfo &arg : kernels.value().front().args) {
    if (arg.valueKind.rfind("hidden_", 0) == 0)
      continue;
    if (arg.name == "pad") { // the padding the kernarg layout declares
      file.args.push_back(scalar(arg.size == 8 ? Kind::U64 : Kind::U32, 0));
      continue;
    }
    auto given = std::find_if(byName.begin(), byName.end(),
                              [&](const auto &entry) { return entry.first == arg.name; });
    if (given == byName.end())
      return R::failure(file.codeObjectPath + ": kernel argument '" + arg.name +
                        "' is not one AITER's gemm_a4w4_asm sets");
    file.args.push_back(given->second);
  }
  file.grid = {uint32_t(n / uint64_t(tileN)), uint32_t((m + tileM - 1) / tileM), 1};
  file.block = {256, 1, 1};

  runtime::EmuDeviceOptions options;
  options.timeline = costs;
  options.countsOnly = true;
  const uint32_t lastX = file.grid.x - 1, lastY = file.grid.y - 1;
  options.runsWorkgroup = [=](const std::array<uint32_t, 3> &id) {
    return (id[0] == 0 && id[1] == 0) || (id[0] == lastX && id[1] == lastY);
  };
  Result<std::unique_ptr<runtime::Device>> device = runtime::openEmuDevice(options);
  if (!device.ok())
    return device.status();
  Result<runtime::LaunchFileResult> result =
      runtime::runLaunchFile(*device.value(), file, hsaco.value(), kernels.value());
  if (!result.ok())
    return result.status();

  CountedF4Gemm counted;
  counted.workgroups = uint64_t(file.grid.x) * file.grid.y;
  counted.workgroupsRun = counted.workgroups == 1 ? 1 : 2;
  counted.report =
      scaledToGrid(result.value().report, counted.workgroupsRun, counted.workgroups);
  counted.requiredBytes = m * k / 2 + n * k / 2 + m * k / 32 + n * k / 32 + m * n * 2;
  return counted;
}

} // namespace mxf::bench
