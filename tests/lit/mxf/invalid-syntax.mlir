// Text that does not parse as an mxf op, ops missing attributes in the
// generic form, and bad `mxf.spec` function attributes.
// RUN: %mxforge-opt %s --split-input-file --verify-diagnostics

func.func @bad_enum_value(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{'fp5' is not a valid fmt; expected one of fp4, fp6_e2m3, fp6_e3m2, fp8_e4m3, fp8_e5m2}}
  mxf.rotate_quant <K = 4096, RS = 64, rot = hadamard, M = 16, fmt = fp5, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : memref<16x4096xbf16>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// -----

func.func @bad_scale_rule(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{'round_up' is not a valid scale; expected one of floor, even, rceil, rceil_recip, ceil, even126}}
  mxf.rotate_quant <K = 4096, RS = 64, rot = hadamard, M = 16, fmt = fp4, scale = round_up, round = rne, inter = f32, layout = plain>
      x(%x : memref<16x4096xbf16>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// -----

// Spellings are case-sensitive, as in specs.
func.func @enum_case(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{'Hadamard' is not a valid rot; expected one of none, hadamard, hadamard_butterfly, learned, learned_per_block}}
  mxf.rotate_quant <K = 4096, RS = 64, rot = Hadamard, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : memref<16x4096xbf16>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// -----

func.func @enum_not_a_keyword(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{expected wlayout value, one of plain, preshuffle_16x16}}
  mxf.rotate_quant_gemm <K = 4096, N = 16, RS = 0, rot = none, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain, wlayout = 16>
      x(%x : memref<16x4096xbf16>) w_q(%q : memref<16x2048xi8>) w_s(%s : memref<16x128xi8>) y(%x : memref<16x16xbf16>) rows(%m)
  return
}

// -----

// Keys come in canonical spec order, each once.
func.func @keys_out_of_order(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{expected 'RS'}}
  mxf.rotate_quant <K = 4096, M = 16, RS = 64, rot = hadamard, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : memref<16x4096xbf16>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// -----

func.func @k_out_of_i32(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{integer constant out of range for attribute}}
  mxf.rotate_quant <K = 99999999999, RS = 64, rot = hadamard, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : memref<16x4096xbf16>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// -----

// The generic form: enum attributes are #mxf.<key><value>.
func.func @generic_bad_enum(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+2 {{expected ::mxf::dialect::ElemFormat to be one of: fp4, fp6_e2m3, fp6_e3m2, fp8_e4m3, fp8_e5m2}}
  // expected-error @+1 {{failed to parse Mxf_ElemFormatAttr parameter 'value'}}
  "mxf.rotate_quant"(%x, %q, %s, %m) <{K = 4096 : i32, M = 16 : i32, RS = 64 : i32, fmt = #mxf.fmt<fp5>, inter = #mxf.inter<f32>, layout = #mxf.layout<plain>, rot = #mxf.rot<hadamard>, round = #mxf.round<rne>, scale = #mxf.scale<even>}> : (memref<16x4096xbf16>, memref<16x2048xi8>, memref<16x128xi8>, i32) -> ()
  return
}

// -----

func.func @generic_missing_key(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{'mxf.rotate_quant' op requires attribute 'scale'}}
  "mxf.rotate_quant"(%x, %q, %s, %m) <{K = 4096 : i32, M = 16 : i32, RS = 64 : i32, fmt = #mxf.fmt<fp4>, inter = #mxf.inter<f32>, layout = #mxf.layout<plain>, operandSegmentSizes = array<i32: 1, 0, 0, 0, 1, 1, 1>, rot = #mxf.rot<hadamard>, round = #mxf.round<rne>}> : (memref<16x4096xbf16>, memref<16x2048xi8>, memref<16x128xi8>, i32) -> ()
  return
}

// -----

func.func @generic_enum_of_another_key(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{for op mxf.rotate_quant: Invalid attribute `fmt` in property conversion: #mxf.scale<even>}}
  "mxf.rotate_quant"(%x, %q, %s, %m) <{K = 4096 : i32, M = 16 : i32, RS = 64 : i32, fmt = #mxf.scale<even>, inter = #mxf.inter<f32>, layout = #mxf.layout<plain>, rot = #mxf.rot<hadamard>, round = #mxf.round<rne>, scale = #mxf.scale<even>}> : (memref<16x4096xbf16>, memref<16x2048xi8>, memref<16x128xi8>, i32) -> ()
  return
}

// -----

func.func @generic_tensor(%x: tensor<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{'mxf.rotate_quant' op operand #0 must be memref of any type values, but got 'tensor<16x4096xbf16>'}}
  "mxf.rotate_quant"(%x, %q, %s, %m) <{K = 4096 : i32, M = 16 : i32, RS = 64 : i32, fmt = #mxf.fmt<fp4>, inter = #mxf.inter<f32>, layout = #mxf.layout<plain>, rot = #mxf.rot<hadamard>, operandSegmentSizes = array<i32: 1, 0, 0, 0, 1, 1, 1>, round = #mxf.round<rne>, scale = #mxf.scale<even>}> : (tensor<16x4096xbf16>, memref<16x2048xi8>, memref<16x128xi8>, i32) -> ()
  return
}

// -----

// mxf.spec holds the canonical spec text of the function's kernel.
// expected-error @+1 {{'mxf.spec' must be the canonical spec text "rotate_quant:K=4096,RS=0,rot=none,M=16,fmt=fp4,scale=even,round=rne,inter=f32,layout=plain,arch=gfx950", got "rotate_quant:K=4096"}}
func.func @spec_not_canonical() attributes {mxf.spec = "rotate_quant:K=4096"} {
  return
}

// -----

// expected-error @+1 {{'mxf.spec' = "rotate_quant:K=4096,M=3" is not a valid spec: M=3: M must be one of 1, 2, 4, 8, 16, 32, 64, 128, 256}}
func.func @spec_invalid() attributes {mxf.spec = "rotate_quant:K=4096,M=3"} {
  return
}

// -----

// expected-error @+1 {{'mxf.spec' must be a string holding a kernel spec, got 4096 : i64}}
func.func @spec_not_a_string() attributes {mxf.spec = 4096} {
  return
}

// -----

// expected-error @+1 {{unknown mxf attribute 'mxf.kernel'; the mxf dialect defines only 'mxf.spec'}}
func.func @unknown_mxf_attribute() attributes {mxf.kernel = "rotate_quant:K=4096"} {
  return
}

// -----

func.func @spec_of_another_kernel(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32)
    attributes {mxf.spec = "rotate_quant:K=4096,RS=64,rot=hadamard,M=16,fmt=fp4,scale=floor,round=rne,inter=f32,layout=plain,arch=gfx950"} {
  // expected-error @+1 {{'mxf.rotate_quant' op has spec "rotate_quant:K=4096,RS=64,rot=hadamard,M=16,fmt=fp4,scale=even,round=rne,inter=f32,layout=plain,arch=gfx950" but the enclosing 'func.func' declares mxf.spec = "rotate_quant:K=4096,RS=64,rot=hadamard,M=16,fmt=fp4,scale=floor,round=rne,inter=f32,layout=plain,arch=gfx950"}}
  mxf.rotate_quant <K = 4096, RS = 64, rot = hadamard, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : memref<16x4096xbf16>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}
