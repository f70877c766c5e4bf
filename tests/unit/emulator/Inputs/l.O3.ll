; ModuleID = 'l.ll'
source_filename = "LLVMDialectModule"
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128:128:48-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@__wg_k_0 = internal addrspace(3) global [4096 x bfloat] undef

; Function Attrs: nofree norecurse nounwind
define amdgpu_kernel void @k(ptr readonly captures(none) %0, ptr readonly captures(none) %1, ptr writeonly captures(none) %2, ptr writeonly captures(none) %3, i32 %4) local_unnamed_addr #0 !reqd_work_group_size !1 {
  %6 = addrspacecast ptr %1 to ptr addrspace(1)
  %7 = addrspacecast ptr %3 to ptr addrspace(1)
  %8 = addrspacecast ptr %2 to ptr addrspace(1)
  %9 = addrspacecast ptr %0 to ptr addrspace(1)
  %10 = tail call range(i32 0, 256) i32 @llvm.amdgcn.workitem.id.x()
  %11 = zext nneg i32 %10 to i64
  br label %12

12:                                               ; preds = %5, %12
  %13 = phi i64 [ %11, %5 ], [ %19, %12 ]
  %14 = shl nuw nsw i64 %13, 3
  %15 = getelementptr bfloat, ptr addrspace(1) %6, i64 %14
  %16 = load <8 x bfloat>, ptr addrspace(1) %15, align 2
  %17 = trunc nuw nsw i64 %14 to i32
  %18 = getelementptr bfloat, ptr addrspace(3) @__wg_k_0, i32 %17
  store <8 x bfloat> %16, ptr addrspace(3) %18, align 16
  %19 = add nuw nsw i64 %13, 256
  %20 = icmp samesign ult i64 %13, 256
  br i1 %20, label %12, label %21

21:                                               ; preds = %12
  %22 = lshr i64 %11, 6
  %23 = lshr i64 %11, 4
  %24 = and i64 %23, 3
  %25 = and i64 %11, 15
  %26 = tail call i32 @llvm.amdgcn.workgroup.id.x()
  %27 = sext i32 %26 to i64
  %28 = shl nsw i64 %27, 2
  %29 = or disjoint i64 %28, %22
  %30 = tail call i32 @llvm.amdgcn.workgroup.id.y()
  %31 = sext i32 %30 to i64
  %32 = shl nsw i64 %31, 4
  %33 = or disjoint i64 %32, %25
  %34 = sext i32 %4 to i64
  %35 = icmp ult i64 %33, %34
  %36 = icmp eq i64 %24, 0
  fence syncscope("workgroup") release
  tail call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %37 = icmp ult i64 %28, 64
  br i1 %37, label %38, label %266

38:                                               ; preds = %21
  %39 = add nsw i64 %34, -1
  %40 = tail call i64 @llvm.umin.i64(i64 %33, i64 %39)
  %41 = shl nuw nsw i64 %24, 3
  %.idx = shl i64 %40, 13
  %42 = getelementptr i8, ptr addrspace(1) %9, i64 %.idx
  %.idx9 = shl nuw nsw i64 %29, 7
  %43 = getelementptr i8, ptr addrspace(1) %42, i64 %.idx9
  %44 = getelementptr bfloat, ptr addrspace(1) %43, i64 %41
  %45 = load <8 x bfloat>, ptr addrspace(1) %44, align 2
  %46 = or disjoint i64 %41, 32
  %47 = getelementptr bfloat, ptr addrspace(1) %43, i64 %46
  %48 = load <8 x bfloat>, ptr addrspace(1) %47, align 2
  %49 = lshr i64 %25, 2
  %50 = shl nuw nsw i64 %11, 2
  %51 = and i64 %50, 12
  %52 = or disjoint i64 %41, %49
  %53 = shl nuw nsw i64 %52, 6
  %54 = or disjoint i64 %53, %51
  %55 = trunc nuw nsw i64 %54 to i32
  %56 = getelementptr bfloat, ptr addrspace(3) @__wg_k_0, i32 %55
  %57 = tail call <4 x bfloat> @llvm.amdgcn.ds.read.tr16.b64.v4bf16(ptr addrspace(3) %56)
  %58 = or disjoint i64 %53, 256
  %59 = or disjoint i64 %58, %51
  %60 = trunc nuw nsw i64 %59 to i32
  %61 = getelementptr bfloat, ptr addrspace(3) @__wg_k_0, i32 %60
  %62 = tail call <4 x bfloat> @llvm.amdgcn.ds.read.tr16.b64.v4bf16(ptr addrspace(3) %61)
  %63 = shufflevector <4 x bfloat> %57, <4 x bfloat> %62, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
  %64 = tail call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.bf16(<8 x bfloat> %63, <8 x bfloat> %45, <4 x float> zeroinitializer, i32 0, i32 0, i32 0)
  %65 = or disjoint i64 %46, %49
  %66 = shl nuw nsw i64 %65, 6
  %67 = or disjoint i64 %66, %51
  %68 = trunc nuw nsw i64 %67 to i32
  %69 = getelementptr bfloat, ptr addrspace(3) @__wg_k_0, i32 %68
  %70 = tail call <4 x bfloat> @llvm.amdgcn.ds.read.tr16.b64.v4bf16(ptr addrspace(3) %69)
  %71 = or disjoint i64 %53, 2304
  %72 = or disjoint i64 %71, %51
  %73 = trunc nuw nsw i64 %72 to i32
  %74 = getelementptr bfloat, ptr addrspace(3) @__wg_k_0, i32 %73
  %75 = tail call <4 x bfloat> @llvm.amdgcn.ds.read.tr16.b64.v4bf16(ptr addrspace(3) %74)
  %76 = shufflevector <4 x bfloat> %70, <4 x bfloat> %75, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
  %77 = tail call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.bf16(<8 x bfloat> %76, <8 x bfloat> %48, <4 x float> %64, i32 0, i32 0, i32 0)
  %78 = or disjoint i64 %51, 16
  %79 = or disjoint i64 %53, %78
  %80 = trunc nuw nsw i64 %79 to i32
  %81 = getelementptr bfloat, ptr addrspace(3) @__wg_k_0, i32 %80
  %82 = tail call <4 x bfloat> @llvm.amdgcn.ds.read.tr16.b64.v4bf16(ptr addrspace(3) %81)
  %83 = or disjoint i64 %58, %78
  %84 = trunc nuw nsw i64 %83 to i32
  %85 = getelementptr bfloat, ptr addrspace(3) @__wg_k_0, i32 %84
  %86 = tail call <4 x bfloat> @llvm.amdgcn.ds.read.tr16.b64.v4bf16(ptr addrspace(3) %85)
  %87 = shufflevector <4 x bfloat> %82, <4 x bfloat> %86, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
  %88 = tail call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.bf16(<8 x bfloat> %87, <8 x bfloat> %45, <4 x float> zeroinitializer, i32 0, i32 0, i32 0)
  %89 = or disjoint i64 %66, %78
  %90 = trunc nuw nsw i64 %89 to i32
  %91 = getelementptr bfloat, ptr addrspace(3) @__wg_k_0, i32 %90
  %92 = tail call <4 x bfloat> @llvm.amdgcn.ds.read.tr16.b64.v4bf16(ptr addrspace(3) %91)
  %93 = or disjoint i64 %71, %78
  %94 = trunc nuw nsw i64 %93 to i32
  %95 = getelementptr bfloat, ptr addrspace(3) @__wg_k_0, i32 %94
  %96 = tail call <4 x bfloat> @llvm.amdgcn.ds.read.tr16.b64.v4bf16(ptr addrspace(3) %95)
  %97 = shufflevector <4 x bfloat> %92, <4 x bfloat> %96, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
  %98 = tail call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.bf16(<8 x bfloat> %97, <8 x bfloat> %48, <4 x float> %88, i32 0, i32 0, i32 0)
  %99 = shl nuw nsw i64 %29, 1
  %100 = tail call <4 x float> @llvm.fabs.v4f32(<4 x float> %98)
  %101 = tail call <4 x float> @llvm.fabs.v4f32(<4 x float> %77)
  %102 = tail call <4 x float> @llvm.maximum.v4f32(<4 x float> %101, <4 x float> %100)
  %103 = tail call float @llvm.vector.reduce.fmaximum.v4f32(<4 x float> %102)
  %104 = bitcast float %103 to i32
  %105 = tail call { i32, i32 } @llvm.amdgcn.permlane16.swap(i32 %104, i32 %104, i1 false, i1 false)
  %106 = extractvalue { i32, i32 } %105, 0
  %107 = extractvalue { i32, i32 } %105, 1
  %108 = icmp eq i32 %106, %104
  %109 = select i1 %108, i32 %107, i32 %106
  %110 = bitcast i32 %109 to float
  %111 = tail call float @llvm.maximum.f32(float %103, float %110)
  %112 = bitcast float %111 to i32
  %113 = tail call { i32, i32 } @llvm.amdgcn.permlane32.swap(i32 %112, i32 %112, i1 false, i1 false)
  br i1 %35, label %114, label %161

114:                                              ; preds = %38
  %115 = extractvalue { i32, i32 } %113, 0
  %116 = icmp eq i32 %115, %112
  %117 = extractvalue { i32, i32 } %113, 1
  %118 = select i1 %116, i32 %117, i32 %115
  %119 = bitcast i32 %118 to float
  %120 = tail call float @llvm.maximum.f32(float %111, float %119)
  %121 = fcmp uno float %120, 0.000000e+00
  %122 = bitcast float %120 to i32
  %123 = add i32 %122, 2097152
  %124 = icmp ult i32 %123, 8388608
  %125 = lshr i32 %123, 23
  %126 = and i32 %125, 255
  %127 = icmp eq i32 %126, 255
  %128 = tail call i32 @llvm.usub.sat.i32(i32 %126, i32 2)
  %129 = select i1 %127, i32 254, i32 %128
  %130 = select i1 %124, i32 0, i32 %129
  %131 = select i1 %121, i32 255, i32 %130
  %132 = extractelement <4 x float> %77, i64 0
  %133 = extractelement <4 x float> %77, i64 1
  %134 = shl nuw nsw i32 %131, 23
  %135 = bitcast i32 %134 to float
  %136 = tail call i32 @llvm.amdgcn.cvt.scalef32.pk.fp4.f32(i32 0, float %132, float %133, float %135, i32 0)
  %137 = extractelement <4 x float> %77, i64 2
  %138 = extractelement <4 x float> %77, i64 3
  %139 = tail call i32 @llvm.amdgcn.cvt.scalef32.pk.fp4.f32(i32 %136, float %137, float %138, float %135, i32 1)
  %140 = extractelement <4 x float> %98, i64 0
  %141 = extractelement <4 x float> %98, i64 1
  %142 = tail call i32 @llvm.amdgcn.cvt.scalef32.pk.fp4.f32(i32 %139, float %140, float %141, float %135, i32 2)
  %143 = extractelement <4 x float> %98, i64 2
  %144 = extractelement <4 x float> %98, i64 3
  %145 = tail call i32 @llvm.amdgcn.cvt.scalef32.pk.fp4.f32(i32 %142, float %143, float %144, float %135, i32 3)
  %146 = bitcast i32 %145 to <4 x i8>
  %147 = shl nuw nsw i64 %24, 1
  %148 = shl nuw nsw i64 %29, 5
  %149 = shufflevector <4 x i8> %146, <4 x i8> poison, <2 x i32> <i32 0, i32 1>
  %150 = shl nsw i64 %33, 11
  %151 = getelementptr i8, ptr addrspace(1) %8, i64 %150
  %152 = getelementptr i8, ptr addrspace(1) %151, i64 %148
  %153 = getelementptr i8, ptr addrspace(1) %152, i64 %147
  store <2 x i8> %149, ptr addrspace(1) %153, align 1
  %154 = shufflevector <4 x i8> %146, <4 x i8> poison, <2 x i32> <i32 2, i32 3>
  %155 = getelementptr i8, ptr addrspace(1) %153, i64 8
  store <2 x i8> %154, ptr addrspace(1) %155, align 1
  br i1 %36, label %156, label %161

156:                                              ; preds = %114
  %157 = shl nuw nsw i64 %33, 7
  %158 = getelementptr inbounds nuw i8, ptr addrspace(1) %7, i64 %157
  %159 = getelementptr inbounds nuw i8, ptr addrspace(1) %158, i64 %99
  %160 = trunc nuw i32 %131 to i8
  store i8 %160, ptr addrspace(1) %159, align 1
  br label %161

161:                                              ; preds = %114, %156, %38
  %162 = or disjoint i64 %51, 32
  %163 = or disjoint i64 %53, %162
  %164 = trunc nuw nsw i64 %163 to i32
  %165 = getelementptr bfloat, ptr addrspace(3) @__wg_k_0, i32 %164
  %166 = tail call <4 x bfloat> @llvm.amdgcn.ds.read.tr16.b64.v4bf16(ptr addrspace(3) %165)
  %167 = or disjoint i64 %58, %162
  %168 = trunc nuw nsw i64 %167 to i32
  %169 = getelementptr bfloat, ptr addrspace(3) @__wg_k_0, i32 %168
  %170 = tail call <4 x bfloat> @llvm.amdgcn.ds.read.tr16.b64.v4bf16(ptr addrspace(3) %169)
  %171 = shufflevector <4 x bfloat> %166, <4 x bfloat> %170, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
  %172 = tail call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.bf16(<8 x bfloat> %171, <8 x bfloat> %45, <4 x float> zeroinitializer, i32 0, i32 0, i32 0)
  %173 = or disjoint i64 %66, %162
  %174 = trunc nuw nsw i64 %173 to i32
  %175 = getelementptr bfloat, ptr addrspace(3) @__wg_k_0, i32 %174
  %176 = tail call <4 x bfloat> @llvm.amdgcn.ds.read.tr16.b64.v4bf16(ptr addrspace(3) %175)
  %177 = or disjoint i64 %71, %162
  %178 = trunc nuw nsw i64 %177 to i32
  %179 = getelementptr bfloat, ptr addrspace(3) @__wg_k_0, i32 %178
  %180 = tail call <4 x bfloat> @llvm.amdgcn.ds.read.tr16.b64.v4bf16(ptr addrspace(3) %179)
  %181 = shufflevector <4 x bfloat> %176, <4 x bfloat> %180, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
  %182 = tail call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.bf16(<8 x bfloat> %181, <8 x bfloat> %48, <4 x float> %172, i32 0, i32 0, i32 0)
  %183 = or disjoint i64 %51, 48
  %184 = or disjoint i64 %53, %183
  %185 = trunc nuw nsw i64 %184 to i32
  %186 = getelementptr bfloat, ptr addrspace(3) @__wg_k_0, i32 %185
  %187 = tail call <4 x bfloat> @llvm.amdgcn.ds.read.tr16.b64.v4bf16(ptr addrspace(3) %186)
  %188 = or disjoint i64 %58, %183
  %189 = trunc nuw nsw i64 %188 to i32
  %190 = getelementptr bfloat, ptr addrspace(3) @__wg_k_0, i32 %189
  %191 = tail call <4 x bfloat> @llvm.amdgcn.ds.read.tr16.b64.v4bf16(ptr addrspace(3) %190)
  %192 = shufflevector <4 x bfloat> %187, <4 x bfloat> %191, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
  %193 = tail call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.bf16(<8 x bfloat> %192, <8 x bfloat> %45, <4 x float> zeroinitializer, i32 0, i32 0, i32 0)
  %194 = or disjoint i64 %66, %183
  %195 = trunc nuw nsw i64 %194 to i32
  %196 = getelementptr bfloat, ptr addrspace(3) @__wg_k_0, i32 %195
  %197 = tail call <4 x bfloat> @llvm.amdgcn.ds.read.tr16.b64.v4bf16(ptr addrspace(3) %196)
  %198 = or disjoint i64 %71, %183
  %199 = trunc nuw nsw i64 %198 to i32
  %200 = getelementptr bfloat, ptr addrspace(3) @__wg_k_0, i32 %199
  %201 = tail call <4 x bfloat> @llvm.amdgcn.ds.read.tr16.b64.v4bf16(ptr addrspace(3) %200)
  %202 = shufflevector <4 x bfloat> %197, <4 x bfloat> %201, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
  %203 = tail call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.bf16(<8 x bfloat> %202, <8 x bfloat> %48, <4 x float> %193, i32 0, i32 0, i32 0)
  %204 = tail call <4 x float> @llvm.fabs.v4f32(<4 x float> %203)
  %205 = tail call <4 x float> @llvm.fabs.v4f32(<4 x float> %182)
  %206 = tail call <4 x float> @llvm.maximum.v4f32(<4 x float> %205, <4 x float> %204)
  %207 = tail call float @llvm.vector.reduce.fmaximum.v4f32(<4 x float> %206)
  %208 = bitcast float %207 to i32
  %209 = tail call { i32, i32 } @llvm.amdgcn.permlane16.swap(i32 %208, i32 %208, i1 false, i1 false)
  %210 = extractvalue { i32, i32 } %209, 0
  %211 = extractvalue { i32, i32 } %209, 1
  %212 = icmp eq i32 %210, %208
  %213 = select i1 %212, i32 %211, i32 %210
  %214 = bitcast i32 %213 to float
  %215 = tail call float @llvm.maximum.f32(float %207, float %214)
  %216 = bitcast float %215 to i32
  %217 = tail call { i32, i32 } @llvm.amdgcn.permlane32.swap(i32 %216, i32 %216, i1 false, i1 false)
  br i1 %35, label %218, label %266

218:                                              ; preds = %161
  %219 = extractvalue { i32, i32 } %217, 0
  %220 = icmp eq i32 %219, %216
  %221 = extractvalue { i32, i32 } %217, 1
  %222 = select i1 %220, i32 %221, i32 %219
  %223 = bitcast i32 %222 to float
  %224 = tail call float @llvm.maximum.f32(float %215, float %223)
  %225 = fcmp uno float %224, 0.000000e+00
  %226 = bitcast float %224 to i32
  %227 = add i32 %226, 2097152
  %228 = icmp ult i32 %227, 8388608
  %229 = lshr i32 %227, 23
  %230 = and i32 %229, 255
  %231 = icmp eq i32 %230, 255
  %232 = tail call i32 @llvm.usub.sat.i32(i32 %230, i32 2)
  %233 = select i1 %231, i32 254, i32 %232
  %234 = select i1 %228, i32 0, i32 %233
  %235 = select i1 %225, i32 255, i32 %234
  %236 = or disjoint i64 %99, 1
  %237 = extractelement <4 x float> %182, i64 0
  %238 = extractelement <4 x float> %182, i64 1
  %239 = shl nuw nsw i32 %235, 23
  %240 = bitcast i32 %239 to float
  %241 = tail call i32 @llvm.amdgcn.cvt.scalef32.pk.fp4.f32(i32 0, float %237, float %238, float %240, i32 0)
  %242 = extractelement <4 x float> %182, i64 2
  %243 = extractelement <4 x float> %182, i64 3
  %244 = tail call i32 @llvm.amdgcn.cvt.scalef32.pk.fp4.f32(i32 %241, float %242, float %243, float %240, i32 1)
  %245 = extractelement <4 x float> %203, i64 0
  %246 = extractelement <4 x float> %203, i64 1
  %247 = tail call i32 @llvm.amdgcn.cvt.scalef32.pk.fp4.f32(i32 %244, float %245, float %246, float %240, i32 2)
  %248 = extractelement <4 x float> %203, i64 2
  %249 = extractelement <4 x float> %203, i64 3
  %250 = tail call i32 @llvm.amdgcn.cvt.scalef32.pk.fp4.f32(i32 %247, float %248, float %249, float %240, i32 3)
  %251 = bitcast i32 %250 to <4 x i8>
  %252 = shl nuw nsw i64 %24, 1
  %253 = shl nuw nsw i64 %236, 4
  %254 = shufflevector <4 x i8> %251, <4 x i8> poison, <2 x i32> <i32 0, i32 1>
  %255 = shl nsw i64 %33, 11
  %256 = getelementptr i8, ptr addrspace(1) %8, i64 %255
  %257 = getelementptr i8, ptr addrspace(1) %256, i64 %253
  %258 = getelementptr i8, ptr addrspace(1) %257, i64 %252
  store <2 x i8> %254, ptr addrspace(1) %258, align 1
  %259 = shufflevector <4 x i8> %251, <4 x i8> poison, <2 x i32> <i32 2, i32 3>
  %260 = getelementptr i8, ptr addrspace(1) %258, i64 8
  store <2 x i8> %259, ptr addrspace(1) %260, align 1
  br i1 %36, label %261, label %266

261:                                              ; preds = %218
  %262 = shl nuw nsw i64 %33, 7
  %263 = getelementptr inbounds nuw i8, ptr addrspace(1) %7, i64 %262
  %264 = getelementptr inbounds nuw i8, ptr addrspace(1) %263, i64 %236
  %265 = trunc nuw i32 %235 to i8
  store i8 %265, ptr addrspace(1) %264, align 1
  br label %266

266:                                              ; preds = %161, %261, %218, %21
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

; Function Attrs: convergent mustprogress nocallback nofree nounwind willreturn
declare void @llvm.amdgcn.s.barrier() #3

; Function Attrs: convergent mustprogress nocallback nofree nounwind willreturn memory(argmem: read)
declare <4 x bfloat> @llvm.amdgcn.ds.read.tr16.b64.v4bf16(ptr addrspace(3) captures(none)) #4

; Function Attrs: convergent mustprogress nocallback nocreateundeforpoison nofree nosync nounwind willreturn memory(none)
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.bf16(<8 x bfloat>, <8 x bfloat>, <4 x float>, i32 immarg, i32 immarg, i32 immarg) #5

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare <4 x float> @llvm.fabs.v4f32(<4 x float>) #2

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare <4 x float> @llvm.maximum.v4f32(<4 x float>, <4 x float>) #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.vector.reduce.fmaximum.v4f32(<4 x float>) #1

; Function Attrs: convergent mustprogress nocallback nofree nounwind willreturn memory(none)
declare { i32, i32 } @llvm.amdgcn.permlane16.swap(i32, i32, i1 immarg, i1 immarg) #6

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.maximum.f32(float, float) #2

; Function Attrs: convergent mustprogress nocallback nofree nounwind willreturn memory(none)
declare { i32, i32 } @llvm.amdgcn.permlane32.swap(i32, i32, i1 immarg, i1 immarg) #6

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.amdgcn.cvt.scalef32.pk.fp4.f32(i32, float, float, float, i32 immarg range(i32 0, 4)) #2

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.usub.sat.i32(i32, i32) #7

attributes #0 = { nofree norecurse nounwind "amdgpu-agpr-alloc"="0" "amdgpu-flat-work-group-size"="256,256" "amdgpu-no-cluster-id-x" "amdgpu-no-cluster-id-y" "amdgpu-no-cluster-id-z" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-dispatch-ptr" "amdgpu-no-flat-scratch-init" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "target-cpu"="gfx950" "uniform-work-group-size"="true" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) "target-cpu"="gfx950" }
attributes #2 = { mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) "target-cpu"="gfx950" }
attributes #3 = { convergent mustprogress nocallback nofree nounwind willreturn "target-cpu"="gfx950" }
attributes #4 = { convergent mustprogress nocallback nofree nounwind willreturn memory(argmem: read) "target-cpu"="gfx950" }
attributes #5 = { convergent mustprogress nocallback nocreateundeforpoison nofree nosync nounwind willreturn memory(none) "target-cpu"="gfx950" }
attributes #6 = { convergent mustprogress nocallback nofree nounwind willreturn memory(none) "target-cpu"="gfx950" }
attributes #7 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 256, i32 1, i32 1}
