; An MFMA and an FP4 scaled convert (the core of rotate+quantize), and a
; scaled MFMA, whose 16-byte encoding the decoder must take as one
; instruction. Arguments: a, b, out (global pointers at 0, 8, 16), scale (f32
; at 24).
target triple = "amdgcn-amd-amdhsa"

declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.bf16(<8 x bfloat>, <8 x bfloat>, <4 x float>, i32, i32, i32)
declare <4 x float> @llvm.amdgcn.mfma.scale.f32.16x16x128.f8f6f4.v8i32.v8i32(<8 x i32>, <8 x i32>, <4 x float>, i32, i32, i32, i32, i32, i32)
declare i32 @llvm.amdgcn.cvt.scalef32.pk.fp4.f32(i32, float, float, float, i32)
declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @mfma_cvt(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %out, float %scale) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %pa = getelementptr <8 x bfloat>, ptr addrspace(1) %a, i32 %tid
  %pb = getelementptr <8 x bfloat>, ptr addrspace(1) %b, i32 %tid
  %va = load <8 x bfloat>, ptr addrspace(1) %pa
  %vb = load <8 x bfloat>, ptr addrspace(1) %pb
  %acc = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.bf16(<8 x bfloat> %va, <8 x bfloat> %vb, <4 x float> zeroinitializer, i32 0, i32 0, i32 0)
  %x0 = extractelement <4 x float> %acc, i32 0
  %x1 = extractelement <4 x float> %acc, i32 1
  %q = call i32 @llvm.amdgcn.cvt.scalef32.pk.fp4.f32(i32 0, float %x0, float %x1, float %scale, i32 0)
  %po = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %q, ptr addrspace(1) %po
  ret void
}

define amdgpu_kernel void @scaled_mfma(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %out, i32 %sa, i32 %sb) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %pa = getelementptr <8 x i32>, ptr addrspace(1) %a, i32 %tid
  %pb = getelementptr <8 x i32>, ptr addrspace(1) %b, i32 %tid
  %va = load <8 x i32>, ptr addrspace(1) %pa
  %vb = load <8 x i32>, ptr addrspace(1) %pb
  ; cbsz = blgp = 4: FP4 operands.
  %acc = call <4 x float> @llvm.amdgcn.mfma.scale.f32.16x16x128.f8f6f4.v8i32.v8i32(<8 x i32> %va, <8 x i32> %vb, <4 x float> zeroinitializer, i32 4, i32 4, i32 0, i32 %sa, i32 0, i32 %sb)
  %po = getelementptr <4 x float>, ptr addrspace(1) %out, i32 %tid
  store <4 x float> %acc, ptr addrspace(1) %po
  ret void
}
