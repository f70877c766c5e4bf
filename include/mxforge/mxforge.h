/*===- mxforge.h - The mxforge C API --------------------------------------===*
 *
 * What an inference engine calls at start-up and per step: create a context
 * on a device (`hip`, a real AMD GPU, or `emu`, the functional gfx950
 * emulator), load AOT bundles, JIT-compile what is missing (through the disk
 * cache), find the kernel for a spec and an actual M (bucket dispatch) and
 * launch it on device pointers. docs/capi.md is the guide.
 *
 * Plain C99. Nothing C++ crosses this header; every function is
 * `extern "C"` and reports failure as an mxf_status, with a message for the
 * calling thread in mxf_last_error(). No function aborts the process.
 *
 * Thread safety: every function may be called from several threads at once
 * on the same context; a spec is compiled once per context even when many
 * threads ask for it together. Kernels (mxf_kernel) belong to their context
 * and stay valid until it is destroyed.
 *
 * Versioning: MXFORGE_API_VERSION changes its major part (bits 16..31) on an
 * incompatible change and its minor part on additions. mxf_context_create
 * refuses options built against another major version.
 *
 *===----------------------------------------------------------------------===*/
#ifndef MXFORGE_MXFORGE_H
#define MXFORGE_MXFORGE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define MXF_API __attribute__((visibility("default")))
#else
#define MXF_API
#endif

#define MXFORGE_API_VERSION_MAJOR 1
#define MXFORGE_API_VERSION_MINOR 9
#define MXFORGE_API_VERSION ((MXFORGE_API_VERSION_MAJOR << 16) | MXFORGE_API_VERSION_MINOR)

typedef enum mxf_status {
  MXF_SUCCESS = 0,
  MXF_ERROR_INVALID_ARGUMENT = 1, /* a null pointer, a bad spec, M out of range, ... */
  MXF_ERROR_NOT_FOUND = 2,        /* no kernel for a spec (strict mode, no compiler) */
  MXF_ERROR_COMPILE = 3,          /* the JIT failed */
  MXF_ERROR_BUNDLE = 4,           /* unreadable, damaged, wrong-target or -version bundle */
  MXF_ERROR_DEVICE = 5,           /* the device could not be opened, allocate, copy, launch */
  MXF_ERROR_VERSION = 6,          /* options from an incompatible header */
  MXF_ERROR_INTERNAL = 7          /* out of memory or a bug; the message says which */
} mxf_status;

/* "success", "invalid argument", ... (a static string). */
MXF_API const char *mxf_status_string(mxf_status status);

/* The message of the calling thread's last failed call ("" if none failed).
 * Valid until that thread's next mxforge call. */
MXF_API const char *mxf_last_error(void);

/* MXFORGE_API_VERSION of the library, and "mxforge X.Y.Z (LLVM A.B.C)". */
MXF_API uint32_t mxf_api_version(void);
MXF_API const char *mxf_version_string(void);

/*===--- Contexts --------------------------------------------------------===*/

typedef struct mxf_context mxf_context;

typedef enum mxf_cache_mode {
  MXF_CACHE_FROM_ENVIRONMENT = 0, /* MXFORGE_CACHE / MXFORGE_CACHE_DIR / XDG / HOME */
  MXF_CACHE_OFF = 1,
  MXF_CACHE_DIRECTORY = 2 /* cache_directory below */
} mxf_cache_mode;

/* device_ordinal: the calling thread's current GPU when the context is
 * created (hipGetDevice), what a tensor-parallel rank has selected. */
#define MXF_DEVICE_CURRENT (-1)

typedef struct mxf_context_options {
  uint32_t api_version;            /* set by mxf_context_options_init */
  const char *device;              /* "emu" or "hip"; NULL means "hip" */
  int strict;                      /* nonzero: only bundle kernels, never compile */
  mxf_cache_mode cache_mode;
  const char *cache_directory;     /* for MXF_CACHE_DIRECTORY */
  int code_object_version;         /* 5 or 6; 0 means 5 */
  /* Since 1.2 (options of 1.0/1.1 callers end before it and mean GPU 0):
   * which GPU, an ordinal or MXF_DEVICE_CURRENT. The emu device has one, 0.
   * No mxforge call leaves the calling thread's current device changed. */
  int device_ordinal;
} mxf_context_options;

/* Fills `options` with the defaults: device "hip" on the caller's current
 * GPU, not strict, cache from the environment, code object version 5. */
MXF_API void mxf_context_options_init(mxf_context_options *options);

/* A new context; `options` may be NULL (the defaults). On failure *context
 * is set to NULL. */
MXF_API mxf_status mxf_context_create(const mxf_context_options *options,
                                      mxf_context **context);
/* Releases the context, its kernels and every buffer of mxf_malloc. NULL is
 * a no-op. */
MXF_API void mxf_context_destroy(mxf_context *context);

/* A JIT compile after start-up (a latency spike in the serving path): what
 * it does once mxf_context_mark_startup_done was called. The default comes
 * from MXFORGE_JIT=allow|warn|error (unset: allow; another value makes
 * mxf_context_create fail, naming it). Warn prints one line per code spec
 * ("mxforge: warning: a JIT compile of '<spec>' after start-up was marked
 * done ..."); error refuses the compile (MXF_ERROR_COMPILE, or
 * MXF_ERROR_NOT_FOUND in strict mode). Kernels from bundles and the disk
 * cache are never late. */
typedef enum mxf_late_jit {
  MXF_LATE_JIT_ALLOW = 0,
  MXF_LATE_JIT_WARN = 1,
  MXF_LATE_JIT_ERROR = 2
} mxf_late_jit;
MXF_API mxf_status mxf_context_mark_startup_done(mxf_context *context);
/* `policy` is an mxf_late_jit value, taken as int so that any other value
 * is a checked error rather than an invalid enum. */
MXF_API mxf_status mxf_context_set_late_jit(mxf_context *context, int policy);

/* One line naming the device, e.g. "emu (gfx950 functional emulator)". */
MXF_API const char *mxf_context_device(const mxf_context *context);

/*===--- Kernels ---------------------------------------------------------===*/

/* Loads an AOT bundle (.mxfb); its kernels are used before any JIT. A
 * damaged, truncated, wrong-target or wrong-version file is refused with a
 * message that says which. `kernel_count` may be NULL. */
MXF_API mxf_status mxf_load_bundle(mxf_context *context, const char *path,
                                   size_t *kernel_count);

/* Makes one spec available (from a bundle, the cache, or the JIT). */
MXF_API mxf_status mxf_compile(mxf_context *context, const char *spec);

/* mxf_compile for `count` specs on `threads` threads (0: one per core).
 * `statuses`, when not NULL, receives one status per spec. Returns
 * MXF_SUCCESS when all succeeded, else the first failure's status (and
 * mxf_last_error names how many failed and the first message). */
MXF_API mxf_status mxf_compile_all(mxf_context *context, const char *const *specs,
                                   size_t count, unsigned threads, mxf_status *statuses);

typedef struct mxf_kernel mxf_kernel;

/* The kernel for `spec`'s family (the spec's M is ignored) and an actual
 * row count `m`: the smallest M bucket >= m whose code object is loaded or
 * compiled, its own or its tiling class's (a bundle of buckets 1-8 serves
 * m up to its class limit, 256, without compiling), else compiled on
 * demand unless strict. quant_weight has no buckets: its one kernel, for
 * m = N only (any other m is an error naming the rule). Loaded on the
 * context's device. */
MXF_API mxf_status mxf_find_kernel(mxf_context *context, const char *spec, int m,
                                   const mxf_kernel **kernel);

typedef struct mxf_kernel_info {
  const char *spec;    /* canonical spec, with the bucket's M */
  const char *name;    /* kernel symbol */
  const char *origin;  /* "bundle", "cache", "jit", "override", or "shared": another spec of its tiling class produced the code object */
  int bucket;          /* the M bucket, which names the code's tiling class:
                          launches take 1 <= m <= the class limit
                          (mxf_launch_info.max_rows), quant_weight m = N */
  uint32_t vgprs, sgprs, lds_bytes, scratch_bytes;
  size_t operand_count;
} mxf_kernel_info;
MXF_API mxf_status mxf_kernel_get_info(const mxf_kernel *kernel, mxf_kernel_info *info);

typedef struct mxf_operand_info {
  const char *name;    /* "x", "r", "q", "s", ... */
  const char *element; /* "bf16", "i8", "i32" */
  uint64_t bytes;      /* bytes of the bucket-sized buffer (dense rows); a launch of m
                          rows touches only m rows (mxf_launch checks that) */
  int is_output;
  const char *row_stride_arg; /* "x_stride", "q_stride", or NULL: dense rows only */
} mxf_operand_info;
MXF_API mxf_status mxf_kernel_get_operand(const mxf_kernel *kernel, size_t index,
                                          mxf_operand_info *info);

/* Launches `kernel` for `m` rows. `operands` are device pointers, one per
 * operand in mxf_kernel_get_operand order, each at least that many bytes.
 * `stream` is a hipStream_t (NULL: the default stream, which a strict
 * context on hip refuses: AOT engines launch on their own streams); the emu
 * device runs the launch before returning and ignores it. Rows past m of the outputs
 * are not written. */
MXF_API mxf_status mxf_launch(mxf_context *context, const mxf_kernel *kernel, int m,
                              void *const *operands, size_t operand_count, void *stream);

/* mxf_launch with row strides: `row_strides[i]` is operand i's row stride in
 * its elements (bf16 for x, bytes for q), or 0 for dense rows. Only the
 * operands whose mxf_operand_info has `row_stride_arg` set take a stride;
 * a stride below the row is refused. A torch view x[:, :K] of a wider
 * tensor is passed as it is. `row_strides` may be NULL (all dense). */
MXF_API mxf_status mxf_launch_strided(mxf_context *context, const mxf_kernel *kernel, int m,
                                      void *const *operands, const int64_t *row_strides,
                                      size_t operand_count, void *stream);

/* Selective rotation (specs with select=flag|mask, docs/templates.md): one
 * kernel that rotates or takes the quant-only path per launch. `*arg_name`
 * is the kernel's by-value selection argument, "rotate" (select=flag:
 * nonzero rotates) or "layer" (select=mask: the index into the operand
 * layer_mask, whose nonzero entries rotate; the mask stays in device memory,
 * so a captured graph follows a rewritten mask), or NULL for a kernel
 * without one. Such a kernel is launched with mxf_launch_selected or
 * mxf_kernel_launch_params_selected; mxf_launch, mxf_launch_strided and
 * mxf_kernel_launch_params refuse it (there is no default path), and the
 * _selected forms refuse a kernel without one. */
MXF_API mxf_status mxf_kernel_get_selection(const mxf_kernel *kernel, const char **arg_name);

/* mxf_launch_strided with the kernel's selection value (`rotate` or
 * `layer`, as mxf_kernel_get_selection names it). A layer outside
 * 0..layers-1 is refused. */
MXF_API mxf_status mxf_launch_selected(mxf_context *context, const mxf_kernel *kernel, int m,
                                       void *const *operands, const int64_t *row_strides,
                                       size_t operand_count, int32_t selection, void *stream);

/* By-value values by name (C API 1.7): an op's own values, such as
 * rmsnorm_rotate_quant's `eps` (passed to the kernel as f32), and selective
 * rotation's `rotate` or `layer` (an integer). mxf_kernel_get_value names
 * what a kernel takes. */
typedef struct mxf_value {
  const char *name;
  double value;
} mxf_value;

/* The op's value `index` (0..count-1) of `kernel` (selection not included:
 * mxf_kernel_get_selection names it): `*name` and `*meaning` are static
 * strings; `*count` the number of values. Either output may be NULL. */
MXF_API mxf_status mxf_kernel_get_value(const mxf_kernel *kernel, size_t index, const char **name,
                                        const char **meaning, size_t *count);

/* The general launch: mxf_launch_strided with every by-value value by name
 * (the op's, and `rotate`/`layer` for a kernel that selects). Exactly the
 * values the kernel takes: a missing, unknown or refused value (a negative
 * eps, a layer outside 0..layers-1) is an error naming it. Serves every
 * kernel; a kernel with values must be launched with it (or
 * mxf_kernel_launch_params_values). */
MXF_API mxf_status mxf_launch_values(mxf_context *context, const mxf_kernel *kernel, int m,
                                     void *const *operands, const int64_t *row_strides,
                                     size_t operand_count, const mxf_value *values,
                                     size_t value_count, void *stream);

/* How to launch `kernel` for `m` rows yourself (your own stream, a graph,
 * another runtime), from the launch record compiled with it: grid and
 * workgroup, the code object's bytes (valid while the context lives) and
 * the limits. The kernel arguments are the operand pointers in
 * mxf_kernel_get_operand order, then m and each row stride as i32, then
 * the selection value as i32 for a kernel that has one, then the op's
 * values (mxf_kernel_get_value) as f32. */
typedef struct mxf_launch_info {
  uint32_t grid[3];      /* workgroups */
  uint32_t workgroup[3]; /* work-items per workgroup */
  uint32_t lds_bytes;    /* static LDS */
  uint32_t max_rows;     /* the most rows this code object serves */
  uint32_t abi_version;  /* the kernel ABI of the argument order above */
  const void *code;      /* the code object (ELF), for hipModuleLoadData */
  size_t code_bytes;
} mxf_launch_info;
MXF_API mxf_status mxf_kernel_get_launch(const mxf_kernel *kernel, int m, mxf_launch_info *info);

/* How to launch `kernel` yourself with a packed kernarg segment: what an
 * engine passes to hipModuleLaunchKernel (HIP_LAUNCH_PARAM_BUFFER_POINTER /
 * _SIZE in `extra`; gridDim = grid, blockDim = workgroup, sharedMemBytes =
 * dynamic_lds_bytes) for the code object of mxf_kernel_code_object, loaded
 * with hipModuleLoadData and found with hipModuleGetFunction(symbol). */
typedef struct mxf_launch_params {
  uint32_t grid[3];           /* workgroups per dimension */
  uint32_t workgroup[3];      /* work-items per workgroup */
  uint32_t dynamic_lds_bytes; /* beyond the code object's static LDS (0 for ours) */
  size_t kernarg_bytes;       /* the kernarg segment's size, hidden arguments included */
} mxf_launch_params;

/* Fills `params` and packs the kernarg segment for a launch of `m` rows on
 * `operands` (device pointers in mxf_kernel_get_operand order; row_strides
 * as mxf_launch_strided, may be NULL) into `kernarg` of `kernarg_capacity`
 * bytes (16-byte alignment is enough for every kernel of ours). Checks what
 * mxf_launch checks (operand count, m, mxf_malloc buffers big enough).
 * When `kernarg_capacity` is too small, params->kernarg_bytes still says
 * how many are needed and the call fails. Allocates, copies and
 * synchronizes nothing on the device: legal to call while capturing. */
MXF_API mxf_status mxf_kernel_launch_params(const mxf_kernel *kernel, int m,
                                            void *const *operands, const int64_t *row_strides,
                                            size_t operand_count, void *kernarg,
                                            size_t kernarg_capacity, mxf_launch_params *params);
/* mxf_kernel_launch_params with the kernel's selection value (see
 * mxf_kernel_get_selection): packed after the row strides. */
MXF_API mxf_status mxf_kernel_launch_params_selected(const mxf_kernel *kernel, int m,
                                                     void *const *operands,
                                                     const int64_t *row_strides,
                                                     size_t operand_count, int32_t selection,
                                                     void *kernarg, size_t kernarg_capacity,
                                                     mxf_launch_params *params);

/* mxf_kernel_launch_params with values by name, as mxf_launch_values:
 * packed after the row strides in the order of mxf_kernel_get_launch's
 * note (selection, then the op's values, f32). */
MXF_API mxf_status mxf_kernel_launch_params_values(const mxf_kernel *kernel, int m,
                                                   void *const *operands,
                                                   const int64_t *row_strides,
                                                   size_t operand_count, const mxf_value *values,
                                                   size_t value_count, void *kernarg,
                                                   size_t kernarg_capacity,
                                                   mxf_launch_params *params);

/* The kernel's code object (a gfx950 ELF, valid while the context lives)
 * and the symbol to look up in it (the kernel's name, without ".kd"). */
MXF_API mxf_status mxf_kernel_code_object(const mxf_kernel *kernel, const void **bytes,
                                          size_t *size);
MXF_API mxf_status mxf_kernel_symbol(const mxf_kernel *kernel, const char **symbol);

/* Launches `kernel` on the context's device with a kernarg segment from
 * mxf_kernel_launch_params (exactly params->kernarg_bytes bytes): the path
 * an engine's own launcher takes, also on the emu device. The geometry is
 * checked; the pointers inside `kernarg` are the caller's. */
MXF_API mxf_status mxf_launch_packed(mxf_context *context, const mxf_kernel *kernel,
                                     const mxf_launch_params *params, const void *kernarg,
                                     size_t kernarg_bytes, void *stream);

/*===--- Formats and layouts, as values (no spec text to parse) ----------===*/

/* Where the elements of an operand are. Two kernels that take the same MX
 * format may expect different scale layouts (AITER's gemm_a4w4 wants
 * a4w4_shuffle, others plain): ask, do not parse. */
typedef enum mxf_layout {
  MXF_LAYOUT_PLAIN = 0,            /* row-major [rows, K/2] codes or [rows, K/32] scales */
  MXF_LAYOUT_A4W4_SHUFFLE = 1,     /* e8m0 scales in AITER's shuffle for gemm_a4w4: rows
                                      padded to 256, columns to 8 (docs/abi.md) */
  MXF_LAYOUT_PRESHUFFLE_16X16 = 2, /* codes in AITER's shuffle_weight(layout=(16, 16)) */
  MXF_LAYOUT_W6A16_16X128 = 3,     /* fp6_e2m3 codes in 16-row x 128-K tiles of 64 lanes x
                                      24 bytes, 16 then 8 bytes per lane (docs/layouts.md) */
  MXF_LAYOUT_MXFP6_C0C1_256_PADK2 = 4 /* AITER's A6W6 operand: fp6 codes and e8m0 scales in
                                      256-row x 128-K tiles (C0 16 + C1 8 bytes per block,
                                      1024 scale bytes), two K guard tiles (docs/a6w6.md) */
} mxf_layout;

typedef enum mxf_format {
  MXF_FORMAT_FP4_E2M1 = 0,
  MXF_FORMAT_FP6_E2M3 = 1,
  MXF_FORMAT_FP6_E3M2 = 2,
  MXF_FORMAT_FP8_E4M3 = 3,
  MXF_FORMAT_FP8_E5M2 = 4
} mxf_format;

typedef enum mxf_scale_rule {
  MXF_SCALE_FLOOR = 0,
  MXF_SCALE_EVEN = 1,
  MXF_SCALE_RCEIL = 2,
  MXF_SCALE_RCEIL_RECIP = 3,
  MXF_SCALE_CEIL = 4,
  MXF_SCALE_EVEN126 = 5,
  MXF_SCALE_A6W6 = 6 /* since 1.3: AITER A6W6's floor on the exponent bits (docs/numerics.md) */
} mxf_scale_rule;

/* The MX data a kernel writes (rotate_quant, rotate_quant_moe,
 * quant_weight) or reads as its weights (rotate_quant_gemm). Fields are
 * the enum values above, as int. */
typedef struct mxf_quant_layout {
  int format;       /* mxf_format of the codes */
  int code_layout;  /* mxf_layout of the codes (q, or the GEMM's weights) */
  int scale_layout; /* mxf_layout of the e8m0 scales (s) */
  int scale_rule;   /* mxf_scale_rule */
  int block;        /* elements per scale: 32 */
  int rotation;     /* RS, the rotation block (0: none) */
} mxf_quant_layout;
MXF_API mxf_status mxf_spec_get_quant_layout(const char *spec, mxf_quant_layout *layout);
MXF_API mxf_status mxf_kernel_get_quant_layout(const mxf_kernel *kernel,
                                               mxf_quant_layout *layout);

/* 1 in libmxforge (it can JIT-compile), 0 in libmxforge_runtime (bundles
 * and cache entries only; a spec none holds is MXF_ERROR_NOT_FOUND). */
MXF_API int mxf_library_has_jit(void);

/*===--- Any code object, from a launch file (API 1.4) -------------------===*/

/* Runs the launch file at `path` (docs/cli.md, "mxforge launch": a code
 * object, grid, block, dynamic LDS and its explicit arguments as buffers from
 * .npy files or scalars) on the context's device, waits, and writes its "out"
 * buffers as 1-d uint8 .npy files, all or none. Every argument is checked
 * against the code object's metadata first. libmxforge only: in
 * libmxforge_runtime it returns MXF_ERROR_INVALID_ARGUMENT saying so. */
MXF_API mxf_status mxf_launch_file(mxf_context *context, const char *path);

/*===--- Specs without a context (allocation, shape propagation) ---------===*/

/* Writes the canonical text of `spec` (docs/spec.md: every key, defaults
 * included) into `buffer` of `size` bytes, NUL-terminated; `length` (may be
 * NULL) receives its length without the NUL, also when `size` is too small
 * (then MXF_ERROR_INVALID_ARGUMENT, and nothing is written). An invalid
 * spec is MXF_ERROR_INVALID_ARGUMENT with the parser's message. */
MXF_API mxf_status mxf_spec_canonical(const char *spec, char *buffer, size_t size,
                                      size_t *length);

/* One operand of a spec at a row count: what a launch for `m` rows reads or
 * writes (docs/abi.md), so that a caller can allocate outputs, or propagate
 * shapes while tracing, without compiling anything. */
#define MXF_MAX_OPERAND_RANK 4
typedef struct mxf_operand_shape {
  const char *name;           /* "x", "r", "q", "s", ... (static strings) */
  const char *element;        /* "bf16", "i8", "i32", "f32" */
  int is_output;
  const char *row_stride_arg; /* "x_stride", "q_stride", or NULL: dense rows only */
  size_t rank;
  int64_t shape[MXF_MAX_OPERAND_RANK]; /* in elements; rows first */
  uint64_t bytes;             /* of the dense operand (the shape's product) */
} mxf_operand_shape;

/* The operands of `spec` at `m` rows, in launch order (the order of
 * mxf_kernel_get_operand), including the padded rows of a4w4_shuffle scales.
 * Writes min(count, capacity) entries into `operands` (may be NULL when
 * `capacity` is 0) and the count to *count. `m` is 0 or more (quant_weight
 * ignores it: always N rows); this checks the spec, not whether a launch of
 * m rows is possible (mxf_find_kernel does). */
MXF_API mxf_status mxf_spec_get_operands(const char *spec, int m, mxf_operand_shape *operands,
                                         size_t capacity, size_t *count);

/* The workspace operand of `spec` at `m` rows (C API 1.9), if it has one:
 * scratch the kernel reads and writes (rotate_quant_gemm's `ws` where its
 * accumulation chains are split over workgroups, docs/abi.md), listed by
 * mxf_spec_get_operands as an input. It must hold zero bytes before its
 * first launch; every launch leaves it fit for the next, so one zeroed
 * buffer serves the launches of one stream in turn (two launches that may
 * overlap need two). *index receives its place in launch order and *bytes
 * its size, or *index = SIZE_MAX and *bytes = 0 when the spec takes none.
 * Either pointer may be NULL. An invalid spec or a negative m is
 * MXF_ERROR_INVALID_ARGUMENT. */
MXF_API mxf_status mxf_spec_get_workspace(const char *spec, int m, size_t *index,
                                          uint64_t *bytes);

/* The spec vocabulary (C API 1.5), so that bindings read it instead of
 * restating it: every spec key, every op's together (*names: static
 * strings; *count of them). */
MXF_API mxf_status mxf_spec_key_names(const char *const **names, size_t *count);
/* Every M bucket a spec may name, ascending (*buckets: a static array of
 * *count entries); the last is the most rows one launch takes. */
MXF_API mxf_status mxf_spec_m_buckets(const int **buckets, size_t *count);
/* The smallest M bucket holding `m` rows; MXF_ERROR_INVALID_ARGUMENT naming
 * the range when m is outside 1..the largest bucket. */
MXF_API mxf_status mxf_spec_bucket_for(int m, int *bucket);
/* Selective rotation's by-value argument of `spec`'s kernels: "rotate"
 * (select=flag), "layer" (select=mask) or NULL (always rotates), as
 * mxf_kernel_get_selection says of a loaded kernel. */
MXF_API mxf_status mxf_spec_get_selection(const char *spec, const char **arg_name);
/* Prepared weights (C API 1.8, docs/loaders.md): whether weights made with
 * `weights_spec` (the quant_weight spec recorded with them: a checkpoint's
 * mxforge.spec.<p>.weight) are the ones a launch of `spec` reads; `rotates`
 * is 0 for a select=flag|mask launch that does not rotate (it reads weights
 * made at RS=0). MXF_ERROR_INVALID_ARGUMENT names the first key that differs
 * (K, N, fmt, RS, rot, rconv, layout, wlayout) with both values. */
MXF_API mxf_status mxf_spec_check_weights(const char *spec, const char *weights_spec,
                                          int rotates);
/* What the reader of a kernel's outputs was built for (C API 1.8): whether
 * `spec` has every value `expected` names, e.g. "block=32,E=256,
 * layout=a4w4_shuffle" for the MoE GEMM that reads rotate_quant_moe's
 * sorted outputs. MXF_ERROR_INVALID_ARGUMENT names the key with both values
 * (or the expected key or value that is not one). docs/loaders.md. */
MXF_API mxf_status mxf_spec_check_keys(const char *spec, const char *expected);
/* The keys mxf_spec_check_weights compares (*names: static strings; *count
 * of them): a binding fills a reader's spec from a weight's with them. */
MXF_API mxf_status mxf_spec_weight_keys(const char *const **names, size_t *count);
/* Moves prepared weights between layouts (C API 1.8), as engines shuffle at
 * load time after splitting a plain checkpoint: `q` and `s` are what
 * quant_weight wrote for `weights_spec`; `q_out` and `s_out` receive exactly
 * what it writes for `target_spec`, which may differ from it in layout and
 * wlayout only (plain <-> a4w4_shuffle scales, plain <-> preshuffle_16x16
 * fp4 codes or w6a16_16x128 fp6 codes). Every size must be exact. */
MXF_API mxf_status mxf_relayout_weights(const char *weights_spec, const char *target_spec,
                                        const void *q, size_t q_bytes, const void *s,
                                        size_t s_bytes, void *q_out, size_t q_out_bytes,
                                        void *s_out, size_t s_out_bytes);

/*===--- The ops' interfaces (C API 1.6) ---------------------------------===*/

/* What a binding needs to offer one function per op without restating the
 * op (docs/abi.md, "The ops' interfaces"): its keys, every operand it may
 * take, the input whose rows are the launch's m, and the keys an input's
 * shape may supply. All strings and arrays are static. */
typedef struct mxf_op_operand {
  const char *name;    /* "x", "r", "q", ... */
  const char *element; /* "bf16", "i8", "i32", "f32" */
  int is_output;
  int optional;        /* taken by some specs only (r, seed, layer_mask, ...) */
  unsigned ranks;      /* bit r set: it may have r dimensions */
} mxf_op_operand;

typedef struct mxf_op_shape_key {
  const char *key;     /* a spec key ("K") */
  const char *operand; /* the input whose shape gives it when the spec leaves it out */
  int dimension;       /* of that input; -1 is the last */
} mxf_op_shape_key;

typedef struct mxf_op_info {
  const char *name;      /* the op, as a spec names it */
  const char *rows_from; /* the input whose first dimension is m; NULL: a launch
                            processes the spec's N rows (quant_weight) */
  const char *const *keys; /* its spec keys, canonical order */
  size_t key_count;
  const mxf_op_operand *operands; /* launch order; a spec takes a subsequence */
  size_t operand_count;
  const mxf_op_shape_key *shape_keys;
  size_t shape_key_count;
  const char *description; /* its help text: what it computes, arguments, results */
} mxf_op_info;

/* The number of ops, and op `index` (0..count-1). */
MXF_API mxf_status mxf_op_count(size_t *count);
MXF_API mxf_status mxf_op_get_info(size_t index, mxf_op_info *info);
/* Op `op_index`'s by-value value `index` (C API 1.7), as
 * mxf_kernel_get_value says of a kernel: every spec of the op takes it
 * (rmsnorm_rotate_quant's `eps`). `*count`: how many it has. */
MXF_API mxf_status mxf_op_get_value(size_t op_index, size_t index, const char **name,
                                    const char **meaning, size_t *count);

/* How operand extents of `spec` may follow the launch's rows, for shape
 * propagation with a symbolic m: each extent of mxf_spec_get_operands that
 * changes with m is one of these, extent = roundUp(ceilDiv(scale * m +
 * offset, divisor), multiple). Writes min(count, capacity) entries; labels
 * are static ("rows", "pad256(rows)", "capacity", ...). */
typedef struct mxf_row_extent {
  const char *label;
  int64_t scale, offset, divisor, multiple;
} mxf_row_extent;
MXF_API mxf_status mxf_spec_get_row_extents(const char *spec, mxf_row_extent *extents,
                                            size_t capacity, size_t *count);

/*===--- What a context holds (start-up reports) -------------------------===*/

/* One kernel a context can launch without compiling: each kernel of its
 * loaded bundles, and each kernel it has produced (mxf_compile,
 * mxf_compile_all, mxf_find_kernel), in the order they arrived. Strings stay
 * valid until the context is destroyed. */
typedef struct mxf_kernel_entry {
  const char *spec;   /* canonical spec, with its bucket M */
  const char *name;   /* kernel symbol */
  const char *origin; /* as mxf_kernel_info: "bundle", "cache", "jit", "override" or "shared" */
  const char *source; /* the bundle's path, the cache directory, or "" (JIT) */
  int bucket;
  int produced;       /* compiled, taken from the cache, or asked for from a bundle */
  int on_device;      /* loaded on the device (by mxf_find_kernel) */
  uint32_t vgprs, sgprs, lds_bytes, scratch_bytes;
  size_t code_bytes;  /* of the code object */
} mxf_kernel_entry;
MXF_API mxf_status mxf_context_kernel_count(mxf_context *context, size_t *count);
MXF_API mxf_status mxf_context_get_kernel(mxf_context *context, size_t index,
                                          mxf_kernel_entry *entry);

/* Where the context's disk cache is and what it holds, with the context's
 * kernel-table counters. Strings stay valid until the context is destroyed. */
typedef struct mxf_cache_info {
  int enabled;            /* 0: off (MXF_CACHE_OFF, MXFORGE_CACHE=0, strict, ...) */
  const char *directory;  /* "" when disabled */
  const char *source;     /* why this directory: "MXFORGE_CACHE_DIR", "XDG_CACHE_HOME",
                             "HOME", "mxf_context_options", "MXFORGE_CACHE=0", ... */
  uint64_t entries;       /* entries on disk now (every process's) */
  uint64_t total_bytes;
  /* this context's kernel table */
  uint64_t requests, from_bundle, cache_hits, compiled, shared_code, failures;
} mxf_cache_info;
MXF_API mxf_status mxf_context_get_cache(mxf_context *context, mxf_cache_info *info);

/*===--- Device memory (for engines without their own allocator, and emu) ===*/

MXF_API mxf_status mxf_malloc(mxf_context *context, size_t bytes, void **device_pointer);
MXF_API mxf_status mxf_free(mxf_context *context, void *device_pointer);
/* Copies to/from memory inside a buffer of mxf_malloc. */
MXF_API mxf_status mxf_memcpy_to_device(mxf_context *context, void *device_destination,
                                        const void *host_source, size_t bytes);
MXF_API mxf_status mxf_memcpy_to_host(mxf_context *context, void *host_destination,
                                      const void *device_source, size_t bytes);
/* Waits for every launch on the context's device. */
MXF_API mxf_status mxf_synchronize(mxf_context *context);

/*===--- Selective rotation's calibration --------------------------------===*/

/* One layer's quantization error with a rotate_quant spec's rotation and
 * without it (the same spec at RS=0), as `mxforge calibrate` measures it
 * (docs/cli.md, "calibrate"): relative RMS error against what was quantized,
 * fraction of clipped elements, gain = (plain - rotated) / plain, and
 * rotate = gain > threshold. */
typedef struct mxf_layer_calibration {
  double rotated_rel_rms, plain_rel_rms;
  double rotated_clipped, plain_clipped;
  double gain;
  int rotate;
} mxf_layer_calibration;
/* `x` holds rows*K bf16 samples (rows >= 1, any number: this is no launch),
 * `r` the learned rotation (NULL unless rot is learned or learned_per_block),
 * `threshold` in [0, 1). The spec needs RS > 0. */
MXF_API mxf_status mxf_calibrate_layer(const char *spec, const void *x, size_t rows,
                                       const void *r, double threshold,
                                       mxf_layer_calibration *result);

/*===--- Checkpoints (C API 1.5) -----------------------------------------===*/

/* What `mxforge quantize` does (docs/weights.md): a .safetensors file or a
 * sharded checkpoint in, the tensors whose full name matches `tensors`
 * quantized with a quant_weight spec (K and N from each [N, K] tensor) on the
 * host path, the checkpoint in the Quark MXFP4 convention and its config.json
 * out. Everything is checked before anything is written; outputs appear only
 * when all are complete. Messages name the options by their CLI flags
 * (--tensors, --force, ...). */
typedef struct mxf_quantize_options {
  uint32_t api_version; /* MXFORGE_API_VERSION (mxf_quantize_options_init) */
  const char *in;       /* a .safetensors file or a model.safetensors.index.json */
  const char *out;      /* the output file (a directory for a sharded input) */
  const char *spec;     /* a quant_weight spec without K and N */
  const char *tensors;  /* POSIX extended regex, matched against whole names */
  const char *rotation; /* NULL, or the learned R: FILE.npy, FILE.safetensors[:TENSOR] */
  unsigned threads;     /* 0: one per hardware thread */
  int force;            /* replace existing outputs (regular files only) */
  int check;            /* dequantize what was written; a per-tensor error table */
  int progress;         /* a progress line (tensors, GB/s, time left) as notes */
  /* Receives the text: stream 0 the summary (and --check's table), stream 1
   * notes and progress. May be NULL (the text is dropped). */
  void (*text)(void *user, int stream, const char *text, size_t length);
  void *user;
  /* C API 1.8 (read only from options of 1.8 or later): NULL, or the layer
   * mask FILE.npy (`mxforge calibrate --mask`: int32 [layers], 1 = rotate);
   * the tensors of a layer whose entry is 0 are quantized without the
   * spec's rotation (--layer-mask, docs/weights.md). */
  const char *layer_mask;
} mxf_quantize_options;
/* Zeroes the first `size` bytes of `options` (at most the struct) and sets
 * api_version to the version whose struct is that long: a caller built
 * against an older header, whose struct is shorter, is never written past,
 * and the library reads only the fields its api_version has. The macro
 * passes the caller's own sizeof; the function of the same name (C API
 * 1.5, kept for binaries built before 1.8) initializes the 1.5-1.7 fields. */
MXF_API void mxf_quantize_options_init_size(mxf_quantize_options *options, size_t size);
MXF_API void mxf_quantize_options_init(mxf_quantize_options *options);
#define mxf_quantize_options_init(options) \
  mxf_quantize_options_init_size((options), sizeof *(options))
MXF_API mxf_status mxf_quantize_checkpoint(const mxf_quantize_options *options);

/*===--- The CPU reference (self-checks at start-up) ---------------------===*/

/* Runs the bit-exact CPU reference of a rotate_quant spec on `m` rows:
 * `x` holds m*K bf16 values, `r` the rotation (NULL unless rot is learned
 * or learned_per_block). Writes the bytes the kernel writes for m rows,
 * which are a prefix of its q and s buffers, and their counts to *q_written
 * and *s_written. Fails if q_bytes or s_bytes is too small. */
MXF_API mxf_status mxf_reference(const char *spec, int m, const void *x, const void *r,
                                 void *q, size_t q_bytes, size_t *q_written, void *s,
                                 size_t s_bytes, size_t *s_written);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MXFORGE_MXFORGE_H */
