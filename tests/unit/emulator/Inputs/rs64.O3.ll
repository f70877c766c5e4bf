; ModuleID = 'rs64.ll'
source_filename = "LLVMDialectModule"
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128:128:48-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

; Function Attrs: mustprogress nofree norecurse nounwind willreturn memory(argmem: readwrite)
define amdgpu_kernel void @k(ptr readonly captures(none) %0, ptr writeonly captures(none) %1, ptr writeonly captures(none) %2, i32 %3) local_unnamed_addr #0 !reqd_work_group_size !1 {
  %5 = addrspacecast ptr %2 to ptr addrspace(1)
  %6 = addrspacecast ptr %1 to ptr addrspace(1)
  %7 = addrspacecast ptr %0 to ptr addrspace(1)
  %8 = tail call range(i32 0, 256) i32 @llvm.amdgcn.workitem.id.x()
  %9 = zext nneg i32 %8 to i64
  %10 = lshr i64 %9, 6
  %11 = lshr i64 %9, 4
  %12 = and i64 %11, 3
  %13 = and i64 %9, 15
  %14 = tail call i32 @llvm.amdgcn.workgroup.id.x()
  %15 = sext i32 %14 to i64
  %16 = shl nsw i64 %15, 2
  %17 = or disjoint i64 %16, %10
  %18 = tail call i32 @llvm.amdgcn.workgroup.id.y()
  %19 = sext i32 %18 to i64
  %20 = shl nsw i64 %19, 4
  %21 = or disjoint i64 %20, %13
  %22 = sext i32 %3 to i64
  %23 = icmp ult i64 %21, %22
  %24 = icmp eq i64 %12, 0
  %25 = icmp ult i64 %16, 64
  br i1 %25, label %26, label %242

26:                                               ; preds = %4
  %27 = add nsw i64 %22, -1
  %28 = tail call i64 @llvm.umin.i64(i64 %21, i64 %27)
  %29 = shl nuw nsw i64 %12, 3
  %.idx = shl i64 %28, 13
  %30 = getelementptr i8, ptr addrspace(1) %7, i64 %.idx
  %.idx21 = shl nuw nsw i64 %17, 7
  %31 = getelementptr i8, ptr addrspace(1) %30, i64 %.idx21
  %32 = getelementptr bfloat, ptr addrspace(1) %31, i64 %29
  %33 = load <8 x bfloat>, ptr addrspace(1) %32, align 2
  %34 = getelementptr i8, ptr addrspace(1) %32, i64 64
  %35 = load <8 x bfloat>, ptr addrspace(1) %34, align 2
  %36 = trunc nuw nsw i64 %13 to i32
  %37 = trunc nuw nsw i64 %29 to i32
  %38 = and i32 %37, %36
  %39 = or disjoint i32 %37, 1
  %40 = and i32 %39, %36
  %41 = tail call range(i32 0, 3) i32 @llvm.ctpop.i32(i32 %40)
  %42 = insertelement <2 x i32> poison, i32 %38, i64 0
  %43 = insertelement <2 x i32> %42, i32 %41, i64 1
  %44 = or disjoint i32 %37, 2
  %45 = and i32 %44, %36
  %46 = tail call range(i32 0, 3) i32 @llvm.ctpop.i32(i32 %45)
  %47 = or disjoint i32 %37, 3
  %48 = and i32 %47, %36
  %49 = tail call range(i32 0, 4) i32 @llvm.ctpop.i32(i32 %48)
  %50 = insertelement <2 x i32> poison, i32 %46, i64 0
  %51 = insertelement <2 x i32> %50, i32 %49, i64 1
  %52 = or disjoint i32 %37, 4
  %53 = and i32 %52, %36
  %54 = tail call range(i32 0, 3) i32 @llvm.ctpop.i32(i32 %53)
  %55 = or disjoint i32 %37, 5
  %56 = and i32 %55, %36
  %57 = tail call range(i32 0, 4) i32 @llvm.ctpop.i32(i32 %56)
  %58 = insertelement <2 x i32> poison, i32 %54, i64 0
  %59 = insertelement <2 x i32> %58, i32 %57, i64 1
  %60 = or disjoint i32 %37, 6
  %61 = and i32 %60, %36
  %62 = tail call range(i32 0, 4) i32 @llvm.ctpop.i32(i32 %61)
  %63 = or disjoint i32 %37, 7
  %64 = and i32 %63, %36
  %65 = tail call range(i32 0, 5) i32 @llvm.ctpop.i32(i32 %64)
  %66 = insertelement <2 x i32> poison, i32 %62, i64 0
  %67 = insertelement <2 x i32> %66, i32 %65, i64 1
  %68 = shufflevector <2 x i32> %43, <2 x i32> %51, <4 x i32> <i32 0, i32 1, i32 2, i32 3>
  %69 = shufflevector <2 x i32> %59, <2 x i32> %67, <4 x i32> <i32 0, i32 1, i32 2, i32 3>
  %70 = shufflevector <4 x i32> %68, <4 x i32> %69, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
  %71 = trunc <8 x i32> %70 to <8 x i16>
  %72 = shl <8 x i16> %71, <i16 12, i16 15, i16 15, i16 15, i16 15, i16 15, i16 15, i16 15>
  %73 = or disjoint <8 x i16> %72, splat (i16 15872)
  %74 = bitcast <8 x i16> %73 to <8 x bfloat>
  %75 = xor <8 x i16> %73, splat (i16 -32768)
  %76 = bitcast <8 x i16> %75 to <8 x bfloat>
  %77 = or disjoint i32 %36, 16
  %78 = and i32 %77, %37
  %79 = tail call range(i32 0, 3) i32 @llvm.ctpop.i32(i32 %78)
  %80 = and i32 %39, %77
  %81 = tail call range(i32 0, 4) i32 @llvm.ctpop.i32(i32 %80)
  %82 = insertelement <2 x i32> poison, i32 %79, i64 0
  %83 = insertelement <2 x i32> %82, i32 %81, i64 1
  %84 = and i32 %44, %77
  %85 = tail call range(i32 0, 4) i32 @llvm.ctpop.i32(i32 %84)
  %86 = and i32 %47, %77
  %87 = tail call range(i32 0, 5) i32 @llvm.ctpop.i32(i32 %86)
  %88 = insertelement <2 x i32> poison, i32 %85, i64 0
  %89 = insertelement <2 x i32> %88, i32 %87, i64 1
  %90 = and i32 %52, %77
  %91 = tail call range(i32 0, 4) i32 @llvm.ctpop.i32(i32 %90)
  %92 = and i32 %55, %77
  %93 = tail call range(i32 0, 5) i32 @llvm.ctpop.i32(i32 %92)
  %94 = insertelement <2 x i32> poison, i32 %91, i64 0
  %95 = insertelement <2 x i32> %94, i32 %93, i64 1
  %96 = and i32 %60, %77
  %97 = tail call range(i32 0, 5) i32 @llvm.ctpop.i32(i32 %96)
  %98 = and i32 %63, %77
  %99 = tail call range(i32 0, 6) i32 @llvm.ctpop.i32(i32 %98)
  %100 = insertelement <2 x i32> poison, i32 %97, i64 0
  %101 = insertelement <2 x i32> %100, i32 %99, i64 1
  %102 = shufflevector <2 x i32> %83, <2 x i32> %89, <4 x i32> <i32 0, i32 1, i32 2, i32 3>
  %103 = shufflevector <2 x i32> %95, <2 x i32> %101, <4 x i32> <i32 0, i32 1, i32 2, i32 3>
  %104 = shufflevector <4 x i32> %102, <4 x i32> %103, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
  %105 = trunc nuw nsw <8 x i32> %104 to <8 x i16>
  %106 = shl <8 x i16> %105, splat (i16 15)
  %107 = or disjoint <8 x i16> %106, splat (i16 15872)
  %108 = bitcast <8 x i16> %107 to <8 x bfloat>
  %109 = xor <8 x i16> %106, splat (i16 -16896)
  %110 = bitcast <8 x i16> %109 to <8 x bfloat>
  %111 = tail call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.bf16(<8 x bfloat> %74, <8 x bfloat> %33, <4 x float> zeroinitializer, i32 0, i32 0, i32 0)
  %112 = tail call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.bf16(<8 x bfloat> %74, <8 x bfloat> %35, <4 x float> %111, i32 0, i32 0, i32 0)
  %113 = tail call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.bf16(<8 x bfloat> %108, <8 x bfloat> %33, <4 x float> zeroinitializer, i32 0, i32 0, i32 0)
  %114 = tail call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.bf16(<8 x bfloat> %108, <8 x bfloat> %35, <4 x float> %113, i32 0, i32 0, i32 0)
  %115 = shl nuw nsw i64 %17, 1
  %116 = tail call <4 x float> @llvm.fabs.v4f32(<4 x float> %114)
  %117 = tail call <4 x float> @llvm.fabs.v4f32(<4 x float> %112)
  %118 = tail call <4 x float> @llvm.maximum.v4f32(<4 x float> %117, <4 x float> %116)
  %119 = tail call float @llvm.vector.reduce.fmaximum.v4f32(<4 x float> %118)
  %120 = bitcast float %119 to i32
  %121 = tail call { i32, i32 } @llvm.amdgcn.permlane16.swap(i32 %120, i32 %120, i1 false, i1 false)
  %122 = extractvalue { i32, i32 } %121, 0
  %123 = extractvalue { i32, i32 } %121, 1
  %124 = icmp eq i32 %122, %120
  %125 = select i1 %124, i32 %123, i32 %122
  %126 = bitcast i32 %125 to float
  %127 = tail call float @llvm.maximum.f32(float %119, float %126)
  %128 = bitcast float %127 to i32
  %129 = tail call { i32, i32 } @llvm.amdgcn.permlane32.swap(i32 %128, i32 %128, i1 false, i1 false)
  br i1 %23, label %130, label %177

130:                                              ; preds = %26
  %131 = extractvalue { i32, i32 } %129, 0
  %132 = icmp eq i32 %131, %128
  %133 = extractvalue { i32, i32 } %129, 1
  %134 = select i1 %132, i32 %133, i32 %131
  %135 = bitcast i32 %134 to float
  %136 = tail call float @llvm.maximum.f32(float %127, float %135)
  %137 = fcmp uno float %136, 0.000000e+00
  %138 = bitcast float %136 to i32
  %139 = add i32 %138, 2097152
  %140 = icmp ult i32 %139, 8388608
  %141 = lshr i32 %139, 23
  %142 = and i32 %141, 255
  %143 = icmp eq i32 %142, 255
  %144 = tail call i32 @llvm.usub.sat.i32(i32 %142, i32 2)
  %145 = select i1 %143, i32 254, i32 %144
  %146 = select i1 %140, i32 0, i32 %145
  %147 = select i1 %137, i32 255, i32 %146
  %148 = extractelement <4 x float> %112, i64 0
  %149 = extractelement <4 x float> %112, i64 1
  %150 = shl nuw nsw i32 %147, 23
  %151 = bitcast i32 %150 to float
  %152 = tail call i32 @llvm.amdgcn.cvt.scalef32.pk.fp4.f32(i32 0, float %148, float %149, float %151, i32 0)
  %153 = extractelement <4 x float> %112, i64 2
  %154 = extractelement <4 x float> %112, i64 3
  %155 = tail call i32 @llvm.amdgcn.cvt.scalef32.pk.fp4.f32(i32 %152, float %153, float %154, float %151, i32 1)
  %156 = extractelement <4 x float> %114, i64 0
  %157 = extractelement <4 x float> %114, i64 1
  %158 = tail call i32 @llvm.amdgcn.cvt.scalef32.pk.fp4.f32(i32 %155, float %156, float %157, float %151, i32 2)
  %159 = extractelement <4 x float> %114, i64 2
  %160 = extractelement <4 x float> %114, i64 3
  %161 = tail call i32 @llvm.amdgcn.cvt.scalef32.pk.fp4.f32(i32 %158, float %159, float %160, float %151, i32 3)
  %162 = bitcast i32 %161 to <4 x i8>
  %163 = shl nuw nsw i64 %12, 1
  %164 = shl nuw nsw i64 %17, 5
  %165 = shufflevector <4 x i8> %162, <4 x i8> poison, <2 x i32> <i32 0, i32 1>
  %166 = shl nsw i64 %21, 11
  %167 = getelementptr i8, ptr addrspace(1) %6, i64 %166
  %168 = getelementptr i8, ptr addrspace(1) %167, i64 %164
  %169 = getelementptr i8, ptr addrspace(1) %168, i64 %163
  store <2 x i8> %165, ptr addrspace(1) %169, align 1
  %170 = shufflevector <4 x i8> %162, <4 x i8> poison, <2 x i32> <i32 2, i32 3>
  %171 = getelementptr i8, ptr addrspace(1) %169, i64 8
  store <2 x i8> %170, ptr addrspace(1) %171, align 1
  br i1 %24, label %172, label %177

172:                                              ; preds = %130
  %173 = shl nuw nsw i64 %21, 7
  %174 = getelementptr inbounds nuw i8, ptr addrspace(1) %5, i64 %173
  %175 = getelementptr inbounds nuw i8, ptr addrspace(1) %174, i64 %115
  %176 = trunc nuw i32 %147 to i8
  store i8 %176, ptr addrspace(1) %175, align 1
  br label %177

177:                                              ; preds = %130, %172, %26
  %178 = tail call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.bf16(<8 x bfloat> %76, <8 x bfloat> %35, <4 x float> %111, i32 0, i32 0, i32 0)
  %179 = tail call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.bf16(<8 x bfloat> %110, <8 x bfloat> %35, <4 x float> %113, i32 0, i32 0, i32 0)
  %180 = tail call <4 x float> @llvm.fabs.v4f32(<4 x float> %179)
  %181 = tail call <4 x float> @llvm.fabs.v4f32(<4 x float> %178)
  %182 = tail call <4 x float> @llvm.maximum.v4f32(<4 x float> %181, <4 x float> %180)
  %183 = tail call float @llvm.vector.reduce.fmaximum.v4f32(<4 x float> %182)
  %184 = bitcast float %183 to i32
  %185 = tail call { i32, i32 } @llvm.amdgcn.permlane16.swap(i32 %184, i32 %184, i1 false, i1 false)
  %186 = extractvalue { i32, i32 } %185, 0
  %187 = extractvalue { i32, i32 } %185, 1
  %188 = icmp eq i32 %186, %184
  %189 = select i1 %188, i32 %187, i32 %186
  %190 = bitcast i32 %189 to float
  %191 = tail call float @llvm.maximum.f32(float %183, float %190)
  %192 = bitcast float %191 to i32
  %193 = tail call { i32, i32 } @llvm.amdgcn.permlane32.swap(i32 %192, i32 %192, i1 false, i1 false)
  br i1 %23, label %194, label %242

194:                                              ; preds = %177
  %195 = extractvalue { i32, i32 } %193, 0
  %196 = icmp eq i32 %195, %192
  %197 = extractvalue { i32, i32 } %193, 1
  %198 = select i1 %196, i32 %197, i32 %195
  %199 = bitcast i32 %198 to float
  %200 = tail call float @llvm.maximum.f32(float %191, float %199)
  %201 = fcmp uno float %200, 0.000000e+00
  %202 = bitcast float %200 to i32
  %203 = add i32 %202, 2097152
  %204 = icmp ult i32 %203, 8388608
  %205 = lshr i32 %203, 23
  %206 = and i32 %205, 255
  %207 = icmp eq i32 %206, 255
  %208 = tail call i32 @llvm.usub.sat.i32(i32 %206, i32 2)
  %209 = select i1 %207, i32 254, i32 %208
  %210 = select i1 %204, i32 0, i32 %209
  %211 = select i1 %201, i32 255, i32 %210
  %212 = or disjoint i64 %115, 1
  %213 = extractelement <4 x float> %178, i64 0
  %214 = extractelement <4 x float> %178, i64 1
  %215 = shl nuw nsw i32 %211, 23
  %216 = bitcast i32 %215 to float
  %217 = tail call i32 @llvm.amdgcn.cvt.scalef32.pk.fp4.f32(i32 0, float %213, float %214, float %216, i32 0)
  %218 = extractelement <4 x float> %178, i64 2
  %219 = extractelement <4 x float> %178, i64 3
  %220 = tail call i32 @llvm.amdgcn.cvt.scalef32.pk.fp4.f32(i32 %217, float %218, float %219, float %216, i32 1)
  %221 = extractelement <4 x float> %179, i64 0
  %222 = extractelement <4 x float> %179, i64 1
  %223 = tail call i32 @llvm.amdgcn.cvt.scalef32.pk.fp4.f32(i32 %220, float %221, float %222, float %216, i32 2)
  %224 = extractelement <4 x float> %179, i64 2
  %225 = extractelement <4 x float> %179, i64 3
  %226 = tail call i32 @llvm.amdgcn.cvt.scalef32.pk.fp4.f32(i32 %223, float %224, float %225, float %216, i32 3)
  %227 = bitcast i32 %226 to <4 x i8>
  %228 = shl nuw nsw i64 %12, 1
  %229 = shl nuw nsw i64 %212, 4
  %230 = shufflevector <4 x i8> %227, <4 x i8> poison, <2 x i32> <i32 0, i32 1>
  %231 = shl nsw i64 %21, 11
  %232 = getelementptr i8, ptr addrspace(1) %6, i64 %231
  %233 = getelementptr i8, ptr addrspace(1) %232, i64 %229
  %234 = getelementptr i8, ptr addrspace(1) %233, i64 %228
  store <2 x i8> %230, ptr addrspace(1) %234, align 1
  %235 = shufflevector <4 x i8> %227, <4 x i8> poison, <2 x i32> <i32 2, i32 3>
  %236 = getelementptr i8, ptr addrspace(1) %234, i64 8
  store <2 x i8> %235, ptr addrspace(1) %236, align 1
  br i1 %24, label %237, label %242

237:                                              ; preds = %194
  %238 = shl nuw nsw i64 %21, 7
  %239 = getelementptr inbounds nuw i8, ptr addrspace(1) %5, i64 %238
  %240 = getelementptr inbounds nuw i8, ptr addrspace(1) %239, i64 %212
  %241 = trunc nuw i32 %211 to i8
  store i8 %241, ptr addrspace(1) %240, align 1
  br label %242

242:                                              ; preds = %177, %237, %194, %4
  ret void
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.amdgcn.workitem.id.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workgroup.id.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workgroup.id.y() #1

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.umin.i64(i64, i64) #2

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.ctpop.i32(i32) #2

; Function Attrs: convergent mustprogress nocallback nocreateundeforpoison nofree nosync nounwind willreturn memory(none)
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.bf16(<8 x bfloat>, <8 x bfloat>, <4 x float>, i32 immarg, i32 immarg, i32 immarg) #3

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare <4 x float> @llvm.fabs.v4f32(<4 x float>) #2

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare <4 x float> @llvm.maximum.v4f32(<4 x float>, <4 x float>) #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.vector.reduce.fmaximum.v4f32(<4 x float>) #1

; Function Attrs: convergent mustprogress nocallback nofree nounwind willreturn memory(none)
declare { i32, i32 } @llvm.amdgcn.permlane16.swap(i32, i32, i1 immarg, i1 immarg) #4

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.maximum.f32(float, float) #2

; Function Attrs: convergent mustprogress nocallback nofree nounwind willreturn memory(none)
declare { i32, i32 } @llvm.amdgcn.permlane32.swap(i32, i32, i1 immarg, i1 immarg) #4

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.amdgcn.cvt.scalef32.pk.fp4.f32(i32, float, float, float, i32 immarg range(i32 0, 4)) #2

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.usub.sat.i32(i32, i32) #5

attributes #0 = { mustprogress nofree norecurse nounwind willreturn memory(argmem: readwrite) "amdgpu-agpr-alloc"="0" "amdgpu-flat-work-group-size"="256,256" "amdgpu-no-cluster-id-x" "amdgpu-no-cluster-id-y" "amdgpu-no-cluster-id-z" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-dispatch-ptr" "amdgpu-no-flat-scratch-init" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "target-cpu"="gfx950" "uniform-work-group-size"="true" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) "target-cpu"="gfx950" }
attributes #2 = { mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) "target-cpu"="gfx950" }
attributes #3 = { convergent mustprogress nocallback nocreateundeforpoison nofree nosync nounwind willreturn memory(none) "target-cpu"="gfx950" }
attributes #4 = { convergent mustprogress nocallback nofree nounwind willreturn memory(none) "target-cpu"="gfx950" }
attributes #5 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 256, i32 1, i32 1}
