; write_ids(out, n): out[gid] = gid for gid < n, where gid = workgroup id x *
; hidden_group_size_x + work-item id x; the work-item with gid 0 also writes
; hidden_block_count_x to out[n]. Reading both from the implicit arguments
; checks the runtime's hidden-argument packing end to end in the emulator.
; Code object v5 (module flag below); tests/unit/runtime/kernel_infos.h
; mirrors its metadata.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workgroup.id.x()
declare i32 @llvm.amdgcn.workitem.id.x()
declare ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()

define amdgpu_kernel void @write_ids(ptr addrspace(1) %out, i32 %n) {
entry:
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %implicit = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
  %gsp = getelementptr i8, ptr addrspace(4) %implicit, i64 12
  %gs16 = load i16, ptr addrspace(4) %gsp, align 4
  %gs = zext i16 %gs16 to i32
  %base = mul i32 %wg, %gs
  %gid = add i32 %base, %tid
  %inb = icmp ult i32 %gid, %n
  br i1 %inb, label %store, label %tail
store:
  %idx = zext i32 %gid to i64
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %idx
  store i32 %gid, ptr addrspace(1) %p, align 4
  br label %tail
tail:
  %first = icmp eq i32 %gid, 0
  br i1 %first, label %count, label %done
count:
  %bc = load i32, ptr addrspace(4) %implicit, align 4
  %nidx = zext i32 %n to i64
  %q = getelementptr i32, ptr addrspace(1) %out, i64 %nidx
  store i32 %bc, ptr addrspace(1) %q, align 4
  br label %done
done:
  ret void
}

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
