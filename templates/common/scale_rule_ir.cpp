//===- scale_rule_ir.cpp - E8M0 scale rules as arith IR -------------------===//
//
// Every case below mirrors a case of computeScaleByte in
// numerics/scale_rules.cpp; read the two together.
//
//===----------------------------------------------------------------------===//

#include "templates/common/scale_rule_ir.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace mxf {
namespace {

using mlir::Value;
using namespace mlir::arith;

struct Emitter {
  mlir::ImplicitLocOpBuilder &b;

  Value i32(int64_t v) { return ConstantIntOp::create(b, b.getI32Type(), v); }
  Value f32(float v) { return ConstantFloatOp::create(b, b.getF32Type(), llvm::APFloat(v)); }
  Value bits(Value f) { return BitcastOp::create(b, b.getI32Type(), f); }
  Value exponent(Value bitsValue) {
    return AndIOp::create(b, ShRUIOp::create(b, bitsValue, i32(23)), i32(0xFF));
  }
  Value mantissa(Value bitsValue) { return AndIOp::create(b, bitsValue, i32(0x7FFFFF)); }
  Value eq(Value a, Value c) { return CmpIOp::create(b, CmpIPredicate::eq, a, c); }
  Value ne(Value a, Value c) { return CmpIOp::create(b, CmpIPredicate::ne, a, c); }
  Value ult(Value a, Value c) { return CmpIOp::create(b, CmpIPredicate::ult, a, c); }
  Value select(Value c, Value t, Value f) { return SelectOp::create(b, c, t, f); }
  Value clamp(Value v, int lo, int hi) {
    return MinSIOp::create(b, MaxSIOp::create(b, v, i32(lo)), i32(hi));
  }
  Value isNaN(Value f) { return CmpFOp::create(b, CmpFPredicate::UNO, f, f); }

  /// E(d) + (M(d) != 0 && E(d) < 255): the byte of the smallest power of two
  /// >= d (numerics roundUpExponent).
  Value roundUpExponent(Value d) {
    Value dBits = bits(d);
    Value e = exponent(dBits);
    Value bump = AndIOp::create(b, ne(mantissa(dBits), i32(0)), ult(e, i32(255)));
    return AddIOp::create(b, e, ExtUIOp::create(b, b.getI32Type(), bump));
  }
};

} // namespace

Value emitScaleByte(mlir::ImplicitLocOpBuilder &b, ScaleRule rule, ElemFormat format,
                    Value amax) {
  Emitter e{b};
  const FormatInfo &info = formatInfo(format);
  const int emax = info.emax;
  Value amaxBits = e.bits(amax);
  Value expField = e.exponent(amaxBits);
  Value nanByte = e.i32(0xFF);
  switch (rule) {
  case ScaleRule::Floor: {
    // Inf/NaN -> NaN scale; otherwise max(E - emax, 0) (zero and subnormal
    // amax have E = 0).
    Value normal = e.clamp(SubIOp::create(b, expField, e.i32(emax)), 0, 254);
    return e.select(e.eq(expField, e.i32(255)), nanByte, normal);
  }
  case ScaleRule::Even: {
    // (bits + 2^(22-mbits)) & 0xFF800000: a zero result gives 0, an infinite
    // one 254 (floor(log2 Inf) clamps to 127), else max(E' - emax, 0).
    Value rounded = AndIOp::create(
        b, AddIOp::create(b, amaxBits, e.i32(1 << (22 - info.mbits))), e.i32(0xFF800000u));
    Value roundedExp = e.exponent(rounded);
    Value normal = e.clamp(SubIOp::create(b, roundedExp, e.i32(emax)), 0, 254);
    Value byte = e.select(e.eq(roundedExp, e.i32(255)), e.i32(254), normal);
    byte = e.select(e.eq(rounded, e.i32(0)), e.i32(0), byte);
    return e.select(e.isNaN(amax), nanByte, byte);
  }
  case ScaleRule::Rceil:
    // One correctly rounded f32 division (arith.divf lowers to the IEEE
    // division sequence, not the approximate reciprocal).
    return e.roundUpExponent(DivFOp::create(b, amax, e.f32(float(info.maxValue))));
  case ScaleRule::RceilRecip:
    return e.roundUpExponent(MulFOp::create(b, amax, e.f32(float(1.0 / info.maxValue))));
  case ScaleRule::Ceil: {
    // AITER's Ceil: E + (M != 0) of the f32 quotient amax / 2^emax, on
    // integers (a float multiply would meet the denormal mode). Above
    // E = emax the quotient is normal: E - emax + (M != 0). At or below it
    // the quotient is subnormal, so the byte is 1 exactly when it does not
    // round to zero: amax > 2^(emax - 150) (positive floats order as their
    // bits; the tie at 2^(emax - 150) rounds to even, zero).
    Value hasMantissa = ExtUIOp::create(b, b.getI32Type(), e.ne(e.mantissa(amaxBits), e.i32(0)));
    Value normal = AddIOp::create(b, SubIOp::create(b, expField, e.i32(emax)), hasMantissa);
    // 2^(emax - 150) is an f32 subnormal for every format (emax <= 15): its
    // bits are 1 << (emax - 150 + 149).
    const int64_t tieBits = int64_t(1) << (emax - 1);
    Value tiny = ExtUIOp::create(
        b, b.getI32Type(), CmpIOp::create(b, CmpIPredicate::ugt, amaxBits, e.i32(tieBits)));
    Value byte = e.select(CmpIOp::create(b, CmpIPredicate::ugt, expField, e.i32(emax)), normal,
                          tiny);
    return e.select(e.eq(expField, e.i32(255)), nanByte, byte);
  }
  case ScaleRule::Even126: {
    // Seed 003's recipe on the bits, wrapping add included.
    Value rounded = AddIOp::create(b, amaxBits, e.i32(1 << (22 - info.mbits)));
    Value roundedExp = e.exponent(AndIOp::create(b, rounded, e.i32(0x7F800000)));
    return e.clamp(SubIOp::create(b, roundedExp, e.i32(emax)), 1, 254);
  }
  case ScaleRule::A6W6: {
    // AITER A6W6's packer on the exponent field: E = 255 (Inf, NaN) -> 254,
    // E = 0 -> 0 (subnormal), or 127 for amax = 0 (bits 0: amax is |.|),
    // else clamp(E - emax, 0, 254).
    Value normal = e.clamp(SubIOp::create(b, expField, e.i32(emax)), 0, 254);
    Value byte = e.select(e.eq(expField, e.i32(255)), e.i32(254), normal);
    return e.select(e.eq(amaxBits, e.i32(0)), e.i32(127), byte);
  }
  }
  return nanByte;
}

} // namespace mxf
