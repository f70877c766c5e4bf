//===- spec_matrix.h - The rotate_quant specs every kernel test covers -*- C++ -*-===//
//
// One definition of "the matrix" (issue 3): every RS x rotation x scale rule
// x layout combination, each at three (K, M bucket) points spread over the
// supported range, with the intermediate precision alternating; then the
// long K of large models up to 65536 and K that are not multiples of 256
// (issue 11). The compile
// test and the emulator end-to-end suite both walk this list.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TESTS_SUPPORT_SPEC_MATRIX_H
#define MXFORGE_TESTS_SUPPORT_SPEC_MATRIX_H

#include "spec/kernel_spec.h"

#include <algorithm>
#include <cassert>
#include <ostream>
#include <utility>
#include <vector>

namespace mxf {
/// gtest prints parameters with PrintTo (found by ADL): the canonical spec
/// instead of the struct's bytes.
inline void PrintTo(const KernelSpec &spec, std::ostream *os) { *os << printSpec(spec); }
} // namespace mxf

namespace mxf::testing {

/// No rotation, then every rotation kind at every RS: the 13 rotations both
/// matrices walk.
struct MatrixRotation {
  int rs;
  RotationKind kind;
};
inline std::vector<MatrixRotation> matrixRotations() {
  std::vector<MatrixRotation> rotations{{0, RotationKind::None}};
  for (int rs : {32, 64, 128, 256})
    for (RotationKind kind :
         {RotationKind::Hadamard, RotationKind::Learned, RotationKind::LearnedPerBlock})
      rotations.push_back({rs, kind});
  return rotations;
}

inline std::vector<KernelSpec> rotateQuantSpecMatrix() {
  // (K, M bucket) points: the model shapes of seeds 000/003 (2048, 4096,
  // 5120, 8192), the extremes of K, and every bucket. Large K goes with
  // small M so that emulating the whole matrix stays quick.
  const std::pair<int, int> shapes[] = {
      {4096, 16}, {256, 1},   {2048, 64}, {5120, 4},   {8192, 8},  {16384, 1},
      {4096, 32}, {1024, 128}, {512, 256}, {2048, 2},  {8192, 1},  {4096, 16},
      {5120, 16}, {2048, 8},  {4096, 4},  {1024, 32}, {256, 256}, {16384, 2},
  };
  const ScaleRule rules[] = {ScaleRule::Floor, ScaleRule::Even, ScaleRule::Rceil,
                             ScaleRule::Ceil};
  const std::vector<MatrixRotation> rotations = matrixRotations();

  std::vector<KernelSpec> specs;
  size_t next = 0;
  for (const MatrixRotation &rotation : rotations)
    for (ScaleRule rule : rules)
      for (ScaleLayout layout : {ScaleLayout::Plain, ScaleLayout::A4W4Shuffle})
        for (int point = 0; point < 3; ++point, ++next) {
          KernelSpec spec;
          spec.op = KernelOp::RotateQuant;
          auto [k, m] = shapes[next % std::size(shapes)];
          spec.K = k;
          spec.M = m;
          spec.RS = rotation.rs;
          spec.rot = rotation.kind;
          spec.scale = rule;
          spec.layout = layout;
          spec.inter = next % 2 ? Intermediate::Bf16 : Intermediate::F32;
          assert(validateSpec(spec).ok());
          specs.push_back(spec);
        }
  // The two rules that exist for bit-compatibility with other stacks, once
  // each per rotation size.
  for (const MatrixRotation &rotation : rotations)
    if (rotation.kind == RotationKind::Hadamard || rotation.rs == 0)
      for (ScaleRule rule : {ScaleRule::RceilRecip, ScaleRule::Even126}) {
        KernelSpec spec;
        spec.K = 4096;
        spec.M = 16;
        spec.RS = rotation.rs;
        spec.rot = rotation.kind;
        spec.scale = rule;
        specs.push_back(spec);
      }
  // The long K of large models' down projections (DeepSeek-V3's dense MLP
  // 18432, Qwen3-32B 25600, Llama-70B 28672) and the largest K, for every
  // rotation size, at one row; the rotation kind and layout rotate.
  const RotationKind kinds[] = {RotationKind::Hadamard, RotationKind::Learned,
                                RotationKind::LearnedPerBlock};
  size_t turn = 0;
  for (int k : {18432, 25600, 28672, 65536})
    for (int rs : {0, 32, 64, 128, 256}) {
      KernelSpec spec;
      spec.K = k;
      spec.M = 1;
      spec.RS = rs;
      spec.rot = rs == 0 ? RotationKind::None : kinds[turn % 3];
      spec.scale = rules[turn % std::size(rules)];
      spec.layout = turn % 2 ? ScaleLayout::A4W4Shuffle : ScaleLayout::Plain;
      ++turn;
      assert(validateSpec(spec).ok());
      specs.push_back(spec);
    }
  // K that is not a multiple of 256: an odd number of scale blocks without
  // rotation, shuffled scale rows with padding columns (K/32 not a
  // multiple of 8), and rotation blocks that do not fill 256 channels.
  const struct {
    int k, rs;
  } odd[] = {{96, 0}, {96, 32}, {160, 32}, {4160, 0}, {2080, 32}, {320, 64},
             {4160, 64}, {640, 128}, {1152, 128}, {1280, 256}, {2304, 256}};
  for (const auto &[k, rs] : odd)
    for (ScaleLayout layout : {ScaleLayout::Plain, ScaleLayout::A4W4Shuffle}) {
      KernelSpec spec;
      spec.K = k;
      spec.M = turn % 3 == 0 ? 4 : turn % 3 == 1 ? 8 : 2;
      spec.RS = rs;
      spec.rot = rs == 0 ? RotationKind::None : kinds[turn % 3];
      spec.scale = rules[turn % std::size(rules)];
      spec.layout = layout;
      spec.inter = turn % 2 ? Intermediate::Bf16 : Intermediate::F32;
      ++turn;
      assert(validateSpec(spec).ok());
      specs.push_back(spec);
    }
  // MXFP6 and MXFP8 activations (E2M3, E3M2: dense 6-bit codes; E4M3, E5M2:
  // a byte each): every rotation once per format, the rule, layout, shape
  // and intermediate rotating.
  for (ElemFormat format : {ElemFormat::E2M3, ElemFormat::E3M2, ElemFormat::E4M3, ElemFormat::E5M2})
    for (const MatrixRotation &rotation : rotations) {
      KernelSpec spec;
      spec.K = shapes[turn % std::size(shapes)].first;
      spec.M = shapes[turn % std::size(shapes)].second;
      spec.RS = rotation.rs;
      spec.rot = rotation.kind;
      spec.fmt = format;
      spec.scale = rules[turn % std::size(rules)];
      spec.layout = turn % 2 ? ScaleLayout::A4W4Shuffle : ScaleLayout::Plain;
      spec.inter = (turn / 2) % 2 ? Intermediate::Bf16 : Intermediate::F32;
      ++turn;
      assert(validateSpec(spec).ok());
      specs.push_back(spec);
    }
  // The f32 butterfly at RS=32 (issue 18): every format and scale rule once,
  // the layout, intermediate and shape rotating.
  const ScaleRule allRules[] = {ScaleRule::Floor, ScaleRule::Even,       ScaleRule::Rceil,
                                ScaleRule::Ceil,  ScaleRule::RceilRecip, ScaleRule::Even126};
  for (ElemFormat format : kAllElemFormats)
    for (int variant = 0; variant < 2; ++variant) {
      KernelSpec spec;
      spec.K = shapes[turn % std::size(shapes)].first;
      spec.M = shapes[turn % std::size(shapes)].second;
      spec.RS = 32;
      spec.rot = RotationKind::HadamardButterfly;
      spec.fmt = format;
      spec.scale = allRules[turn % std::size(allRules)];
      spec.layout = variant ? ScaleLayout::A4W4Shuffle : ScaleLayout::Plain;
      spec.inter = (turn / 2) % 2 ? Intermediate::Bf16 : Intermediate::F32;
      ++turn;
      assert(validateSpec(spec).ok());
      specs.push_back(spec);
    }
  // Stochastic rounding (issue 18): every rotation (the butterfly too) in
  // fp4, and every rotation size in each fp8 format; each run draws its own
  // seed (tests/e2e/e2e_case.cpp), so the seeds vary from run to run.
  std::vector<MatrixRotation> srRotations = matrixRotations();
  srRotations.push_back({32, RotationKind::HadamardButterfly});
  // The groups below set what they test and take the shape, rule, layout and
  // intermediate from one turn counter.
  auto addCycled = [&](KernelSpec spec) {
    spec.K = shapes[turn % std::size(shapes)].first;
    spec.M = shapes[turn % std::size(shapes)].second;
    spec.scale = allRules[turn % std::size(allRules)];
    spec.layout = turn % 2 ? ScaleLayout::A4W4Shuffle : ScaleLayout::Plain;
    spec.inter = (turn / 2) % 2 ? Intermediate::Bf16 : Intermediate::F32;
    ++turn;
    assert(validateSpec(spec).ok());
    specs.push_back(spec);
  };
  auto stochastic = [&](ElemFormat format, int rs, RotationKind kind) {
    KernelSpec spec;
    spec.RS = rs;
    spec.rot = kind;
    spec.fmt = format;
    spec.round = Rounding::Sr;
    addCycled(spec);
  };
  for (const MatrixRotation &rotation : srRotations)
    stochastic(ElemFormat::E2M1, rotation.rs, rotation.kind);
  for (ElemFormat format : {ElemFormat::E4M3, ElemFormat::E5M2})
    for (int rs : {0, 32, 64, 128, 256})
      stochastic(format, rs, rs == 0 ? RotationKind::None : RotationKind::Hadamard);
  // fp6 through v_cvt_scalef32_sr_pk32_{fp6,bf6}_f32, one pair per convert:
  // every rotation size in each fp6 format, the kinds rotating, and the
  // butterfly.
  const RotationKind fp6Kinds[] = {RotationKind::Hadamard, RotationKind::Learned,
                                   RotationKind::LearnedPerBlock};
  for (ElemFormat format : {ElemFormat::E2M3, ElemFormat::E3M2})
    for (int rs : {0, 32, 64, 128, 256})
      stochastic(format, rs, rs == 0 ? RotationKind::None : fp6Kinds[turn % std::size(fp6Kinds)]);
  stochastic(ElemFormat::E3M2, 32, RotationKind::HadamardButterfly);
  // A learned R given as AITER's FlyDSL kernels take it, R[out][in]
  // (rconv=xrt): every learned kind and size, which covers each way the
  // kernel reads R (all of it staged, slices at RS=256, gathered per block at
  // RS=32, per-wave pieces from RS=64); fp8 and stochastic rounding once.
  for (RotationKind kind : {RotationKind::Learned, RotationKind::LearnedPerBlock})
    for (int rs : {32, 64, 128, 256}) {
      KernelSpec spec;
      spec.RS = rs;
      spec.rot = kind;
      spec.rconv = RotationConvention::XRt;
      if (rs == 128)
        spec.fmt = kind == RotationKind::Learned ? ElemFormat::E4M3 : ElemFormat::E2M3;
      if (rs == 64 && kind == RotationKind::Learned)
        spec.round = Rounding::Sr;
      addCycled(spec);
    }
  // Selective rotation (issue 18): every rotation the template has (each
  // way of reading R, the butterfly) with select=flag and with select=mask,
  // the format cycling through all five, stochastic rounding and rconv=xrt
  // among them; each spec's runs take the rotated and the quant-only path
  // (tests/e2e/e2e_case.cpp draws the selection).
  size_t selectTurn = 0;
  for (const MatrixRotation &rotation : srRotations) {
    if (rotation.rs == 0)
      continue;
    for (RotationSelect select : {RotationSelect::Flag, RotationSelect::Mask}) {
      KernelSpec spec;
      spec.RS = rotation.rs;
      spec.rot = rotation.kind;
      spec.select = select;
      if (select == RotationSelect::Mask)
        spec.layers = selectTurn % 3 == 0 ? 1 : selectTurn % 3 == 1 ? 36 : 64;
      spec.fmt = kAllElemFormats[selectTurn % std::size(kAllElemFormats)];
      if (selectTurn % 7 == 3)
        spec.round = Rounding::Sr;
      if (isLearned(rotation.kind) && selectTurn % 4 == 1)
        spec.rconv = RotationConvention::XRt;
      ++selectTurn;
      addCycled(spec);
    }
  }
  // AITER's A6W6 activation contract (issue 18, docs/a6w6.md): its 32-point
  // Hadamard (rot=hadamard at RS=32, the bf16-rounded matrix), scale=a6w6
  // and round=rna on fp6_e2m3, over the shapes and both scale layouts; then
  // round=rna under every rotation (the butterfly, selection and sr's
  // neighbours included) with the rules cycling, and scale=a6w6 in every
  // other format with the hardware's RNE.
  for (int point = 0; point < 6; ++point)
    for (ScaleLayout layout :
         {ScaleLayout::Plain, ScaleLayout::A4W4Shuffle, ScaleLayout::A6W6Tiles}) {
      KernelSpec spec;
      spec.K = shapes[(point * 3) % std::size(shapes)].first;
      spec.M = shapes[(point * 3) % std::size(shapes)].second;
      spec.RS = 32;
      spec.rot = RotationKind::Hadamard;
      spec.fmt = ElemFormat::E2M3;
      spec.scale = ScaleRule::A6W6;
      spec.round = Rounding::Rna;
      spec.layout = layout;
      assert(validateSpec(spec).ok());
      specs.push_back(spec);
    }
  size_t rnaTurn = 0;
  for (const MatrixRotation &rotation : srRotations) {
    KernelSpec spec;
    spec.RS = rotation.rs;
    spec.rot = rotation.kind;
    spec.fmt = ElemFormat::E2M3;
    spec.round = Rounding::Rna;
    if (rotation.rs > 0 && rnaTurn % 5 == 2)
      spec.select = RotationSelect::Flag;
    addCycled(spec);
    specs.back().scale = rnaTurn % 2 ? ScaleRule::A6W6 : allRules[rnaTurn % std::size(allRules)];
    ++rnaTurn;
  }
  for (ElemFormat format : {ElemFormat::E2M1, ElemFormat::E3M2, ElemFormat::E4M3, ElemFormat::E5M2}) {
    KernelSpec spec;
    spec.RS = 64;
    spec.rot = RotationKind::Hadamard;
    spec.fmt = format;
    addCycled(spec);
    specs.back().scale = ScaleRule::A6W6;
  }
  // AITER's A6W6 operand tiles (layout=mxfp6_c0c1_256_padk2) under every
  // path that stores codes: each rotation kind and staging, the butterfly,
  // sr, selection, both fp6 formats; K padded to 128 (K % 128 of 32, 64, 96)
  // and not; M = 256 (no padding rows) and M = 1 (255 of them).
  struct TileCase {
    int k, m, rs;
    RotationKind rot;
    ElemFormat fmt;
    ScaleRule scale;
    Rounding round;
    RotationSelect select;
  };
  const TileCase tileCases[] = {
      {160, 16, 32, RotationKind::Hadamard, ElemFormat::E2M3, ScaleRule::A6W6, Rounding::Rna, RotationSelect::Off},
      {96, 4, 0, RotationKind::None, ElemFormat::E3M2, ScaleRule::Even, Rounding::Rne, RotationSelect::Off},
      {4096, 32, 128, RotationKind::Learned, ElemFormat::E2M3, ScaleRule::Floor, Rounding::Rne, RotationSelect::Off},
      {2048, 8, 256, RotationKind::Learned, ElemFormat::E2M3, ScaleRule::A6W6, Rounding::Rna, RotationSelect::Off},
      {1024, 16, 64, RotationKind::LearnedPerBlock, ElemFormat::E3M2, ScaleRule::Rceil, Rounding::Rne, RotationSelect::Off},
      {4096, 16, 32, RotationKind::HadamardButterfly, ElemFormat::E2M3, ScaleRule::A6W6, Rounding::Rna, RotationSelect::Off},
      {512, 64, 64, RotationKind::Hadamard, ElemFormat::E3M2, ScaleRule::Even, Rounding::Sr, RotationSelect::Off},
      {4096, 16, 32, RotationKind::Hadamard, ElemFormat::E2M3, ScaleRule::A6W6, Rounding::Rna, RotationSelect::Flag},
      {2048, 2, 128, RotationKind::Hadamard, ElemFormat::E2M3, ScaleRule::Ceil, Rounding::Rne, RotationSelect::Mask},
      {8192, 1, 256, RotationKind::Hadamard, ElemFormat::E2M3, ScaleRule::Even, Rounding::Rne, RotationSelect::Off},
      {256, 256, 32, RotationKind::Hadamard, ElemFormat::E2M3, ScaleRule::A6W6, Rounding::Rna, RotationSelect::Off},
      {224, 128, 32, RotationKind::Learned, ElemFormat::E2M3, ScaleRule::Even126, Rounding::Rne, RotationSelect::Off},
      {4064, 1, 32, RotationKind::LearnedPerBlock, ElemFormat::E2M3, ScaleRule::A6W6, Rounding::Rne, RotationSelect::Off},
      {16384, 1, 64, RotationKind::Hadamard, ElemFormat::E3M2, ScaleRule::Floor, Rounding::Rne, RotationSelect::Off},
      // The register-heaviest: selection with sr at RS=256 (asked for 4 waves).
      {768, 16, 256, RotationKind::Hadamard, ElemFormat::E3M2, ScaleRule::Even, Rounding::Sr, RotationSelect::Flag},
  };
  for (size_t i = 0; i < std::size(tileCases); ++i) {
    const TileCase &c = tileCases[i];
    KernelSpec spec;
    spec.K = c.k;
    spec.M = c.m;
    spec.RS = c.rs;
    spec.rot = c.rot;
    spec.fmt = c.fmt;
    spec.scale = c.scale;
    spec.round = c.round;
    spec.select = c.select;
    spec.layers = c.select == RotationSelect::Mask ? 4 : 0;
    spec.inter = i % 2 ? Intermediate::Bf16 : Intermediate::F32;
    spec.layout = ScaleLayout::A6W6Tiles;
    assert(validateSpec(spec).ok());
    specs.push_back(spec);
  }
  // 13 rotations x 4 rules x 2 layouts x 3 points + 10 + 20 long K + 22 odd K
  // + 26 fp6 + 26 fp8 + 10 butterfly + 35 stochastic + 8 rconv=xrt
  // + 26 selective + 18 A6W6 contract + 14 rna + 4 a6w6 + 15 A6W6 tiles = 572
  return specs;
}

/// The quant_weight matrix (issue 14): every rotation size and kind x every
/// scale rule, with the weight layout, the scale layout and the
/// intermediate rotating, over (N, K) shapes that keep emulation quick
/// (N*K <= 1.2M; N not a multiple of 256 for the shuffled scale padding,
/// K not a multiple of 256 for its padding columns); then the extremes of
/// one launch, a wide and a tall matrix.
inline std::vector<KernelSpec> quantWeightSpecMatrix() {
  const std::pair<int, int> shapes[] = {
      {16, 512},  {48, 1024}, {272, 2048}, {256, 256}, {112, 4096},
      {32, 8192}, {528, 512}, {80, 1536},  {160, 320}, {64, 2304},
  };
  const ScaleRule rules[] = {ScaleRule::Floor, ScaleRule::Even,       ScaleRule::Rceil,
                             ScaleRule::Ceil,  ScaleRule::RceilRecip, ScaleRule::Even126};
  const std::vector<MatrixRotation> rotations = matrixRotations();
  std::vector<KernelSpec> specs;
  size_t next = 0;
  for (const MatrixRotation &rotation : rotations)
    for (ScaleRule rule : rules) {
      KernelSpec spec;
      spec.op = KernelOp::QuantWeight;
      auto [n, k] = shapes[next % std::size(shapes)];
      // K a multiple of the rotation block and, for the preshuffle, of 64.
      const bool preshuffled = next % 2 == 0;
      const int multiple = std::max(rotation.rs, preshuffled ? 64 : 32);
      spec.N = n;
      spec.K = (k + multiple - 1) / multiple * multiple;
      spec.RS = rotation.rs;
      spec.rot = rotation.kind;
      spec.scale = rule;
      spec.wlayout = preshuffled ? WeightLayout::Preshuffle16x16 : WeightLayout::Plain;
      spec.layout = (next / 2) % 2 ? ScaleLayout::A4W4Shuffle : ScaleLayout::Plain;
      spec.inter = (next / 4) % 2 ? Intermediate::Bf16 : Intermediate::F32;
      ++next;
      assert(validateSpec(spec).ok());
      specs.push_back(spec);
    }
  // One launch's extremes: the longest K over one row tile, and many rows
  // (grid.y = 4096 row tiles) of a short K.
  const struct {
    int n, k, rs;
    RotationKind kind;
  } extremes[] = {{16, 65536, 128, RotationKind::Hadamard},
                  {32, 65536, 0, RotationKind::None},
                  {65536, 64, 64, RotationKind::Learned},
                  {16384, 256, 256, RotationKind::Hadamard}};
  for (const auto &[n, k, rs, kind] : extremes) {
    KernelSpec spec;
    spec.op = KernelOp::QuantWeight;
    spec.N = n;
    spec.K = k;
    spec.RS = rs;
    spec.rot = kind;
    spec.scale = rules[next % std::size(rules)];
    spec.wlayout = next % 2 ? WeightLayout::Preshuffle16x16 : WeightLayout::Plain;
    spec.layout = ScaleLayout::A4W4Shuffle;
    ++next;
    assert(validateSpec(spec).ok());
    specs.push_back(spec);
  }
  // MXFP6 E2M3 weights (seed 003), plain and in the W6A16 tiles, for every
  // rotation; seed 003's round_e2m3 recipe is even126 without rotation.
  for (const MatrixRotation &rotation : rotations)
    for (WeightLayout wlayout : {WeightLayout::Plain, WeightLayout::W6A16Tile16x128}) {
      KernelSpec spec;
      spec.op = KernelOp::QuantWeight;
      auto [n, k] = shapes[next % std::size(shapes)];
      const int multiple = std::max(rotation.rs, wlayout == WeightLayout::Plain ? 32 : 128);
      spec.N = n;
      spec.K = (k + multiple - 1) / multiple * multiple;
      spec.RS = rotation.rs;
      spec.rot = rotation.kind;
      spec.fmt = ElemFormat::E2M3;
      spec.scale = rotation.rs == 0 ? ScaleRule::Even126 : rules[next % std::size(rules)];
      spec.wlayout = wlayout;
      spec.layout = (next / 2) % 2 ? ScaleLayout::A4W4Shuffle : ScaleLayout::Plain;
      spec.inter = (next / 3) % 2 ? Intermediate::Bf16 : Intermediate::F32;
      ++next;
      assert(validateSpec(spec).ok());
      specs.push_back(spec);
    }
  // The f32 butterfly at RS=32 in every weight layout.
  for (WeightLayout wlayout : {WeightLayout::Plain, WeightLayout::Preshuffle16x16,
                               WeightLayout::W6A16Tile16x128})
    for (ScaleLayout layout : {ScaleLayout::Plain, ScaleLayout::A4W4Shuffle}) {
      KernelSpec spec;
      spec.op = KernelOp::QuantWeight;
      auto [n, k] = shapes[next % std::size(shapes)];
      spec.N = n;
      spec.K = (k + 127) / 128 * 128;
      spec.RS = 32;
      spec.rot = RotationKind::HadamardButterfly;
      spec.fmt = wlayout == WeightLayout::W6A16Tile16x128 ? ElemFormat::E2M3 : ElemFormat::E2M1;
      spec.scale = rules[next % std::size(rules)];
      spec.wlayout = wlayout;
      spec.layout = layout;
      spec.inter = next % 2 ? Intermediate::Bf16 : Intermediate::F32;
      ++next;
      assert(validateSpec(spec).ok());
      specs.push_back(spec);
    }
  // The one fp6 weight kernel that spilled at 72 VGPRs (a per-block R at
  // RS=128 into W6A16 tiles with a4w4 scales): it asks for 6 waves now.
  {
    KernelSpec spec;
    spec.op = KernelOp::QuantWeight;
    spec.N = 208;
    spec.K = 1024;
    spec.RS = 128;
    spec.rot = RotationKind::LearnedPerBlock;
    spec.fmt = ElemFormat::E2M3;
    spec.scale = ScaleRule::Even126;
    spec.wlayout = WeightLayout::W6A16Tile16x128;
    spec.layout = ScaleLayout::A4W4Shuffle;
    assert(validateSpec(spec).ok());
    specs.push_back(spec);
  }
  // Weights rotated by an R given as R[out][in] (rconv=xrt), one per
  // learned kind and size, the layouts rotating.
  int xrtTurn = 0;
  for (RotationKind kind : {RotationKind::Learned, RotationKind::LearnedPerBlock})
    for (int rs : {32, 64, 128, 256}) {
      KernelSpec spec;
      spec.op = KernelOp::QuantWeight;
      spec.N = 48 + 16 * xrtTurn;
      spec.K = 1024;
      spec.RS = rs;
      spec.rot = kind;
      spec.rconv = RotationConvention::XRt;
      spec.scale = xrtTurn % 2 ? ScaleRule::Even : ScaleRule::Rceil;
      spec.wlayout = xrtTurn % 2 ? WeightLayout::Preshuffle16x16 : WeightLayout::Plain;
      spec.layout = (xrtTurn / 2) % 2 ? ScaleLayout::A4W4Shuffle : ScaleLayout::Plain;
      ++xrtTurn;
      assert(validateSpec(spec).ok());
      specs.push_back(spec);
    }
  // AITER A6W6's weight side (both operands take the contract): scale=a6w6,
  // round=rna on fp6_e2m3, plain and in the W6A16 tiles, at RS=32 (the
  // contract's Hadamard) and two other rotations.
  const struct {
    int rs;
    RotationKind kind;
  } a6w6Rotations[] = {{32, RotationKind::Hadamard},
                       {64, RotationKind::Learned},
                       {128, RotationKind::LearnedPerBlock}};
  for (const auto &[rs, kind] : a6w6Rotations)
    for (WeightLayout wlayout : {WeightLayout::Plain, WeightLayout::W6A16Tile16x128}) {
      KernelSpec spec;
      spec.op = KernelOp::QuantWeight;
      auto [n, k] = shapes[next % std::size(shapes)];
      spec.N = n;
      spec.K = (k + 127) / 128 * 128;
      spec.RS = rs;
      spec.rot = kind;
      spec.fmt = ElemFormat::E2M3;
      spec.scale = ScaleRule::A6W6;
      spec.round = Rounding::Rna;
      spec.wlayout = wlayout;
      spec.layout = next % 2 ? ScaleLayout::A4W4Shuffle : ScaleLayout::Plain;
      ++next;
      assert(validateSpec(spec).ok());
      specs.push_back(spec);
    }
  // The RS=256 learned weight kernel in W6A16 tiles over three 256-channel
  // units (K=768), which spilled 12 bytes at 80 VGPRs until it was given 5
  // waves (a Python random spec found it; rotate_quant_template.cpp).
  {
    KernelSpec spec;
    spec.op = KernelOp::QuantWeight;
    spec.N = 240;
    spec.K = 768;
    spec.RS = 256;
    spec.rot = RotationKind::Learned;
    spec.fmt = ElemFormat::E2M3;
    spec.scale = ScaleRule::RceilRecip;
    spec.layout = ScaleLayout::A4W4Shuffle;
    spec.wlayout = WeightLayout::W6A16Tile16x128;
    assert(validateSpec(spec).ok());
    specs.push_back(spec);
  }
  // 13 rotations x 6 rules + 4 extremes + 13 rotations x 2 fp6 layouts
  // + 6 butterfly + 1 + 8 rconv=xrt + 6 A6W6 + 1 = 130
  return specs;
}


/// rotate_quant_moe (issue 12): every rotation (the butterfly too) x all six
/// scale rules, each in both scale layouts, over the routing shapes of
/// the issue: E in {8, 128, 256, 513}, topk in {1, 2, 8, 10}, block in
/// {16, 32, 64, 128}, K in {512, 2048, 4096, 7168}, cycled at co-prime
/// strides so that the combinations spread; every 4th spec is stage 2 and
/// every 5th sorts with an expert mask; the intermediate alternates. Then
/// the other formats, and AITER's own configurations. m and the routing are
/// drawn per run (tests/e2e/test_rotate_quant_moe_matrix.cpp).
inline std::vector<KernelSpec> rotateQuantMoeSpecMatrix() {
  const int experts[] = {8, 128, 256, 513};
  const int topks[] = {1, 2, 8, 10};
  const int blocks[] = {16, 32, 128, 64};
  const int ks[] = {512, 2048, 4096, 7168};
  const ScaleRule rules[] = {ScaleRule::Floor, ScaleRule::Even,       ScaleRule::Rceil,
                             ScaleRule::Ceil,  ScaleRule::RceilRecip, ScaleRule::Even126};
  std::vector<MatrixRotation> rotations = matrixRotations();
  rotations.push_back({32, RotationKind::HadamardButterfly});
  std::vector<KernelSpec> specs;
  size_t next = 0;
  auto shaped = [&](KernelSpec spec) {
    spec.op = KernelOp::RotateQuantMoe;
    spec.M = 256;
    spec.E = experts[next % 4];
    spec.topk = topks[(next / 4) % 4];
    if (spec.topk > spec.E)
      spec.E = 128;
    spec.block = blocks[(next / 3) % 4];
    spec.K = ks[(next / 5) % 4];
    spec.stage = next % 4 == 3 ? 2 : 1;
    spec.emask = next % 5 == 2 ? 1 : 0;
    spec.inter = (next / 2) % 2 ? Intermediate::Bf16 : Intermediate::F32;
    ++next;
    assert(validateSpec(spec).ok());
    return spec;
  };
  for (const MatrixRotation &rotation : rotations)
    for (ScaleRule rule : rules)
      for (ScaleLayout layout : {ScaleLayout::A4W4Shuffle, ScaleLayout::Plain}) {
        KernelSpec spec;
        spec.RS = rotation.rs;
        spec.rot = rotation.kind;
        spec.scale = rule;
        spec.layout = layout;
        specs.push_back(shaped(spec));
      }
  // MXFP8 and MXFP6 codes: every rotation size once per format.
  for (ElemFormat format : {ElemFormat::E4M3, ElemFormat::E5M2, ElemFormat::E2M3, ElemFormat::E3M2})
    for (int rs : {0, 32, 128}) {
      KernelSpec spec;
      spec.fmt = format;
      spec.RS = rs;
      spec.rot = rs == 0 ? RotationKind::None : RotationKind::Hadamard;
      spec.scale = rules[next % std::size(rules)];
      spec.layout = next % 2 ? ScaleLayout::Plain : ScaleLayout::A4W4Shuffle;
      specs.push_back(shaped(spec));
    }
  // Stochastic rounding: fp4, fp8 and fp6 at both stages.
  for (ElemFormat format : {ElemFormat::E2M1, ElemFormat::E4M3, ElemFormat::E2M3})
    for (int rs : {64, 128}) {
      KernelSpec spec;
      spec.fmt = format;
      spec.round = Rounding::Sr;
      spec.RS = rs;
      spec.rot = RotationKind::Hadamard;
      spec.scale = rules[next % std::size(rules)];
      spec.layout = next % 2 ? ScaleLayout::Plain : ScaleLayout::A4W4Shuffle;
      specs.push_back(shaped(spec));
    }
  // The configurations the engines run: DeepSeek-V3 (K=7168, E=256, top-8)
  // and Qwen3-30B-A3B (K=2048, E=128, top-8) with AITER's RCEIL and shuffled
  // scales, both stages, and a 512-routed + 1 shared expert top-10 router.
  const struct {
    int k, e, topk, block, stage;
  } engines[] = {{7168, 256, 8, 32, 1}, {7168, 256, 8, 32, 2}, {2048, 128, 8, 32, 1},
                 {2048, 128, 8, 32, 2}, {4096, 513, 10, 16, 1}, {4096, 513, 10, 128, 2}};
  for (const auto &[k, e, topk, block, stage] : engines) {
    KernelSpec spec;
    spec.op = KernelOp::RotateQuantMoe;
    spec.M = 256;
    spec.K = k;
    spec.E = e;
    spec.topk = topk;
    spec.block = block;
    spec.stage = stage;
    spec.RS = 128;
    spec.rot = RotationKind::Hadamard;
    spec.scale = ScaleRule::Rceil;
    spec.layout = ScaleLayout::A4W4Shuffle;
    assert(validateSpec(spec).ok());
    specs.push_back(spec);
  }
  // rconv=xrt through the MoE kernel's row setup and stage-2 passes: a
  // learned R staged once for all passes, sliced, and per block.
  const struct {
    int rs, stage;
    RotationKind kind;
  } transposed[] = {{128, 2, RotationKind::Learned},
                    {256, 1, RotationKind::Learned},
                    {64, 2, RotationKind::LearnedPerBlock},
                    {32, 1, RotationKind::LearnedPerBlock}};
  for (const auto &[rs, stage, kind] : transposed) {
    KernelSpec spec;
    spec.op = KernelOp::RotateQuantMoe;
    spec.M = 32;
    spec.K = 2048;
    spec.E = 128;
    spec.topk = 8;
    spec.block = 32;
    spec.stage = stage;
    spec.RS = rs;
    spec.rot = kind;
    spec.rconv = RotationConvention::XRt;
    spec.scale = ScaleRule::Rceil;
    spec.layout = ScaleLayout::A4W4Shuffle;
    assert(validateSpec(spec).ok());
    specs.push_back(spec);
  }
  // AITER's A6W6 contract through the MoE front end (stage 1 and 2). M=32:
  // the harness draws up to 32 tokens (moe_case.cpp).
  for (int stage : {1, 2}) {
    KernelSpec spec;
    spec.op = KernelOp::RotateQuantMoe;
    spec.M = 32;
    spec.K = 2048;
    spec.E = 128;
    spec.topk = 8;
    spec.block = 32;
    spec.stage = stage;
    spec.RS = 32;
    spec.rot = RotationKind::Hadamard;
    spec.fmt = ElemFormat::E2M3;
    spec.scale = ScaleRule::A6W6;
    spec.round = Rounding::Rna;
    spec.layout = ScaleLayout::A4W4Shuffle;
    assert(validateSpec(spec).ok());
    specs.push_back(spec);
  }
  // Selective rotation (select=flag|mask, one branch between the rotating
  // and the quant-only path; moe_case.cpp's even routings rotate, odd ones do
  // not): each rotation kind's body inside the branch, both stages, R staged
  // whole (its barriers inside the branch), in slices and per wave.
  struct Selective {
    int stage, rs;
    RotationKind rot;
    RotationSelect select;
  };
  const Selective selective[] = {
      {1, 128, RotationKind::Hadamard, RotationSelect::Flag},
      {2, 64, RotationKind::Learned, RotationSelect::Mask},
      {1, 256, RotationKind::Learned, RotationSelect::Flag},
      {1, 128, RotationKind::LearnedPerBlock, RotationSelect::Mask},
      {2, 32, RotationKind::HadamardButterfly, RotationSelect::Flag},
      {2, 256, RotationKind::Learned, RotationSelect::Mask},
  };
  for (const Selective &c : selective) {
    KernelSpec spec;
    spec.op = KernelOp::RotateQuantMoe;
    spec.M = 32;
    spec.K = 2048;
    spec.E = 64;
    spec.topk = 4;
    spec.block = 32;
    spec.stage = c.stage;
    spec.RS = c.rs;
    spec.rot = c.rot;
    spec.select = c.select;
    spec.layers = c.select == RotationSelect::Mask ? 7 : 0;
    spec.scale = ScaleRule::Rceil;
    spec.layout = ScaleLayout::A4W4Shuffle;
    assert(validateSpec(spec).ok());
    specs.push_back(spec);
  }
  // 14 rotations x 6 rules x 2 layouts + 4 formats x 3 + 6 stochastic + 6 engine specs
  // + 4 rconv=xrt + 2 A6W6 + 6 selective = 204
  return specs;
}

/// rotate_quant_gemm (issue 13). Group 1: every rotation the template
/// generates (matrixRotations() less rot=learned at RS=256, which it
/// refuses, plus the butterfly at RS=32) x the six scale rules, on small and
/// mid shapes, cycling the weight layout, the weight scale layout, the
/// intermediate and the M bucket. Group 2: the decode layers issue 13 names
/// (Qwen3-8B, Qwen3-32B, Qwen3.8-2.4T at TP8, DeepSeek-V3 dense) in AITER's
/// deployed layouts, RS cycling 0/32/64/128. Group 3: every (wlayout, layout)
/// x RS in {0, 32, 64, 128} x inter, on shapes with N not a multiple of the
/// workgroup's 64 columns. Group 4, W6A16 (fmt=fp6_e2m3): every rotation x
/// both of its weight layouts (plain, w6a16_16x128) on small and mid shapes,
/// cycling the scale layout, the scale rule and intermediate (which its
/// code ignores) and the M bucket; the decode layers seed 003 moves to
/// MXFP6 (GDN in_proj_qkvz and out_proj, attention qkv and o); and RS in
/// {0, 32, 64, 128} x both weight layouts on ragged shapes. Group 5: K=128
/// (one chunk, one chain) for both GEMMs. Group 6: N wide enough that a
/// wave multiplies several weight tiles, ragged. m is drawn per run (the
/// test).
inline std::vector<KernelSpec> rotateQuantGemmSpecMatrix() {
  const std::pair<int, int> shapes[] = {{16, 256},  {48, 512},  {256, 1024}, {272, 384},
                                        {80, 2048}, {528, 640}, {112, 1536}, {1040, 256},
                                        {64, 4096}};
  const int buckets[] = {1, 4, 16, 32, 8, 2, 64};
  const ScaleRule rules[] = {ScaleRule::Floor, ScaleRule::Even,       ScaleRule::Rceil,
                             ScaleRule::Ceil,  ScaleRule::RceilRecip, ScaleRule::Even126};
  std::vector<MatrixRotation> rotations;
  for (const MatrixRotation &rotation : matrixRotations())
    if (!(rotation.kind == RotationKind::Learned && rotation.rs == 256))
      rotations.push_back(rotation);
  rotations.push_back({32, RotationKind::HadamardButterfly});
  std::vector<KernelSpec> specs;
  size_t next = 0;
  auto add = [&](int n, int k, int rs, RotationKind kind, ScaleRule rule, WeightLayout wlayout,
                 ScaleLayout layout, Intermediate inter, int bucket,
                 ElemFormat fmt = ElemFormat::E2M1) {
    KernelSpec spec;
    spec.op = KernelOp::RotateQuantGemm;
    spec.fmt = fmt;
    const int multiple = std::max(rs, 128);
    spec.N = n;
    spec.K = (k + multiple - 1) / multiple * multiple;
    spec.RS = rs;
    spec.rot = kind;
    spec.scale = rule;
    spec.wlayout = wlayout;
    spec.layout = layout;
    spec.inter = inter;
    spec.M = bucket;
    ++next;
    assert(validateSpec(spec).ok());
    specs.push_back(spec);
  };
  for (const MatrixRotation &rotation : rotations)
    for (ScaleRule rule : rules) {
      auto [n, k] = shapes[next % std::size(shapes)];
      add(n, k, rotation.rs, rotation.kind, rule,
          next % 2 ? WeightLayout::Preshuffle16x16 : WeightLayout::Plain,
          (next / 2) % 2 ? ScaleLayout::A4W4Shuffle : ScaleLayout::Plain,
          (next / 4) % 2 ? Intermediate::Bf16 : Intermediate::F32,
          buckets[next % std::size(buckets)]);
    }
  const std::pair<int, int> layers[] = {
      {6144, 4096},  {4096, 4096},  {24576, 4096}, {4096, 12288}, // Qwen3-8B
      {10240, 5120}, {5120, 8192},  {51200, 5120}, {5120, 25600}, // Qwen3-32B
      {4608, 8192},  {8192, 2048},                                // Qwen3.8-2.4T, TP8
      {18432, 7168}, {7168, 18432},                               // DeepSeek-V3 dense
  };
  // One 16-row tile each (m <= 16): a second tile doubles the emulation of
  // these layers (up to a minute each) and is covered by the small shapes.
  const int decodeBuckets[] = {1, 4, 16, 8};
  for (size_t i = 0; i < std::size(layers); ++i) {
    const int rs = int(i % 4) == 0 ? 0 : 16 << (i % 4);
    add(layers[i].first, layers[i].second, rs, rs ? RotationKind::Hadamard : RotationKind::None,
        i % 2 ? ScaleRule::Rceil : ScaleRule::Even, WeightLayout::Preshuffle16x16,
        ScaleLayout::A4W4Shuffle, Intermediate::F32, decodeBuckets[i % 4]);
  }
  const std::pair<int, int> ragged[] = {{208, 512}, {336, 1024}, {16, 2048}, {720, 256}};
  for (WeightLayout wlayout : {WeightLayout::Plain, WeightLayout::Preshuffle16x16})
    for (ScaleLayout layout : {ScaleLayout::Plain, ScaleLayout::A4W4Shuffle})
      for (int rs : {0, 32, 64, 128})
        for (Intermediate inter : {Intermediate::F32, Intermediate::Bf16}) {
          auto [n, k] = ragged[next % std::size(ragged)];
          const RotationKind kinds[] = {RotationKind::Hadamard, RotationKind::Learned,
                                        RotationKind::LearnedPerBlock};
          add(n, k, rs, rs ? kinds[next % 3] : RotationKind::None, rules[next % std::size(rules)],
              wlayout, layout, inter, buckets[next % std::size(buckets)]);
        }
  const ElemFormat w6 = ElemFormat::E2M3;
  const WeightLayout w6Layouts[] = {WeightLayout::Plain, WeightLayout::W6A16Tile16x128};
  for (const MatrixRotation &rotation : rotations)
    for (WeightLayout wlayout : w6Layouts) {
      auto [n, k] = shapes[next % std::size(shapes)];
      add(n, k, rotation.rs, rotation.kind, rules[next % std::size(rules)], wlayout,
          (next / 2) % 2 ? ScaleLayout::A4W4Shuffle : ScaleLayout::Plain,
          (next / 4) % 2 ? Intermediate::Bf16 : Intermediate::F32,
          buckets[next % std::size(buckets)], w6);
    }
  const std::pair<int, int> w6Layers[] = {
      {4608, 8192}, {8192, 2048}, // Qwen3.8-2.4T at TP8: GDN in_proj_qkvz, out_proj
      {6144, 4096}, {4096, 4096}, // Qwen3-8B qkv, o
      {10240, 5120}, {5120, 8192} // Qwen3-32B qkv, o
  };
  for (size_t i = 0; i < std::size(w6Layers); ++i) {
    const int rs = int(i % 4) == 0 ? 0 : 16 << (i % 4);
    add(w6Layers[i].first, w6Layers[i].second, rs, rs ? RotationKind::Hadamard : RotationKind::None,
        ScaleRule::Even126, w6Layouts[i % 2], i % 3 ? ScaleLayout::Plain : ScaleLayout::A4W4Shuffle,
        Intermediate::F32, decodeBuckets[i % 4], w6);
  }
  for (WeightLayout wlayout : w6Layouts)
    for (int rs : {0, 32, 64, 128}) {
      auto [n, k] = ragged[next % std::size(ragged)];
      const RotationKind kinds[] = {RotationKind::Hadamard, RotationKind::Learned,
                                    RotationKind::LearnedPerBlock};
      add(n, k, rs, rs ? kinds[next % 3] : RotationKind::None, rules[next % std::size(rules)],
          wlayout, next % 2 ? ScaleLayout::A4W4Shuffle : ScaleLayout::Plain, Intermediate::F32,
          buckets[next % std::size(buckets)], w6);
    }
  // Group 5: K=128, one chunk and one chain, where the accumulator goes
  // from the MFMAs straight to the row < m store (the shape LLVM's machine
  // sinking once broke: IrBuilder::pinnedInPlace), both GEMMs.
  for (ElemFormat fmt : {ElemFormat::E2M1, ElemFormat::E2M3})
    for (int rs : {0, 32, 64, 128}) {
      const RotationKind kinds[] = {RotationKind::Hadamard, RotationKind::Learned,
                                    RotationKind::LearnedPerBlock};
      add(16 * (1 + int(next % 5)), 128, rs, rs ? kinds[next % 3] : RotationKind::None,
          rules[next % std::size(rules)],
          fmt == w6 ? w6Layouts[next % 2]
                    : (next % 2 ? WeightLayout::Preshuffle16x16 : WeightLayout::Plain),
          next % 2 ? ScaleLayout::A4W4Shuffle : ScaleLayout::Plain, Intermediate::F32,
          next % 2 ? 16 : 32, fmt);
    }
  // Group 6: N wide enough that a wave multiplies several weight tiles
  // (tiling.h's tilesPerWave), each N leaving the last workgroup ragged, on
  // small K: one chain (K=128: 4 tile groups a workgroup), two (256) and
  // four; 8 waves for a learned R of 128 (2 tile groups). Per spec:
  // tilesPerWave, and the last workgroup's tiles that exist:
  // 2, 1 of 2; 3, 1 of 3; 2, 3 of 4; 2, 7 of 8; 4, 3 of 4; 8 (the cap), 1
  // of 8; then W6A16: 2, 3 of 4; 3, 1 of 3; 2, 7 of 8.
  struct Wide {
    int n, k, rs;
    RotationKind kind;
    ElemFormat fmt;
    WeightLayout wlayout;
  };
  const Wide wide[] = {
      {16 * 517, 512, 0, RotationKind::None, ElemFormat::E2M1, WeightLayout::Plain},
      {16 * 769, 1024, 64, RotationKind::Hadamard, ElemFormat::E2M1,
       WeightLayout::Preshuffle16x16},
      {16 * 1027, 512, 128, RotationKind::Learned, ElemFormat::E2M1, WeightLayout::Plain},
      {16 * 2055, 128, 32, RotationKind::Hadamard, ElemFormat::E2M1,
       WeightLayout::Preshuffle16x16},
      {16 * 1031, 2048, 128, RotationKind::LearnedPerBlock, ElemFormat::E2M1,
       WeightLayout::Plain},
      {16 * 2057, 512, 0, RotationKind::None, ElemFormat::E2M1, WeightLayout::Preshuffle16x16},
      {16 * 1031, 256, 0, RotationKind::None, w6, WeightLayout::Plain},
      {16 * 769, 1024, 128, RotationKind::Hadamard, w6, WeightLayout::W6A16Tile16x128},
      {16 * 2055, 128, 64, RotationKind::LearnedPerBlock, w6, WeightLayout::Plain},
  };
  for (const Wide &c : wide)
    add(c.n, c.k, c.rs, c.kind, rules[next % std::size(rules)], c.wlayout,
        next % 2 ? ScaleLayout::A4W4Shuffle : ScaleLayout::Plain, Intermediate::F32,
        buckets[next % std::size(buckets)], c.fmt);
  return specs;
}


/// rmsnorm_rotate_quant (issue 33): the norm in front of rotate_quant's
/// stages, so the matrix is rotate_quant's sampled with a stride (every
/// rotation, rule, layout, format and rounding group is met: the stride is
/// prime to the groups' sizes), add=1 on two specs of three, and K
/// held to 8192 where it was larger (the norm's partial sums take 16 rows
/// of K/32 f32 of LDS beside a staged R, at most 64 KiB); then what the
/// sample may miss: selective rotation, AITER's A6W6 tiles, the model
/// widths of the presets.
inline std::vector<KernelSpec> rmsnormRotateQuantSpecMatrix() {
  std::vector<KernelSpec> specs;
  const std::vector<KernelSpec> dense = rotateQuantSpecMatrix();
  constexpr size_t kStride = 7;
  for (size_t i = 0; i < dense.size(); i += kStride) {
    KernelSpec spec = dense[i];
    spec.op = KernelOp::RmsnormRotateQuant;
    spec.K = std::min(spec.K, 8192);
    spec.add = specs.size() % 3 == 0 ? 0 : 1;
    assert(validateSpec(spec).ok());
    specs.push_back(spec);
  }
  auto add = [&](const char *text) {
    Result<KernelSpec> spec = parseSpec(text);
    assert(spec.ok());
    specs.push_back(spec.value());
  };
  add("rmsnorm_rotate_quant:K=4096,RS=64,rot=hadamard,select=flag,add=1,M=16");
  add("rmsnorm_rotate_quant:K=2048,RS=128,rot=learned,select=mask,layers=4,add=1,M=8,"
      "layout=a4w4_shuffle");
  add("rmsnorm_rotate_quant:K=1024,RS=256,rot=learned_per_block,select=flag,add=0,M=4,"
      "fmt=fp6_e2m3,round=sr");
  add("rmsnorm_rotate_quant:K=4096,RS=64,rot=hadamard,add=1,M=16,fmt=fp6_e2m3,"
      "layout=mxfp6_c0c1_256_padk2,scale=rceil");
  add("rmsnorm_rotate_quant:K=2048,RS=128,rot=learned_per_block,select=flag,add=1,M=32,"
      "fmt=fp6_e2m3,layout=mxfp6_c0c1_256_padk2");
  add("rmsnorm_rotate_quant:K=7168,RS=64,rot=hadamard,add=1,M=4,scale=rceil,"
      "layout=a4w4_shuffle");
  add("rmsnorm_rotate_quant:K=5120,RS=64,rot=hadamard,add=1,M=64,scale=even");
  add("rmsnorm_rotate_quant:K=16384,RS=0,add=1,M=1");
  return specs;
}

} // namespace mxf::testing

#endif // MXFORGE_TESTS_SUPPORT_SPEC_MATRIX_H
