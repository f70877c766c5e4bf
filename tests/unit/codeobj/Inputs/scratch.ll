; Scratch use two ways: a private array indexed at run time (private_array)
; and register spills forced by a 16-VGPR budget (vgpr_spill).
target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()

; A private array indexed by a runtime value cannot be promoted to registers,
; so it lives in scratch memory.
define amdgpu_kernel void @private_array(ptr addrspace(1) %out, i32 %index) {
entry:
  %buf = alloca [64 x i32], align 4, addrspace(5)
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %fill
fill:
  %i = phi i32 [ 0, %entry ], [ %next, %fill ]
  %slot = getelementptr [64 x i32], ptr addrspace(5) %buf, i32 0, i32 %i
  %v = add i32 %i, %tid
  store volatile i32 %v, ptr addrspace(5) %slot
  %next = add i32 %i, 1
  %done = icmp eq i32 %next, 64
  br i1 %done, label %read, label %fill
read:
  %pick = getelementptr [64 x i32], ptr addrspace(5) %buf, i32 0, i32 %index
  %r = load volatile i32, ptr addrspace(5) %pick
  %po = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %r, ptr addrspace(1) %po
  ret void
}

; Forty live values under a 16-VGPR budget force register spills.
define amdgpu_kernel void @vgpr_spill(ptr addrspace(1) %in, ptr addrspace(1) %out) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr <40 x float>, ptr addrspace(1) %in, i32 %tid
  %v = load volatile <40 x float>, ptr addrspace(1) %p
  %w = load volatile <40 x float>, ptr addrspace(1) %p
  %s = fmul <40 x float> %v, %w
  %q = getelementptr <40 x float>, ptr addrspace(1) %out, i32 %tid
  store volatile <40 x float> %s, ptr addrspace(1) %q
  store volatile <40 x float> %v, ptr addrspace(1) %q
  ret void
}
attributes #0 = { "amdgpu-num-vgpr"="16" }
