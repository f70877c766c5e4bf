//===- emitter.cpp - The rotating quantizer's kernel and its dense body ---===//
//
// buildRotatingQuantizerKernel makes the gpu.func every quantizing family
// shares (arguments from abi/, the staged R's and the front end's LDS, the
// family's register budget) and runs the family's body in it. The body
// here is the dense one of rotate_quant and quant_weight: one workgroup per
// (units of a row, 16-row tile), the stages composed as
//
//   load + rotate (rotation_stage.h) -> convert + store (global_store.h)
//
// with the a4w4 and A6W6 padding the store stage fills, and selective
// rotation's branch between the rotating and the quant-only units.
// rotate_quant_moe brings its own body (its folder's moe_body.cpp).
//
//===----------------------------------------------------------------------===//

#include "templates/common/rotating_quantizer/emitter.h"

#include "templates/common/ir_builder.h"
#include "templates/common/kernel_arguments.h"
#include "templates/common/rotating_quantizer/block_converter.h"
#include "templates/common/rotating_quantizer/global_store.h"
#include "templates/common/rotating_quantizer/rotation_selection.h"
#include "templates/common/rotating_quantizer/rotation_stage.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMAttrs.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <functional>

namespace mxf {
namespace {

using mlir::Type;
using mlir::Value;
namespace arith = mlir::arith;

constexpr int kTileRows = 16;

/// rotate_quant's and quant_weight's body.
class DenseBody : private IrBuilder {
public:
  DenseBody(const QuantizerKernel &kernel, DenseFrontEnd frontEnd)
      : IrBuilder(kernel.b), kernel(kernel), frontEnd(frontEnd), spec(kernel.spec), tiling(kernel.tiling), family(kernel.family),
        args(kernel.args), converter(kernel.b, kernel.spec),
        rotation(kernel.b, kernel.spec, kernel.tiling, kernel.args.get("r"),
                 kernel.rotationLds),
        store(kernel.b, kernel.spec, kernel.tiling, kernel.args, converter, target) {
    rotation.setSink(store);
  }

  void emit() {
    Value tid = mlir::gpu::ThreadIdOp::create(b, mlir::gpu::Dimension::x);
    if (spec.round == Rounding::Sr) // one u32, read once (an s_load)
      converter.setStochasticSeed(
          mlir::memref::LoadOp::create(b, args.get("seed"), mlir::ValueRange{idx(0)}));
    Value token = rotation.setUpLane(tid);
    Value unit = add(mulBy(mlir::gpu::BlockIdOp::create(b, mlir::gpu::Dimension::x),
                           tiling.wavesPerWorkgroup),
                     rotation.waveId());
    rowTile = mlir::gpu::BlockIdOp::create(b, mlir::gpu::Dimension::y);
    Value row = add(mulBy(rowTile, kTileRows), token);
    target.row = row;
    target.group = rotation.laneGroup();
    auto strideOf = [&](const char *name) {
      return arith::IndexCastOp::create(b, b.getIndexType(), args.get(name));
    };
    Value x;
    if (family.rowsAreN) {
      // The weight kernel: always N rows (a build-time constant), w at its
      // row stride, codes dense in the weight layout (docs/templates.md).
      mIndex = idx(spec.N);
      x = rowStridedView(b, args.get(family.input), mIndex, strideOf(family.inputStride));
      q = args.get("q");
    } else {
      mIndex = arith::IndexCastOp::create(b, b.getIndexType(), args.get("m"));
      // x and q as m rows their row strides apart (an engine's views); the
      // static shapes of the arguments are only the spec's M. AITER's A6W6
      // tiles are dense (no q_stride).
      x = rowStridedView(b, args.get(family.input), mIndex, strideOf(family.inputStride));
      q = spec.layout == ScaleLayout::A6W6Tiles
              ? args.get("q")
              : rowStridedView(b, args.get("q"), mIndex, strideOf("q_stride"));
    }
    rotation.readFrom(x);
    target.rowValid = cmp(arith::CmpIPredicate::ult, row, mIndex);
    // Rows past M still run (their results are never stored), reading the
    // last valid row so that every load stays inside x.
    Value loadRow = arith::MinUIOp::create(b, row, arith::SubIOp::create(b, mIndex, idx(1)));
    rotation.setLoadRow(loadRow);
    if (frontEnd)
      frontEnd(kernel,
               {tid, token, row, loadRow, mIndex,
                mulBy(mlir::gpu::BlockIdOp::create(b, mlir::gpu::Dimension::x),
                      tiling.wavesPerWorkgroup)},
               rotation);
    Value s = args.get("s");
    if (spec.layout == ScaleLayout::A6W6Tiles) {
      // The row tile (a workgroup id) is the group: the tiles' row offsets
      // are then scalar plus the lane's token.
      target.scales.emplace(b, spec.layout, s, GroupedRow{rowTile, token});
      target.codes.emplace(b, spec.fmt, CodeLayout::A6W6Tiles, q, GroupedRow{rowTile, token});
    } else {
      target.scales.emplace(b, spec.layout, s, row);
      target.codes.emplace(b, spec.fmt, codeLayout(), q, row);
    }
    if (spec.layout == ScaleLayout::A6W6Tiles) // the launched tiles' rows past m
      target.rowInPadding = cmp(arith::CmpIPredicate::uge, row, mIndex);
    if (tiling.fillsRowPadding) {
      // pad256(M): the shuffled scale rows the kernel fills with 0x7F.
      Value padded = mulBy(divBy(add(mIndex, idx(255)), 256), 256);
      target.rowInPadding = arith::AndIOp::create(b, cmp(arith::CmpIPredicate::uge, row, mIndex),
                                                  cmp(arith::CmpIPredicate::ult, row, padded));
    }
    target.isGroupZero = cmp(arith::CmpIPredicate::eq, target.group, idx(0));
    Value unitValid = cmp(arith::CmpIPredicate::ult, unit, idx(tiling.unitsPerRow));
    store.emitScaleColumnPadding(unit);
    if (spec.layout == ScaleLayout::A6W6Tiles)
      store.emitA6W6PaddingRows(unit, token, q, s, rowTile, mIndex);
    auto rotating = [&] {
      if (tiling.stagesRotationInLds)
        return emitStagedBody(unit, unitValid, tid);
      emitUnitsOfWave(unit, unitValid, [&] { rotation.emitUnit(unit); });
    };
    if (spec.select == RotationSelect::Off)
      return rotating();
    // Selective rotation: one branch on a kernel-wide value, the rotating
    // body on one side and the quant-only units over the same RS channels
    // on the other. Uniform over the workgroup, so the staged body's
    // barriers stay legal; the side not taken costs the branch.
    ifElse(emitRotationSelected(b, spec, args), rotating,
           [&] { emitUnitsOfWave(unit, unitValid, [&] { rotation.emitPlainUnit(unit); }); });
  }

private:
  /// A wave's unit, unless it lies past the last one (K/unit not a multiple
  /// of the wave count: that wave exits). A 16-row tile wholly past M (the
  /// a4w4 padding up to pad256(M)) only writes padding scale bytes.
  void emitUnitsOfWave(Value unit, Value unitValid, const std::function<void()> &work) {
    ifThen(unitValid, [&] {
      if (!tiling.fillsRowPadding)
        return work();
      ifElse(tileWhollyPastM(), [&] { store.emitPaddingOnlyUnit(unit); }, work);
    });
  }

  /// The body when the workgroup stages R in LDS: every wave takes part in
  /// the copy and its barriers (waves past the last unit too) and only then
  /// may skip the computation. Whether a row tile lies wholly in the a4w4
  /// padding is the same for the whole workgroup, so that branch may hold
  /// barriers; such a tile stages nothing.
  void emitStagedBody(Value unit, Value unitValid, Value tid) {
    auto work = [&] {
      if (tiling.rotationSliceColumns > 0)
        return rotation.emitSlicedRotatedUnit(unit, unitValid, tid);
      rotation.emitStageRotation(tid);
      ifThen(unitValid, [&] { rotation.emitRotatedUnit(unit); });
    };
    if (!tiling.fillsRowPadding)
      return work();
    ifElse(
        tileWhollyPastM(),
        [&] { ifThen(unitValid, [&] { store.emitPaddingOnlyUnit(unit); }); }, work);
  }

  /// Where this kernel's codes go: the weight layout (quant_weight), AITER's
  /// A6W6 tiles, or plain rows.
  CodeLayout codeLayout() const {
    if (family.codesInWeightLayout)
      return codeLayoutOf(spec.wlayout);
    return spec.layout == ScaleLayout::A6W6Tiles ? CodeLayout::A6W6Tiles : CodeLayout::Plain;
  }

  /// Whether this workgroup's 16-row tile lies wholly in the padding rows.
  Value tileWhollyPastM() {
    return cmp(arith::CmpIPredicate::uge, mulBy(rowTile, kTileRows), mIndex);
  }

  const QuantizerKernel &kernel;
  DenseFrontEnd frontEnd;
  const KernelSpec &spec;
  const KernelTiling &tiling;
  const QuantizerFamily &family;
  const KernelArguments &args;
  BlockConverter converter;
  RotationStage rotation;
  StoredRow target;
  GlobalStore store;
  Value q, rowTile, mIndex;
};

void emitPlainDenseBody(const QuantizerKernel &kernel) { DenseBody(kernel, nullptr).emit(); }

} // namespace

void emitDenseBody(const QuantizerKernel &kernel, DenseFrontEnd frontEnd) {
  DenseBody(kernel, frontEnd).emit();
}

Status buildRotatingQuantizerKernel(mlir::gpu::GPUModuleOp module, const KernelSpec &spec,
                                    llvm::StringRef kernelName, const QuantizerFamily &family,
                                    QuantizerBody body) {
  mlir::MLIRContext *ctx = module.getContext();
  ctx->loadDialect<mlir::amdgpu::AMDGPUDialect, mlir::arith::ArithDialect,
                   mlir::gpu::GPUDialect, mlir::LLVM::LLVMDialect, mlir::math::MathDialect,
                   mlir::memref::MemRefDialect, mlir::ROCDL::ROCDLDialect, mlir::scf::SCFDialect,
                   mlir::vector::VectorDialect>();
  const KernelTiling tiling = chooseRotatingQuantizerTiling(spec, family);
  const llvm::SmallVector<Type> argTypes = kernelArgumentTypes(ctx, spec);

  mlir::ImplicitLocOpBuilder b(mlir::NameLoc::get(mlir::StringAttr::get(ctx, kernelName)), ctx);
  b.setInsertionPointToEnd(module.getBody());
  llvm::SmallVector<Type, 1> workgroupBuffers;
  // Flat: all of R as [in][out], two slices of its columns as [2][RS][32],
  // or one 32x32 piece per wave as [waves][32][32]. The kernel computes the
  // element indices itself so that the transposed reads share one address
  // register.
  if (tiling.ldsBytes > 0)
    workgroupBuffers.push_back(
        workgroupBufferType(ctx, {int64_t(tiling.ldsBytes / 2)}, b.getBF16Type()));
  // The family's front end's arrays (the MoE sorter's, sort_lds.h), i32.
  const int frontBytes = frontLdsBytes(family, spec, tiling);
  if (frontBytes > 0)
    workgroupBuffers.push_back(
        workgroupBufferType(ctx, {int64_t(frontBytes / 4)}, b.getI32Type()));
  auto func = mlir::gpu::GPUFuncOp::create(b, kernelName, b.getFunctionType(argTypes, {}),
                                           workgroupBuffers);
  func->setAttr(mlir::gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({tiling.workgroupSize(), 1, 1}));
  // The family's register budget (register_budget.cpp has the measurements).
  if (const int waves = chooseWavesPerEu(family, spec, tiling); waves > 0)
    func->setAttr("rocdl.waves_per_eu", b.getI32IntegerAttr(waves));
  b.setInsertionPointToStart(&func.getBody().front());
  const KernelArguments args(spec, func);
  const QuantizerKernel kernel{
      b,
      spec,
      tiling,
      family,
      args,
      tiling.ldsBytes > 0 ? Value(func.getWorkgroupAttributions().front()) : Value(),
      frontBytes > 0 ? Value(func.getWorkgroupAttributions().back()) : Value()};
  (body ? body : emitPlainDenseBody)(kernel);
  mlir::gpu::ReturnOp::create(b);
  return Status::success();
}

} // namespace mxf
