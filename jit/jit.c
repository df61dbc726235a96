/*
** jit.c - JIT modules (gilt/jit.h): an ORC JIT (orc.c), the thread pool
** its calls' parallel loops run on (threadpool.c), and the entries, each
** with the libffi frame of its loop-level type (call.c).
**
** gilt_jit_compile has LLVM optimize and compile the module's functions
** on several threads (split.c: compile_threads of GiltJitOptions), as
** objects linked in the one JIT; modules built with LLVM's C API go to
** ORC whole (jit_module_add_llvm).
**
** Entries are compiled when they are declared, not at their first call,
** so that every error of code generation and linking is reported by
** gilt_jit_compile, and a call only runs code. The thread pool belongs to
** the module, not the process, so that two modules compiled with
** different thread counts each get theirs; a call installs it as its
** thread's pool for the runtime's parallel-for, and removes it after.
**
** Large weights are linked, not compiled in (translate.h's
** LLVM_WEIGHTS_LINKED): each weight's symbol is defined at its bytes in
** the model's memory when they are aligned as the code assumes, and at
** an aligned copy the module owns when they are not (ONNX raw_data lies
** at any offset of a mapped file). So a model's weights are in memory
** once or twice, never in LLVM's constants and again in an object file.
**
** A module whose host code calls the CUDA runtime (gpu/cuda.h: what
** `gjit --device=cuda` compiles) gets a CUDA session at its first call,
** not when it is compiled, so that compiling needs no GPU; each call
** makes it current as it installs the thread pool.
*/
#include "jit/jit.h"

#include "dialects/llvm/translate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gilt/dialect.h"
#include "gpu/cuda.h"
#include "ir/core.h"
#include "ir/support/timing_table.h"
#include "jit/abi.h"
#include "jit/block_cache.h"
#include "jit/call.h"
#include "jit/clock.h"
#include "jit/orc.h"
#include "jit/runtime.h"
#include "jit/split.h"
#include "jit/threadpool.h"

typedef struct JitEntry {
  char *name;
  GiltLocation *loc;
  void *address;
  JitCall *call;
} JitEntry;

struct GiltJitModule {
  GiltLocation *loc;
  JitOrc *orc;
  JitThreadPool *pool;
  JitEntry *entries;
  size_t num_entries, cap_entries;
  void **weight_copies; /* aligned copies of misaligned weights */
  size_t num_weight_copies;
  bool uses_cuda;       /* its code calls gpu/cuda.h's functions */
  CudaSession *cuda;    /* created at the first call */
};

static const GiltJitOptions default_options = GILT_JIT_OPTIONS_DEFAULT;

static GiltStatus define_user_symbols(GiltJitModule *jm,
                                      const GiltJitOptions *opts)
{
  size_t n = opts->num_symbols;
  if (n == 0)
    return GILT_SUCCESS;
  const char **names = calloc(n, sizeof *names);
  void **addresses = calloc(n, sizeof *addresses);
  GiltStatus s = GILT_FAILURE;
  if (names && addresses) {
    for (size_t i = 0; i < n; i++) {
      names[i] = opts->symbols[i].name;
      addresses[i] = (void *)(uintptr_t)opts->symbols[i].address;
    }
    s = jit_orc_define_symbols(jm->orc, n, names, addresses, jm->loc);
  } else {
    gilt_emit_error(jm->loc, "out of memory defining %zu symbols", n);
  }
  free(names);
  free(addresses);
  return s;
}

GiltJitModule *jit_module_create(GiltLocation *loc, const GiltJitOptions *opts)
{
  if (!opts)
    opts = &default_options;
  if (opts->opt_level > 3) {
    gilt_emit_error(loc, "optimization level %u is not 0 to 3",
                    opts->opt_level);
    return NULL;
  }
  GiltJitModule *jm = calloc(1, sizeof *jm);
  if (!jm) {
    gilt_emit_error(loc, "out of memory creating a JIT module");
    return NULL;
  }
  jm->loc = loc;
  jm->orc = jit_orc_create(loc, opts->opt_level);
  if (!jm->orc || define_user_symbols(jm, opts)) {
    gilt_jit_destroy(jm);
    return NULL;
  }
  jm->pool = jit_threadpool_create(opts->threads);
  if (!jm->pool) {
    gilt_emit_error(loc, "cannot start %zu threads", opts->threads);
    gilt_jit_destroy(jm);
    return NULL;
  }
  return jm;
}

LLVMContextRef jit_module_get_llvm_context(GiltJitModule *jm)
{
  return jit_orc_get_llvm_context(jm->orc);
}

GiltStatus jit_module_add_llvm(GiltJitModule *jm, LLVMModuleRef m)
{
  return jit_orc_add_module(jm->orc, m, jm->loc);
}

GiltStatus jit_module_add_object(GiltJitModule *jm, const void *data,
                                 size_t size)
{
  return jit_orc_add_object(jm->orc, data, size, jm->loc);
}

/* The address weight w is linked at: its own bytes when they are
** aligned, else a copy appended to jm's (on a page when large, as
** gilt_blob_alloc places them); NULL when out of memory. */
static const void *weight_address(GiltJitModule *jm,
                                  const LlvmLinkedWeight *w)
{
  if ((uintptr_t)w->data % LLVM_LINKED_WEIGHT_ALIGN == 0)
    return w->data;
  size_t align =
      (size_t)gilt_weight_alignment(w->nbytes, LLVM_LINKED_WEIGHT_ALIGN);
  size_t size = (w->nbytes + align - 1) / align * align;
  void *copy = aligned_alloc(align, size);
  if (!copy)
    return NULL;
  memcpy(copy, w->data, w->nbytes);
  jm->weight_copies[jm->num_weight_copies++] = copy;
  return copy;
}

GiltStatus jit_module_define_weights(GiltJitModule *jm, size_t n,
                                     const LlvmLinkedWeight *weights)
{
  if (n == 0)
    return GILT_SUCCESS;
  const char **names = calloc(n, sizeof *names);
  void **addresses = calloc(n, sizeof *addresses);
  void **copies = realloc(jm->weight_copies,
                          (jm->num_weight_copies + n) * sizeof *copies);
  if (copies)
    jm->weight_copies = copies;
  GiltStatus s = names && addresses && copies ? GILT_SUCCESS : GILT_FAILURE;
  for (size_t i = 0; i < n && s == GILT_SUCCESS; i++) {
    names[i] = weights[i].symbol;
    addresses[i] = (void *)(uintptr_t)weight_address(jm, &weights[i]);
    if (!addresses[i])
      s = GILT_FAILURE;
  }
  if (s)
    gilt_emit_error(jm->loc, "out of memory linking %zu weights", n);
  else
    s = jit_orc_define_symbols(jm->orc, n, names, addresses, jm->loc);
  free(names);
  free(addresses);
  return s;
}

GiltStatus jit_module_add_entry(GiltJitModule *jm, const char *name,
                                GiltType *fn_type, GiltLocation *loc)
{
  if (jm->num_entries == jm->cap_entries) {
    size_t cap = jm->cap_entries ? 2 * jm->cap_entries : 8;
    JitEntry *e = realloc(jm->entries, cap * sizeof *e);
    if (!e) {
      gilt_emit_error(loc, "out of memory adding entry '%s'", name);
      return GILT_FAILURE;
    }
    jm->entries = e;
    jm->cap_entries = cap;
  }
  JitEntry e = {.loc = loc};
  e.call = jit_call_create(fn_type, loc);
  if (!e.call)
    return GILT_FAILURE;
  e.address = jit_orc_lookup(jm->orc, name, loc);
  e.name = strdup(name);
  if (!e.address || !e.name) {
    if (e.address)
      gilt_emit_error(loc, "out of memory adding entry '%s'", name);
    jit_call_destroy(e.call);
    free(e.name);
    return GILT_FAILURE;
  }
  jm->entries[jm->num_entries++] = e;
  return GILT_SUCCESS;
}

/* ---- the public API -------------------------------------------------------------- */


/* Every llvm.func that records its loop-level type becomes an entry; a
** declaration of the CUDA runtime's makes the module need a session. */
static GiltStatus add_entries(GiltJitModule *jm, GiltOp *module)
{
  GiltBlock *body = gilt_module_get_body(module);
  for (GiltOp *op = gilt_block_get_first_op(body); op;
       op = gilt_op_get_next(op)) {
    GiltAttr *type = gilt_op_get_attr(op, GILT_ABI_ENTRY_TYPE_ATTR);
    GiltAttr *name = gilt_op_get_attr(op, "sym_name");
    if (strcmp(gilt_op_get_name(op), "llvm.func") != 0 || !name)
      continue;
    const char *sym = gilt_string_attr_get_value(name, NULL);
    if (!strncmp(sym, GILT_CUDA_PREFIX, strlen(GILT_CUDA_PREFIX)))
      jm->uses_cuda = true;
    if (!type)
      continue;
    GiltType *fn_type = gilt_attr_get_kind(type) == GILT_ATTR_TYPE
                            ? gilt_type_attr_get_value(type)
                            : NULL;
    if (!fn_type || gilt_type_get_kind(fn_type) != GILT_TYPE_FUNCTION) {
      gilt_op_emit_error(op, "has a '%s' that is not a function type",
                         GILT_ABI_ENTRY_TYPE_ATTR);
      return GILT_FAILURE;
    }
    if (jit_module_add_entry(jm, sym, fn_type, gilt_op_get_location(op)))
      return GILT_FAILURE;
  }
  return GILT_SUCCESS;
}

/* The timing report of a compile that took `total` seconds: the wall
** time of each step, and under the parts' compile the CPU time they
** spent in each half of LLVM (summed over parts that ran at once, each
** on a thread of its own, so beside a wall time it may read more).
** "link" is what is left: sharing the functions out, adding the objects
** and ORC linking them as the entries are looked up, and freeing each
** part's LLVM context. */
static void report_timing(const GiltJitOptions *opts,
                          const JitSplitTimes *t, double total,
                          GiltContext *ctx)
{
  GiltStrBuf sb;
  gilt_strbuf_init(&sb, ctx);
  gilt_timing_table_begin(&sb, "... JIT compile timing report ...", total);
  char parts[96];
  snprintf(parts, sizeof parts,
           "optimize and generate code (parts: %zu, a thread each)",
           t->parts);
  double link = total - t->translate - t->compile;
  gilt_timing_table_row(&sb, t->translate, total, 0, "translate to LLVM IR");
  gilt_timing_table_row(&sb, t->compile, total, 0, parts);
  gilt_timing_table_row(&sb, t->optimize_cpu, total, 2,
                        "optimize (CPU time, all parts)");
  gilt_timing_table_row(&sb, t->codegen_cpu, total, 2,
                        "generate code (CPU time, all parts)");
  gilt_timing_table_row(&sb, link > 0 ? link : 0, total, 0, "link");
  gilt_timing_table_row(&sb, total, total, 0, "Total");
  opts->timing(sb.data, sb.len, opts->timing_user);
  gilt_strbuf_free(&sb);
}

GiltJitModule *gilt_jit_compile(GiltOp *module, const GiltJitOptions *opts)
{
  if (gilt_op_verify(module))
    return NULL;
  GiltJitModule *jm = jit_module_create(gilt_op_get_location(module), opts);
  size_t num_weights = 0;
  LlvmLinkedWeight *weights = NULL;
  if (!jm || llvm_collect_linked_weights(module, &num_weights, &weights) ||
      jit_module_define_weights(jm, num_weights, weights)) {
    free(weights);
    gilt_jit_destroy(jm);
    return NULL;
  }
  free(weights);
  size_t threads = opts && opts->compile_threads
                       ? opts->compile_threads
                       : jit_threadpool_default_threads();
  JitSplitTimes times;
  double start = jit_now_seconds();
  if (jit_split_compile(jm->orc, module, threads, &times, jm->loc) ||
      add_entries(jm, module)) {
    gilt_jit_destroy(jm);
    return NULL;
  }
  if (opts && opts->timing)
    report_timing(opts, &times, jit_now_seconds() - start,
                  gilt_op_get_context(module));
  return jm;
}

GiltStatus gilt_jit_call(GiltJitModule *jm, const char *function,
                         size_t num_inputs, GiltTensor *const *inputs,
                         size_t *num_outputs, GiltTensor ***outputs)
{
  *num_outputs = 0;
  *outputs = NULL;
  JitEntry *e = NULL;
  for (size_t i = 0; i < jm->num_entries && !e; i++)
    if (strcmp(jm->entries[i].name, function) == 0)
      e = &jm->entries[i];
  if (!e) {
    gilt_emit_error(jm->loc, "no compiled entry is named '%s'", function);
    return GILT_FAILURE;
  }
  CudaCall cuda_call;
  if (jm->uses_cuda && !jm->cuda && !(jm->cuda = cuda_session_create(jm->loc)))
    return GILT_FAILURE;
  if (jm->cuda && cuda_session_begin_call(jm->cuda, &cuda_call))
    return GILT_FAILURE;
  JitThreadPool *outer = jit_runtime_set_pool(jm->pool);
  GiltStatus s = jit_call_run(e->call, e->address, e->loc, num_inputs, inputs,
                              num_outputs, outputs);
  jit_runtime_set_pool(outer);
  /* A failure the stream reported after the results were copied back
  ** fails the call all the same: no result of it can be trusted. */
  if (jm->cuda && cuda_session_end_call(jm->cuda, &cuda_call) && !s) {
    for (size_t i = 0; i < *num_outputs; i++)
      gilt_tensor_destroy((*outputs)[i]);
    free(*outputs);
    *num_outputs = 0;
    *outputs = NULL;
    s = GILT_FAILURE;
  }
  return s;
}

struct CudaSession *jit_module_get_cuda(GiltJitModule *jm)
{
  return jm->cuda;
}

size_t gilt_jit_get_num_threads(const GiltJitModule *jm)
{
  return jit_threadpool_get_threads(jm->pool);
}

void gilt_jit_destroy(GiltJitModule *jm)
{
  if (!jm)
    return;
  for (size_t i = 0; i < jm->num_entries; i++) {
    free(jm->entries[i].name);
    jit_call_destroy(jm->entries[i].call);
  }
  free(jm->entries);
  jit_threadpool_destroy(jm->pool);
  cuda_session_destroy(jm->cuda); /* after the last call, before the code */
  jit_orc_destroy(jm->orc, jm->loc);
  /* Buffers its calls left for reuse are the process's business again. */
  jit_block_release_all();
  /* After the code that reads them. */
  for (size_t i = 0; i < jm->num_weight_copies; i++)
    free(jm->weight_copies[i]);
  free(jm->weight_copies);
  free(jm);
}
