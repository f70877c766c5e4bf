// Text that does not parse as an mxf op, ops whose generic form holds no
// spec or another op's, and bad `mxf.spec` function attributes. The keys
// and values of the custom form are the spec's: the spec parser names what
// is wrong with them (spec/kernel_spec.h), as `mxforge spec` would.
// RUN: %mxforge-opt %s --split-input-file --verify-diagnostics

func.func @bad_enum_value(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{custom op 'mxf.rotate_quant' has an invalid spec: fmt=fp5: fmt must be one of fp4, fp6_e2m3, fp6_e3m2, fp8_e4m3, fp8_e5m2}}
  mxf.rotate_quant <K = 4096, RS = 64, rot = hadamard, M = 16, fmt = fp5, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : memref<16x4096xbf16>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// -----

func.func @bad_scale_rule(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{has an invalid spec: scale=round_up: scale must be one of floor, even, rceil, rceil_recip, ceil, even126, a6w6}}
  mxf.rotate_quant <K = 4096, RS = 64, rot = hadamard, M = 16, fmt = fp4, scale = round_up, round = rne, inter = f32, layout = plain>
      x(%x : memref<16x4096xbf16>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// -----

// Spellings are case-sensitive, as in specs.
func.func @enum_case(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{has an invalid spec: rot=Hadamard: rot must be one of none, hadamard, hadamard_butterfly, learned, learned_per_block}}
  mxf.rotate_quant <K = 4096, RS = 64, rot = Hadamard, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : memref<16x4096xbf16>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// -----

func.func @enum_given_a_number(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{has an invalid spec: wlayout=16: wlayout must be one of plain, preshuffle_16x16, w6a16_16x128}}
  mxf.rotate_quant_gemm <K = 4096, N = 16, RS = 0, rot = none, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain, wlayout = 16>
      x(%x : memref<16x4096xbf16>) w_q(%q : memref<16x2048xi8>) w_s(%s : memref<16x128xi8>) y(%x : memref<16x16xbf16>) rows(%m)
  return
}

// -----

// Keys may come in any order, as in spec text, but each once.
func.func @key_twice(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{has an invalid spec: duplicate key 'RS': 'RS=64', then 'RS=32' (give each key once)}}
  mxf.rotate_quant <K = 4096, M = 16, RS = 64, rot = hadamard, RS = 32>
      x(%x : memref<16x4096xbf16>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// -----

func.func @key_of_another_op(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{has an invalid spec: key 'N' (in 'N=16') does not belong to rotate_quant}}
  mxf.rotate_quant <K = 4096, RS = 64, N = 16>
      x(%x : memref<16x4096xbf16>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// -----

func.func @value_not_a_word(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{expected the value of fmt: a decimal number or a word such as fp4}}
  mxf.rotate_quant <K = 4096, RS = 64, fmt = "fp4">
      x(%x : memref<16x4096xbf16>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// -----

func.func @k_too_many_digits(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{has an invalid spec: K=99999999999: K has 11 digits; at most 9 are accepted}}
  mxf.rotate_quant <K = 99999999999, RS = 64, rot = hadamard, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : memref<16x4096xbf16>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// -----

// The generic form holds the spec text; the verifier parses it.
func.func @generic_bad_value(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{'mxf.rotate_quant' op has an invalid spec: fmt=fp5: fmt must be one of fp4, fp6_e2m3, fp6_e3m2, fp8_e4m3, fp8_e5m2}}
  "mxf.rotate_quant"(%x, %q, %s, %m) <{spec = "rotate_quant:K=4096,RS=64,fmt=fp5"}> : (memref<16x4096xbf16>, memref<16x2048xi8>, memref<16x128xi8>, i32) -> ()
  return
}

// -----

func.func @generic_missing_spec(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{'mxf.rotate_quant' op requires attribute 'spec'}}
  "mxf.rotate_quant"(%x, %q, %s, %m) : (memref<16x4096xbf16>, memref<16x2048xi8>, memref<16x128xi8>, i32) -> ()
  return
}

// -----

func.func @generic_spec_of_another_op(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{'mxf.rotate_quant' op holds a quant_weight spec ("quant_weight:K=4096,N=16"); it computes rotate_quant}}
  "mxf.rotate_quant"(%x, %q, %s, %m) <{spec = "quant_weight:K=4096,N=16"}> : (memref<16x4096xbf16>, memref<16x2048xi8>, memref<16x128xi8>, i32) -> ()
  return
}

// -----

func.func @generic_operand_missing(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %m: i32) {
  // expected-error @+1 {{'mxf.rotate_quant' op takes 4 operands for rotate_quant:K=4096,RS=64,rot=hadamard,M=16,fmt=fp4,scale=even,round=rne,inter=f32,layout=plain,arch=gfx950 (x, q, s, rows), got 3}}
  "mxf.rotate_quant"(%x, %q, %m) <{spec = "rotate_quant:K=4096,RS=64"}> : (memref<16x4096xbf16>, memref<16x2048xi8>, i32) -> ()
  return
}

// -----

func.func @generic_tensor(%x: tensor<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{'mxf.rotate_quant' op operand #0 (x) must be memref<16x4096xbf16> for M=16, K=4096 ([M, K]), got tensor<16x4096xbf16>}}
  "mxf.rotate_quant"(%x, %q, %s, %m) <{spec = "rotate_quant:K=4096,RS=64"}> : (tensor<16x4096xbf16>, memref<16x2048xi8>, memref<16x128xi8>, i32) -> ()
  return
}

// -----

func.func @generic_rows_not_i32(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i64) {
  // expected-error @+1 {{'mxf.rotate_quant' op operand #3 (rows) must be i32, the launch's row count, got i64}}
  "mxf.rotate_quant"(%x, %q, %s, %m) <{spec = "rotate_quant:K=4096,RS=64"}> : (memref<16x4096xbf16>, memref<16x2048xi8>, memref<16x128xi8>, i64) -> ()
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
