; Register and LDS pressure set exactly (inline asm clobbers, LDS arrays,
; workgroup-size attributes) so that the occupancy model can be compared
; with llc's own "; Occupancy:" comment for each kernel.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()

; 64 VGPRs: exactly 8 granules of 8 -> 512 / 64 = 8 waves.
define amdgpu_kernel void @vgpr64() {
  call void asm sideeffect "; uses v63", "~{v63}"()
  ret void
}

; 65 VGPRs round up to 72 -> 512 / 72 = 7 waves.
define amdgpu_kernel void @vgpr65() #2 {
  call void asm sideeffect "; uses v64", "~{v64}"()
  ret void
}

; 128 VGPRs -> 4 waves.
define amdgpu_kernel void @vgpr128() #2 {
  call void asm sideeffect "; uses v127", "~{v127}"()
  ret void
}

; 6 arch VGPRs (aligned to 8) + 128 AGPRs = 136 -> 512 / 136 = 3 waves.
define amdgpu_kernel void @agpr128() #2 {
  call void asm sideeffect "; uses v5 a127", "~{v5},~{a127}"()
  ret void
}

; s94 + VCC, flat scratch, XNACK = 101 SGPRs -> 7 waves on gfx9.
define amdgpu_kernel void @sgpr101() {
  call void asm sideeffect "s_mov_b32 s94, 0", "~{s94}"()
  ret void
}

; 576 work-items = 9 waves; 32 wave slots / 9 = 3 workgroups -> 27 waves per
; CU -> 7 per SIMD.
define amdgpu_kernel void @workgroup576() #0 {
  call void asm sideeffect "; nothing", ""()
  ret void
}

@lds40k = internal addrspace(3) global [10240 x i32] poison, align 16

; 40 KiB of LDS and one-wave workgroups: 4 workgroups per CU -> 4 waves per
; CU -> 1 per SIMD.
define amdgpu_kernel void @lds40k_wave64(ptr addrspace(1) %out) #1 {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %slot = getelementptr [10240 x i32], ptr addrspace(3) @lds40k, i32 0, i32 %tid
  store volatile i32 %tid, ptr addrspace(3) %slot
  ret void
}

attributes #0 = { "amdgpu-flat-work-group-size"="576,576" }
attributes #1 = { "amdgpu-flat-work-group-size"="64,64" }
; Without a lower occupancy target (which a 1024-item workgroup would
; force to 4 waves) llc reserves the registers past the budget and warns
; about the clobbers.
attributes #2 = { "amdgpu-flat-work-group-size"="1,64" "amdgpu-waves-per-eu"="1,8" }
