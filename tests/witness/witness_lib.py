"""Case machinery of the witness corpus (tests/witness/README.md).

A Case names a Triton kernel, its grid, its arguments (buffers and scalars, in the
kernel's parameter order) and its constexprs/launch options. `build_case` then
  1. launches it on the local CUDA GPU through Triton (out-only buffers pre-filled
     with 0xA5 bytes) and keeps every written buffer's bytes,
  2. compiles the same kernel for gfx950 with the specialization a HIP launch of the
     same arguments would get (Triton's own binder, run with the HIP backend), checks
     that signature and constexprs equal those of the CUDA launch's ASTSource,
  3. writes corpus/<case>/: launch.json, input .npy files, kernel.hsaco, expected_*.npy,
     after checking launch.json's argument list against the hsaco's own metadata.
"""

import json
import os
import time
import traceback

import numpy as np

import hsaco_meta

POISON = 0xA5
DEVICE = "cuda"  # tests of this file's pure-Python parts set "cpu"


# ----------------------------------------------------------------------------- arguments

class Buf:
    """A device buffer argument. `data` is a CPU torch tensor (contiguous) holding the
    input bytes, or None for an out-only buffer of `shape`/`dtype`. `view`, if given,
    maps the CUDA base tensor to the tensor actually passed (a transposed or strided
    view of the same storage, starting at its first byte)."""

    def __init__(self, name, data=None, shape=None, dtype=None, out=False, view=None):
        self.name = name
        self.data = data
        self.shape = tuple(shape) if shape is not None else (tuple(data.shape) if data is not None else None)
        self.dtype = dtype if dtype is not None else (data.dtype if data is not None else None)
        self.is_in = data is not None
        self.is_out = out or data is None
        self.view = view

    def __repr__(self):
        return "Buf(%s)" % self.name


def In(name, data, view=None):
    return Buf(name, data=data.contiguous(), view=view)


def Out(name, shape, dtype, view=None):
    return Buf(name, shape=shape, dtype=dtype, out=True, view=view)


def InOut(name, data, view=None):
    return Buf(name, data=data.contiguous(), out=True, view=view)


class Case:
    def __init__(self, name, kernel, grid, args, constexprs=None, hip_options=None, cuda_options=None,
                 source="", shape=None, compare=None, check=None, notes=None):
        self.name = name
        self.kernel = kernel
        self.grid = tuple(grid) + (1,) * (3 - len(grid))
        self.args = list(args)              # positional, in the kernel's parameter order
        self.constexprs = dict(constexprs or {})  # keyword args: constexprs and shared launch options
        self.hip_options = dict(hip_options or {})   # only for the gfx950 compile (waves_per_eu, ...)
        self.cuda_options = dict(cuda_options or {})  # only for the CUDA launch
        self.source = source
        self.shape = shape or {}
        self.compare = compare or {}        # buffer name -> compare spec; default {"kind": "bytes"}
        self.check = check                  # fn(dict name -> CPU tensor after the run) -> (ok, message)
        self.notes = notes


# ----------------------------------------------------------------------------- helpers

def torch_to_numpy_bytes(t):
    """Typed numpy array of a CPU tensor (bf16 as uint16, fp8 as uint8): the raw bytes, C order."""
    import torch
    t = t.contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.uint16).numpy() if hasattr(torch, "uint16") and _has_uint16_view() else \
            t.view(torch.int16).numpy().view(np.uint16)
    if t.dtype in _fp8_dtypes():
        return t.view(torch.uint8).numpy()
    return t.numpy()


def _has_uint16_view():
    import torch
    try:
        torch.zeros(1, dtype=torch.bfloat16).view(torch.uint16).numpy()
        return True
    except Exception:
        return False


def _fp8_dtypes():
    import torch
    out = []
    for n in ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"):
        if hasattr(torch, n):
            out.append(getattr(torch, n))
    return tuple(out)


def storage_bytes(t):
    """All bytes of a buffer tensor (contiguous, the whole allocation) as a 1-d uint8 numpy array."""
    import torch
    assert t.is_contiguous() and t.storage_offset() == 0
    return t.reshape(-1).view(torch.uint8).numpy().copy()


def buffer_nbytes(t):
    return t.numel() * t.element_size()


def f32_repr(v):
    return float(np.float32(v))


# ----------------------------------------------------------------------------- Triton glue

def unwrap_kernel(kernel, args, kwargs):
    """Applies @triton.heuristics wrappers (as Heuristics.run does) and returns the JITFunction."""
    from triton.runtime.jit import JITFunction
    k = kernel
    kwargs = dict(kwargs)
    while not isinstance(k, JITFunction):
        if hasattr(k, "values") and hasattr(k, "fn") and hasattr(k, "arg_names"):
            full = {**dict(zip(k.arg_names, args)), **kwargs}
            for v, heur in k.values.items():
                kwargs[v] = heur(full)
                full[v] = kwargs[v]
            k = k.fn
        elif hasattr(k, "fn"):
            raise TypeError("autotuned kernels are not supported in the corpus: %r" % (k,))
        else:
            raise TypeError("not a Triton kernel: %r" % (k,))
    return k, kwargs


def hip_target():
    from triton.backends.compiler import GPUTarget
    return GPUTarget("hip", "gfx950", 64)


def hip_specialization(jit, cuda_args, kwargs, log):
    """(signature, constexprs, attrs, how) that a launch with these arguments would get from the
    HIP backend (run() of runtime/jit.py with the HIP backend's binder)."""
    import triton.runtime.jit as J
    from triton._utils import find_paths_if, get_iterable_path
    from triton.compiler import make_backend
    backend = make_backend(hip_target())
    binder = J.create_function_from_signature(jit.signature, jit.params, backend)
    bound_args, specialization, options = binder(*cuda_args, **kwargs)
    sigkeys = [x.name for x in jit.params]
    sigvals = [x[0] for x in specialization]
    signature = {k: v for (k, v) in zip(sigkeys, sigvals)}
    constexprs = find_paths_if(sigvals, lambda _, val: val == "constexpr")
    constexprs = {path: get_iterable_path(list(bound_args.values()), path) for path in constexprs}
    attrvals = [x[1] for x in specialization]
    attrs = find_paths_if(attrvals, lambda _, x: isinstance(x, str))
    attrs = {k: backend.parse_attr(get_iterable_path(attrvals, k)) for k in attrs}
    return signature, constexprs, attrs, "hip_binder"


def src_constants(src):
    """An ASTSource's constexprs by parameter path (Triton 3.x keeps them in .constants)."""
    for a in ("constants", "constexprs"):
        if hasattr(src, a):
            return dict(getattr(src, a))
    raise AttributeError("ASTSource has neither .constants nor .constexprs")


def hip_specialization_from_cuda(ck_src, cuda_args_by_name, log):
    """Fallback: the CUDA launch's ASTSource as it is (signature, constexprs, attrs)."""
    import copy
    return dict(ck_src.signature), src_constants(ck_src), copy.deepcopy(dict(ck_src.attrs)), "cuda_src"


def _norm(obj):
    """A comparable/JSON-able form of signatures, constexprs and attrs."""
    if isinstance(obj, dict):
        return {str(k): _norm(v) for k, v in sorted(obj.items(), key=lambda kv: str(kv[0]))}
    if isinstance(obj, (list, tuple)):
        return [_norm(v) for v in obj]
    if isinstance(obj, (int, float, str, bool)) or obj is None:
        return obj
    return repr(obj)


# ----------------------------------------------------------------------------- the build

ARG_SIZES = {"i1": 1, "u1": 1, "i8": 1, "u8": 1, "i16": 2, "u16": 2, "i32": 4, "u32": 4, "i64": 8, "u64": 8,
             "fp16": 2, "bf16": 2, "fp32": 4, "f32": 4, "fp64": 8}


def build_case(case, out_root, log):
    import torch
    import triton

    t0 = time.time()
    case_dir = os.path.join(out_root, case.name)
    os.makedirs(case_dir, exist_ok=True)

    # ---- CUDA run
    dev = torch.device(DEVICE)
    cuda_args = []
    bases = {}
    for a in case.args:
        if isinstance(a, Buf):
            if a.is_in:
                base = a.data.to(dev)
            else:
                nbytes = int(np.prod(a.shape)) * torch.empty(0, dtype=a.dtype).element_size()
                base = torch.full((nbytes,), POISON, dtype=torch.uint8, device=dev).view(a.dtype).view(a.shape)
            assert base.is_contiguous() and base.storage_offset() == 0
            bases[a.name] = base
            t = a.view(base) if a.view is not None else base
            assert t.data_ptr() == base.data_ptr(), "a view must start at its buffer's first byte"
            cuda_args.append(t)
        else:
            cuda_args.append(a)

    kwargs = dict(case.constexprs)
    jit, kwargs = unwrap_kernel(case.kernel, cuda_args, kwargs)
    cuda_kwargs = dict(kwargs, **case.cuda_options)
    ck = jit[case.grid](*cuda_args, **cuda_kwargs)
    if DEVICE == "cuda":
        torch.cuda.synchronize()
    t_cuda = time.time() - t0

    after = {n: b.cpu() for n, b in bases.items()}
    src = getattr(ck, "src", None)
    if src is None:
        raise RuntimeError("the CUDA CompiledKernel has no .src")
    names = [p.name for p in jit.params]
    args_by_name = dict(zip(names, cuda_args))
    values_by_name = dict(zip(names, case.args))
    for k, v in kwargs.items():
        if k in names and k not in values_by_name:
            values_by_name[k] = v
            args_by_name[k] = v

    # ---- reference check on the H200's results
    check_result = None
    if case.check is not None:
        try:
            ok, msg = case.check(after)
            check_result = {"ok": bool(ok), "message": str(msg)}
        except Exception as e:
            check_result = {"ok": None, "message": "the check raised %s: %s" % (type(e).__name__, e)}
        log("  reference check: %s %s" % ({True: "ok", False: "MISMATCH", None: "ERROR"}[check_result["ok"]],
                                          check_result["message"]))

    # ---- gfx950 compile with the HIP specialization of the same arguments
    try:
        signature, constexprs, attrs, how = hip_specialization(jit, cuda_args, kwargs, log)
    except Exception as e:  # Triton internals moved: fall back to the CUDA source's
        log("  hip binder unavailable (%s: %s); using the CUDA ASTSource" % (type(e).__name__, e))
        signature, constexprs, attrs, how = hip_specialization_from_cuda(src, args_by_name, log)
    if _norm(signature) != _norm(src.signature):
        raise RuntimeError("HIP signature %s differs from the CUDA launch's %s" % (_norm(signature), _norm(src.signature)))
    constexprs_match = _norm(constexprs) == _norm(src_constants(src))
    if not constexprs_match:
        log("  WARNING: HIP constexprs %s differ from the CUDA launch's %s" % (_norm(constexprs), _norm(src_constants(src))))
    from triton.compiler import ASTSource
    hsrc = ASTSource(jit, signature, constexprs, attrs)
    hip_opts = {k: v for k, v in kwargs.items() if k in _hip_option_names()}
    hip_opts.update(case.hip_options)
    hk = triton.compile(hsrc, target=hip_target(), options=hip_opts)
    hsaco = hk.asm["hsaco"]
    md = hk.metadata
    kname = md.name
    t_hip = time.time() - t0 - t_cuda

    # ---- argument list in kernarg order
    summary = hsaco_meta.kernel_summary(hsaco, kname)
    largs = []
    expected = {}
    compare = {}
    in_files = {}
    explicit_types = []
    for i, n in enumerate(names):
        ty = signature[n]
        if ty == "constexpr":
            continue
        a = values_by_name.get(n)
        if isinstance(ty, str) and ty.startswith("*"):
            if not isinstance(a, Buf):
                raise RuntimeError("pointer parameter %s has no Buf" % n)
            entry = {"buffer": a.name}
            if a.is_in:
                fn = "%s.npy" % a.name
                np.save(os.path.join(case_dir, fn), torch_to_numpy_bytes(a.data))
                entry["in"] = fn
                in_files[a.name] = fn
            if a.is_out:
                entry["out"] = "out_%s.npy" % a.name
                if not a.is_in:
                    entry["bytes"] = int(buffer_nbytes(bases[a.name]))
                ex = "expected_%s.npy" % a.name
                np.save(os.path.join(case_dir, ex), storage_bytes(after[a.name]))
                expected[a.name] = ex
                compare[a.name] = case.compare.get(a.name, {"kind": "bytes"})
            largs.append(entry)
            explicit_types.append(("ptr", 8))
        elif ty in ("i32",):
            largs.append({"i32": int(a)})
            explicit_types.append((ty, 4))
        elif ty in ("u32",):
            largs.append({"u32": int(a)})
            explicit_types.append((ty, 4))
        elif ty in ("i64",):
            largs.append({"i64": int(a)})
            explicit_types.append((ty, 8))
        elif ty in ("u64",):
            largs.append({"u64": int(a)})
            explicit_types.append((ty, 8))
        elif ty in ("fp32",):
            largs.append({"f32": f32_repr(a)})
            explicit_types.append((ty, 4))
        else:
            raise RuntimeError("parameter %s of type %s is not supported by the launch format" % (n, ty))

    nprog = case.grid[0] * case.grid[1] * case.grid[2]
    gsz = int(getattr(md, "global_scratch_size", 0) or 0)
    psz = int(getattr(md, "profile_scratch_size", 0) or 0)
    n_meta = len(summary["explicit_args"])
    trailing = n_meta - len(largs)
    if trailing == 2:
        largs.append({"buffer": None, "bytes": gsz * nprog})
        largs.append({"buffer": None, "bytes": psz * nprog})
        explicit_types += [("ptr", 8), ("ptr", 8)]
    elif trailing != 0:
        raise RuntimeError("hsaco has %d explicit args, the signature gives %d" % (n_meta, len(largs)))
    for k, ((ty, size), ma) in enumerate(zip(explicit_types, summary["explicit_args"])):
        kind_ok = (ma["kind"] == "global_buffer") if ty == "ptr" else (ma["kind"] == "by_value")
        if ma["size"] != size or not kind_ok:
            raise RuntimeError("arg %d: launch.json has %s/%d bytes, hsaco metadata %s/%s bytes" %
                               (k, ty, size, ma["kind"], ma["size"]))

    num_warps = int(md.num_warps)
    with open(os.path.join(case_dir, "kernel.hsaco"), "wb") as f:
        f.write(hsaco)
    launch = {
        "code_object": "kernel.hsaco",
        "kernel": kname,
        "grid": list(case.grid),
        "block": [num_warps * 64, 1, 1],
        "dynamic_lds": int(md.shared),
        "args": largs,
        "witness": {
            "source": case.source,
            "shape": case.shape,
            "expected": expected,
            "compare": compare,
            "h200_reference_check": check_result,
            "notes": case.notes,
            "specialization": {
                "how": how,
                "constexprs_equal_cuda": constexprs_match,
                "signature": _norm(signature),
                "constexprs": _norm(constexprs),
                "hip_attrs": _norm(attrs),
                "cuda_attrs": _norm(src.attrs),
            },
            "hip_options": _norm({k: getattr(md, k) for k in ("num_warps", "num_stages", "waves_per_eu",
                                                               "matrix_instr_nonkdim", "kpack", "arch")
                                  if hasattr(md, k)}),
            "hip_metadata": {"shared": int(md.shared), "global_scratch_size": gsz, "profile_scratch_size": psz,
                             "name": kname},
            "hsaco": {k: summary[k] for k in ("kernarg_segment_size", "group_segment_fixed_size",
                                             "private_segment_fixed_size", "sgpr_count", "vgpr_count",
                                             "agpr_count", "explicit_args", "amdhsa.target")},
            "kernarg_preload_length": summary.get("descriptor", {}).get("kernarg_preload_length"),
            "cuda_kernel_name": getattr(ck.metadata, "name", None),
        },
    }
    with open(os.path.join(case_dir, "launch.json"), "w") as f:
        json.dump(launch, f, indent=1)
        f.write("\n")
    # every file the launch names exists
    for fn in ["kernel.hsaco"] + list(in_files.values()) + list(expected.values()):
        assert os.path.exists(os.path.join(case_dir, fn)), fn
    log("  ok: %s grid=%s block=%d lds=%d args=%d preload=%s cuda %.1fs hip %.1fs (%s)" % (
        kname, list(case.grid), num_warps * 64, int(md.shared), len(largs),
        launch["witness"]["kernarg_preload_length"], t_cuda, t_hip, how))
    return launch


_HIP_OPTION_NAMES = None


def _hip_option_names():
    global _HIP_OPTION_NAMES
    if _HIP_OPTION_NAMES is None:
        try:
            from triton.backends.amd.compiler import HIPOptions
            _HIP_OPTION_NAMES = set(HIPOptions.__dataclass_fields__.keys())
        except Exception:
            _HIP_OPTION_NAMES = {"num_warps", "num_stages", "waves_per_eu", "matrix_instr_nonkdim", "kpack",
                                 "num_ctas", "debug", "enable_fp_fusion"}
    return _HIP_OPTION_NAMES


def safe_build(case, out_root, log):
    try:
        return build_case(case, out_root, log), None
    except Exception as e:
        msg = "%s: %s" % (type(e).__name__, str(e)[:2000])
        log("  FAILED %s\n%s" % (msg, traceback.format_exc()[-4000:]))
        import shutil
        shutil.rmtree(os.path.join(out_root, case.name), ignore_errors=True)
        return None, msg
