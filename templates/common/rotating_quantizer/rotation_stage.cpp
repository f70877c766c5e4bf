//===- rotation_stage.cpp - Load and rotate -------------------------------===//
//
// rotation_stage.h says what this stage does and the lane mapping; each
// function below says how its rotation kind is laid out on the lanes.
//
//===----------------------------------------------------------------------===//

#include "templates/common/rotating_quantizer/rotation_stage.h"

#include "numerics/rotation.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>
#include <utility>
#include <vector>
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <cassert>
#include <utility>

namespace mxf {

using mlir::Value;
namespace arith = mlir::arith;
namespace vector = mlir::vector;

Value RotationStage::setUpLane(Value tid) {
  lane = remBy(tid, kLanes);
  wave = divBy(tid, kLanes);
  group = divBy(lane, kTileRows); // g = lane / 16
  hadamard.emplace(b, lane, group, spec.RS);
  return remBy(lane, kTileRows);
}

void RotationStage::emitUnit(Value unit) {
  if (spec.RS == 0)
    emitPlainUnit(unit);
  else if (spec.rot == RotationKind::HadamardButterfly)
    emitButterflyUnit(unit);
  else
    emitRotatedUnit(unit);
}

Value RotationStage::loadChannels(Value channel, int64_t count) {
  if (rowSource)
    return rowSource(channel, count);
  auto type = mlir::VectorType::get({count}, b.getBF16Type());
  return vector::LoadOp::create(b, type, x, mlir::ValueRange{loadRow, channel});
}

void RotationStage::emitStageRotation(Value tid) {
  const int64_t pieces = int64_t(spec.RS) * spec.RS / 8;
  const int64_t threads = tiling.workgroupSize();
  auto v8bf16 = mlir::VectorType::get({8}, b.getBF16Type());
  // Piece p is R's 8 bf16 at flat element 8p, stored at the same LDS offset.
  auto loadPiece = [&](Value piece) -> Value {
    Value flat = mulBy(piece, 8);
    return vector::LoadOp::create(b, v8bf16, r,
                                  mlir::ValueRange{divBy(flat, spec.RS), remBy(flat, spec.RS)});
  };
  auto storePiece = [&](Value piece, Value value) {
    vector::StoreOp::create(b, value, lds, mlir::ValueRange{mulBy(piece, 8)});
  };
  if (pieces % threads == 0) {
    // Every thread copies pieces / threads pieces, their loads issued in
    // batches, each batch in flight together before its stores: a loop of
    // load, wait, store would pay one memory round trip per piece (8 in
    // sequence for RS=128 on 256 work-items, the learned kernel's longest
    // latency chain in docs/estimate.md's timeline). Batches of 8 pieces
    // (32 VGPRs) keep the staging below the body's register peak.
    constexpr int64_t kBatch = 8;
    const int64_t perThread = pieces / threads;
    for (int64_t first = 0; first < perThread; first += kBatch) {
      std::vector<std::pair<Value, Value>> batch; // (piece, its value)
      for (int64_t i = first; i < std::min(perThread, first + kBatch); ++i) {
        Value piece = add(tid, idx(i * threads));
        batch.emplace_back(piece, loadPiece(piece));
      }
      for (const auto &[piece, value] : batch)
        storePiece(piece, value);
    }
  } else {
    auto loop = mlir::scf::ForOp::create(b, tid, idx(pieces), idx(threads));
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    storePiece(loop.getInductionVar(), loadPiece(loop.getInductionVar()));
  }
  mlir::gpu::BarrierOp::create(b);
}

int64_t RotationStage::ldsPitch() const {
  if (tiling.transposesInWaveLds)
    return 32;
  if (tiling.rotationSliceColumns > 0 && !readsRowsOfR())
    return tiling.rotationSliceColumns;
  return spec.RS;
}

Value RotationStage::ldsOperand(Value laneBase, int64_t c, int64_t tile, int64_t outBlock) {
  if (readsRowsOfR())
    return rowOperand(laneBase, c * 32 + (tile * 16 + outBlock * 32) * ldsPitch());
  return transposedOperand(laneBase, c * 32 * ldsPitch() + tile * 16 + outBlock * 32);
}

Value RotationStage::rowOperand(Value laneBase, int64_t offset) {
  auto v8bf16 = mlir::VectorType::get({8}, b.getBF16Type());
  return vector::LoadOp::create(b, v8bf16, lds, mlir::ValueRange{add(laneBase, idx(offset))});
}

Value RotationStage::transposedOperand(Value laneBase, int64_t offset) {
  auto v4bf16 = mlir::VectorType::get({4}, b.getBF16Type());
  Value low = mlir::amdgpu::TransposeLoadOp::create(b, v4bf16, lds,
                                                    mlir::ValueRange{add(laneBase, idx(offset))});
  Value high = mlir::amdgpu::TransposeLoadOp::create(
      b, v4bf16, lds, mlir::ValueRange{add(laneBase, idx(offset + 4 * ldsPitch()))});
  return vector::ShuffleOp::create(b, low, high, llvm::ArrayRef<int64_t>{0, 1, 2, 3, 4, 5, 6, 7});
}

Value RotationStage::ldsLaneOffset() {
  Value t = remBy(lane, kTileRows);
  if (readsRowsOfR()) // row (output channel) t, input channels 8(l/16)..
    return add(mulBy(t, ldsPitch()), mulBy(group, 8));
  Value rowIndex = add(mulBy(group, 8), divBy(t, 4));
  return add(mulBy(rowIndex, ldsPitch()), mulBy(remBy(t, 4), 4));
}

Value RotationStage::gatheredOperand(Value unit, Value in0, Value out) {
  if (readsRowsOfR()) // R_unit[out][in0..in0+7]: one 16-byte load
    return vector::LoadOp::create(b, mlir::VectorType::get({8}, b.getBF16Type()), r,
                                  mlir::ValueRange{unit, out, in0});
  llvm::SmallVector<Value, 8> elements;
  for (int t = 0; t < 8; ++t)
    elements.push_back(
        mlir::memref::LoadOp::create(b, r, mlir::ValueRange{unit, add(in0, idx(t)), out}));
  return vector::FromElementsOp::create(b, mlir::VectorType::get({8}, b.getBF16Type()),
                                        elements);
}

RotatedUnit RotationStage::prepareUnit(Value unit) {
  RotatedUnit u;
  u.unit = unit;
  u.blockBase = mulBy(unit, spec.RS);
  u.groupChannel = mulBy(group, 8);
  u.tokenInTile = remBy(lane, kTileRows);
  if (tiling.stagesRotationInLds) // a sliced copy starts from buffer 0 too
    u.ldsReadBase = ldsLaneOffset();
  if (tiling.transposesInWaveLds) // this wave's piece
    u.ldsReadBase = add(mulBy(wave, 32 * 32), ldsLaneOffset());
  // The block's x, loaded once and reused by every output block.
  if (!loopsOverChunks())
    for (int c = 0; c < spec.RS / kMfmaBf16ChunkK; ++c)
      u.xChunks.push_back(loadX8(add(u.blockBase, add(idx(c * 32), u.groupChannel))));
  // in = 32c + (8g + t) and out = 32o + (16 tile + l%16): split at bit 5,
  // parity(in & out) = parity(c & o) ^ parity((8g+t) & (16 tile + l%16)).
  // So two operand vectors per lane (one per tile) and their negations
  // serve every (o, c); the chain picks one, at build time when the output
  // blocks are unrolled, else with a select (at RS=128 O3 unrolls the
  // loop's four iterations and the selects fold away).
  if (spec.rot == RotationKind::Hadamard && !xorsHadamardSigns()) {
    u.hadamard[0][0] = hadamard->tileZero();
    u.hadamard[1][0] = hadamard->flipSigns(u.hadamard[0][0], hadamard->tileOneSigns());
    for (int tile = 0; tile < 2; ++tile)
      u.hadamard[tile][1] = hadamard->negate(u.hadamard[tile][0]);
  }
  // In the loop LLVM keeps (RS=256), four live vectors plus the selected
  // one cost 20 VGPRs (70 in all, 7 waves). Bit 4 of 8g+t is g >= 2, so
  // tile 1's entries are tile 0's negated in lanes with g >= 2: one vector
  // and an xor of sign bits per MFMA serve every (tile, o, c).
  if (spec.rot == RotationKind::Hadamard && xorsHadamardSigns()) {
    u.hadamardBase = hadamard->tileZero();
    u.hadamardTileSigns = hadamard->tileOneSigns();
  }
  return u;
}

Value RotationStage::rotationOperand(const RotatedUnit &u, int c, int tile, Value outBlock,
                      std::optional<int> outBlockConst) {
  switch (spec.rot) {
  case RotationKind::Hadamard: {
    // parity(c & o) flips the whole chunk.
    const auto flippedAt = [&](int o) { return __builtin_popcount(unsigned(c & o)) & 1; };
    if (!xorsHadamardSigns()) {
      if (outBlockConst)
        return u.hadamard[tile][flippedAt(*outBlockConst)];
      return arith::SelectOp::create(b, chunkSignFlipped(c, outBlock), u.hadamard[tile][1],
                                     u.hadamard[tile][0]);
    }
    Value signs = outBlockConst ? i32(flippedAt(*outBlockConst) ? HadamardOperands::kPairSigns : 0)
                                : arith::SelectOp::create(b, chunkSignFlipped(c, outBlock),
                                                          i32(HadamardOperands::kPairSigns), i32(0));
    if (tile == 1)
      signs = arith::XOrIOp::create(b, signs, u.hadamardTileSigns);
    return hadamard->flipSigns(u.hadamardBase, signs);
  }
  case RotationKind::Learned:
    return ldsOperand(u.ldsReadBase, c, tile, outBlockConst ? *outBlockConst : 0);
  default:
    return gatheredOperand(u.unit, add(idx(c * 32), u.groupChannel),
                           add(add(mulBy(outBlock, 32), idx(tile * 16)), u.tokenInTile));
  }
}

void RotationStage::emitOutputBlock(const RotatedUnit &u, Value outBlock, std::optional<int> outBlockConst) {
  Value tiles[2];
  for (int tile = 0; tile < 2; ++tile) {
    Value acc = zeroAccumulator();
    for (int c = 0; c < int(u.xChunks.size()); ++c) {
      Value a = rotationOperand(u, c, tile, outBlock, outBlockConst);
      acc = mlir::amdgpu::MFMAOp::create(b, acc.getType(), 16, 16, 32, 1, a, u.xChunks[c], acc);
    }
    tiles[tile] = acc;
  }
  finish(add(mulBy(u.unit, spec.RS / 32), outBlock), tiles[0], tiles[1]);
}

void RotationStage::emitRotatedBlocks(RotatedUnit u) {
  const int outBlocks = spec.RS / 32;
  if (loopsOverChunks())
    return emitWaveTransposedUnit(u);
  const bool learned = spec.rot == RotationKind::Learned;
  if (!loopsOverOutputBlocks()) {
    for (int outBlock = 0; outBlock < outBlocks; ++outBlock)
      emitOutputBlock(u, idx(outBlock), outBlock);
    return;
  }
  llvm::SmallVector<Value, 1> carried;
  if (learned)
    carried.push_back(u.ldsReadBase);
  auto loop = mlir::scf::ForOp::create(b, idx(0), idx(outBlocks), idx(1), carried);
  mlir::OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  if (learned)
    u.ldsReadBase = loop.getRegionIterArgs()[0];
  emitOutputBlock(u, loop.getInductionVar(), std::nullopt);
  if (learned) // the next block's 32 columns
    mlir::scf::YieldOp::create(b, mlir::ValueRange{add(u.ldsReadBase, idx(ldsOutBlockStep()))});
}

void RotationStage::emitSlicedRotatedUnit(Value unit, Value unitValid, Value tid) {
  const int64_t outBlocks = spec.RS / 32, columns = tiling.rotationSliceColumns;
  const int64_t sliceElements = int64_t(spec.RS) * columns;
  // Under rconv=xrt the slice is rows 32o..32o+31 of r, whole rows.
  const int64_t piecesPerRow = (readsRowsOfR() ? spec.RS : columns) / 8;
  const int64_t threads = tiling.workgroupSize();
  const int64_t piecesPerThread = sliceElements / 8 / threads;
  assert(piecesPerThread * threads * 8 == sliceElements &&
         "a slice must be a whole number of 16-byte pieces per thread");
  auto v8bf16 = mlir::VectorType::get({8}, b.getBF16Type());
  // The pieces this thread copies: piece p is row p / piecesPerRow of R,
  // columns 8(p % piecesPerRow)..+7 of the slice; in a buffer it sits at
  // element 8p.
  llvm::SmallVector<Value, 2> pieces;
  for (int64_t p = 0; p < piecesPerThread; ++p)
    pieces.push_back(add(tid, idx(p * threads)));
  auto loadSlice = [&](Value outBlock) {
    llvm::SmallVector<Value, 2> loaded;
    Value first = mulBy(outBlock, columns);
    for (Value piece : pieces) {
      Value rowIndex = divBy(piece, piecesPerRow);
      Value column = mulBy(remBy(piece, piecesPerRow), 8);
      llvm::SmallVector<Value, 2> at{rowIndex, add(first, column)};
      if (readsRowsOfR())
        at = {add(first, rowIndex), column};
      loaded.push_back(vector::LoadOp::create(b, v8bf16, r, at));
    }
    return loaded;
  };
  auto storeSlice = [&](Value bufferStart, llvm::ArrayRef<Value> loaded) {
    for (auto [piece, value] : llvm::zip(pieces, loaded))
      vector::StoreOp::create(b, value, lds,
                              mlir::ValueRange{add(bufferStart, mulBy(piece, 8))});
  };

  // Waves past the last unit compute nothing but copy their share of every
  // slice; they read x of the last unit so that their loads stay inside x.
  RotatedUnit u =
      prepareUnit(arith::MinUIOp::create(b, unit, idx(tiling.unitsPerRow - 1)));
  storeSlice(idx(0), loadSlice(idx(0)));
  mlir::gpu::BarrierOp::create(b);

  // The lane's read base (RotatedUnit::ldsReadBase) flips between the two
  // buffers.
  auto loop = mlir::scf::ForOp::create(b, idx(0), idx(outBlocks), idx(1),
                                       mlir::ValueRange{u.ldsReadBase});
  keepRolled(loop);
  mlir::OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value outBlock = loop.getInductionVar();
  u.ldsReadBase = loop.getRegionIterArgs()[0];
  Value next = add(outBlock, idx(1));
  Value hasNext = cmp(arith::CmpIPredicate::ult, next, idx(outBlocks));
  llvm::SmallVector<mlir::Type, 2> pieceTypes(pieces.size(), v8bf16);
  auto prefetch = mlir::scf::IfOp::create(b, pieceTypes, hasNext, /*withElseRegion=*/true);
  {
    mlir::OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(&prefetch.getThenRegion().front());
    mlir::scf::YieldOp::create(b, loadSlice(next));
    b.setInsertionPointToStart(&prefetch.getElseRegion().front());
    Value zeros = arith::ConstantOp::create(
        b, mlir::DenseElementsAttr::get(v8bf16, llvm::APFloat::getZero(llvm::APFloat::BFloat())));
    mlir::scf::YieldOp::create(b, llvm::SmallVector<Value, 2>(pieces.size(), zeros));
  }
  ifThen(unitValid, [&] { emitOutputBlock(u, outBlock, std::nullopt); });
  Value nextBufferStart = mulBy(remBy(next, 2), sliceElements);
  ifThen(hasNext, [&] {
    llvm::SmallVector<Value, 2> prefetched(prefetch.getResults());
    storeSlice(nextBufferStart, prefetched);
  });
  mlir::gpu::BarrierOp::create(b);
  // The lane offset is below sliceElements, a power of two: xor switches
  // buffers.
  mlir::scf::YieldOp::create(
      b, mlir::ValueRange{arith::XOrIOp::create(b, u.ldsReadBase, idx(sliceElements))});
}

void RotationStage::emitWaveTransposedUnit(const RotatedUnit &u) {
  const int64_t chunks = spec.RS / kMfmaBf16ChunkK, outBlocks = spec.RS / 32;
  const int64_t steps = outBlocks * chunks;
  auto v8bf16 = mlir::VectorType::get({8}, b.getBF16Type());
  // Lane l copies rows 2(l/4) and 2(l/4)+1, columns 8(l%4)..+7: one
  // address, the second row an immediate offset away.
  struct Piece {
    Value rowIndex, columnInBlock, ldsIndex;
  };
  llvm::SmallVector<Piece, 2> pieces;
  Value firstRowOfLane = mulBy(divBy(lane, 4), 2);
  Value columnOfLane = mulBy(remBy(lane, 4), 8);
  Value laneStart = add(mulBy(wave, 32 * 32), add(mulBy(firstRowOfLane, 32), columnOfLane));
  for (int64_t p = 0; p < 2; ++p)
    pieces.push_back({add(firstRowOfLane, idx(p)), columnOfLane, add(laneStart, idx(p * 32))});
  // The two pieces and x of one step (index < steps).
  auto loadStep = [&](Value step) {
    Value firstRow = mulBy(remBy(step, chunks), 32);
    Value firstColumn = mulBy(divBy(step, chunks), 32);
    llvm::SmallVector<Value, 3> loaded;
    // Under rconv=xrt the piece is R_unit's block (o, c) as given:
    // rows are output channels, and the wave's LDS holds it that way.
    for (const Piece &piece : pieces) {
      Value inRows = firstRow, outColumns = firstColumn;
      if (readsRowsOfR())
        std::swap(inRows, outColumns);
      loaded.push_back(vector::LoadOp::create(
          b, v8bf16, r,
          mlir::ValueRange{u.unit, add(inRows, piece.rowIndex),
                           add(outColumns, piece.columnInBlock)}));
    }
    loaded.push_back(loadX8(add(u.blockBase, add(firstRow, u.groupChannel))));
    return loaded;
  };
  // The step after `step`; the last step loads itself again (from the
  // cache) rather than branch, whose other side would need registers.
  auto nextStep = [&](Value step) {
    return arith::MinUIOp::create(b, add(step, idx(1)), idx(steps - 1));
  };
  // One step's two MFMAs, from what loadStep returned.
  auto multiply = [&](mlir::ValueRange loaded, Value (&acc)[2]) {
    // Lanes read what other lanes of the wave wrote. The LDS executes a
    // wave's accesses in order, so no barrier is needed, but the compiler
    // must keep them in order: from one lane's view the addresses differ,
    // and the reads could move above the writes (or the next step's writes
    // above these reads). A wavefront-scope fence forbids that and emits
    // no instruction.
    waveFence();
    for (auto [piece, value] : llvm::zip(pieces, loaded.take_front(2)))
      vector::StoreOp::create(b, value, lds, mlir::ValueRange{piece.ldsIndex});
    waveFence();
    for (int tile = 0; tile < 2; ++tile)
      acc[tile] = mlir::amdgpu::MFMAOp::create(b, acc[tile].getType(), 16, 16, 32, 1,
                                               ldsOperand(u.ldsReadBase, 0, tile, 0),
                                               loaded[2], acc[tile]);
  };

  auto blockLoop =
      mlir::scf::ForOp::create(b, idx(0), idx(outBlocks), idx(1), loadStep(idx(0)));
  mlir::OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(blockLoop.getBody());
  Value outBlock = blockLoop.getInductionVar();
  Value zero = zeroAccumulator();
  llvm::SmallVector<Value, 5> initial{zero, zero};
  initial.append(blockLoop.getRegionIterArgs().begin(), blockLoop.getRegionIterArgs().end());
  auto chunkLoop = mlir::scf::ForOp::create(b, idx(0), idx(chunks), idx(2), initial);
  keepRolled(chunkLoop);
  {
    mlir::OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(chunkLoop.getBody());
    mlir::ValueRange carried = chunkLoop.getRegionIterArgs();
    Value first = add(mulBy(outBlock, chunks), chunkLoop.getInductionVar());
    Value second = add(first, idx(1));
    Value acc[2] = {carried[0], carried[1]};
    llvm::SmallVector<Value, 3> secondLoaded = loadStep(second);
    multiply(carried.drop_front(2), acc);
    llvm::SmallVector<Value, 3> following = loadStep(nextStep(second));
    multiply(secondLoaded, acc);
    llvm::SmallVector<Value, 5> results{acc[0], acc[1]};
    results.append(following);
    mlir::scf::YieldOp::create(b, results);
  }
  finish(add(mulBy(u.unit, outBlocks), outBlock), chunkLoop.getResult(0),
                    chunkLoop.getResult(1));
  mlir::scf::YieldOp::create(b, chunkLoop.getResults().drop_front(2));
}

Value RotationStage::chunkSignFlipped(int c, Value outBlock) {
  Value ob = arith::IndexCastOp::create(b, b.getI32Type(), outBlock);
  Value common = arith::AndIOp::create(b, ob, i32(c));
  Value parity = arith::AndIOp::create(b, mlir::math::CtPopOp::create(b, common), i32(1));
  return cmp(arith::CmpIPredicate::ne, parity, i32(0));
}

void RotationStage::emitButterflyUnit(Value unit) {
  auto v8f32 = mlir::VectorType::get({8}, b.getF32Type());
  Value loaded = arith::ExtFOp::create(
      b, v8f32, loadX8(add(mulBy(unit, 32), mulBy(group, 8))));
  llvm::SmallVector<Value, 8> v;
  for (int64_t i = 0; i < 8; ++i)
    v.push_back(vector::ExtractOp::create(b, loaded, i));
  for (int h = 1; h < 8; h *= 2)
    for (int base = 0; base < 8; base += 2 * h)
      for (int i = base; i < base + h; ++i) {
        Value a = v[i], c = v[i + h];
        v[i] = arith::AddFOp::create(b, a, c);
        v[i + h] = arith::SubFOp::create(b, a, c);
      }
  for (int distance : {16, 32}) {
    // Whether this lane holds the upper channel of each pair of the stage.
    Value upper = cmp(arith::CmpIPredicate::ne, arith::AndIOp::create(b, group, idx(distance / 16)),
                      idx(0));
    for (Value &own : v) {
      Value partner =
          mlir::gpu::ShuffleOp::create(b, own, distance, kLanes, mlir::gpu::ShuffleMode::XOR)
              .getShuffleResult();
      own = arith::SelectOp::create(b, upper, arith::SubFOp::create(b, partner, own),
                                    arith::AddFOp::create(b, own, partner));
    }
  }
  Value norm = arith::ConstantFloatOp::create(b, b.getF32Type(),
                                              llvm::APFloat(hadamardNormF32(spec.RS)));
  for (Value &value : v)
    value = arith::MulFOp::create(b, value, norm);
  auto v4f32 = mlir::VectorType::get({4}, b.getF32Type());
  Value tile0 = vector::FromElementsOp::create(b, v4f32, llvm::ArrayRef<Value>(v).take_front(4));
  Value tile1 = vector::FromElementsOp::create(b, v4f32, llvm::ArrayRef<Value>(v).drop_front(4));
  finish(unit, tile0, tile1, LaneChannels::Contiguous);
}

void RotationStage::emitPlainUnit(Value unit) {
  const int blocks = tiling.channelsPerUnit / 32;
  for (int blk = 0; blk < blocks; ++blk) {
    Value scaleBlock = add(mulBy(unit, blocks), idx(blk));
    const std::array<Value, 2> tiles = loadPlainBlock(scaleBlock);
    finish(scaleBlock, tiles[0], tiles[1]);
  }
}

std::array<Value, 2> RotationStage::loadPlainBlock(Value scaleBlock) {
  auto v4f32 = mlir::VectorType::get({4}, b.getF32Type());
  Value base = add(mulBy(scaleBlock, 32), mulBy(group, 4));
  std::array<Value, 2> tiles;
  for (int tile = 0; tile < 2; ++tile) {
    Value raw = loadChannels(add(base, idx(tile * 16)), 4);
    tiles[tile] = arith::ExtFOp::create(b, v4f32, raw);
  }
  return tiles;
}

PlainUnit RotationStage::loadPlainUnit(Value unit) {
  const int blocks = tiling.channelsPerUnit / 32;
  PlainUnit u{unit, {}};
  for (int blk = 0; blk < blocks; ++blk)
    u.tiles.push_back(loadPlainBlock(add(mulBy(unit, blocks), idx(blk))));
  return u;
}

void RotationStage::finishPlainUnit(const PlainUnit &u) {
  const int blocks = tiling.channelsPerUnit / 32;
  for (int blk = 0; blk < blocks; ++blk)
    finish(add(mulBy(u.unit, blocks), idx(blk)), u.tiles[blk][0], u.tiles[blk][1]);
}

} // namespace mxf
