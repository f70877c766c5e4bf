; 64 KiB of LDS and 256-thread workgroups, as code object v5 (module flag
; amdhsa_code_object_version = 500). Occupancy: 160 KiB / 64 KiB = 2
; workgroups per CU x 4 waves = 8 waves per CU = 2 waves per SIMD.
target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
declare void @llvm.amdgcn.s.barrier()

@tile = internal addrspace(3) global [16384 x i32] poison, align 16

define amdgpu_kernel void @lds_reverse(ptr addrspace(1) %data, i32 %n) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %src = getelementptr i32, ptr addrspace(1) %data, i32 %tid
  %v = load i32, ptr addrspace(1) %src
  %slot = getelementptr [16384 x i32], ptr addrspace(3) @tile, i32 0, i32 %tid
  store i32 %v, ptr addrspace(3) %slot
  call void @llvm.amdgcn.s.barrier()
  %rev = sub i32 16383, %tid
  %other = getelementptr [16384 x i32], ptr addrspace(3) @tile, i32 0, i32 %rev
  %w = load i32, ptr addrspace(3) %other
  %sum = add i32 %w, %n
  store i32 %sum, ptr addrspace(1) %src
  ret void
}
attributes #0 = { "amdgpu-flat-work-group-size"="256,256" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
