/*
** jit.c - JIT modules (gilt/jit.h): the code, linked by ORC (orc.c) or
** by gilt itself (object_link.h), the thread pool its calls' parallel
** loops run on (threadpool.c), and the entries, each with the libffi
** frame of its loop-level type (call.c).
**
** gilt_jit_compile has LLVM optimize and compile the module's functions
** on several threads (split.c: compile_threads of GiltJitOptions), as
** objects linked in the one ORC JIT; modules built with LLVM's C API go
** to ORC whole (jit_module_add_llvm). An object file that was compiled
** before (a compile cache entry's) is linked by gilt where it can
** (x86-64 ELF), so that running cached code never starts LLVM
** (llvm_initialize): the ORC JIT is made when the first LLVM module comes,
** and the symbols the module defines (the user's, the weights) are kept
** here and given to whichever links code.
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
#include "jit/object_link.h"
#include "jit/orc.h"
#include "jit/runtime.h"
#include "jit/runtime_symbols.h"
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
  unsigned opt_level;
  JitOrc *orc;          /* made by the first LLVM module (jit_module_orc) */
  ObjectLink **objects; /* objects gilt linked */
  size_t num_objects;
  char **symbol_names;  /* defined for the code: the user's, the weights */
  void **symbol_addresses;
  size_t num_symbols;
  JitThreadPool *pool;
  JitEntry *entries;
  size_t num_entries, cap_entries;
  void **weight_copies; /* aligned copies of misaligned weights */
  size_t num_weight_copies;
  bool uses_cuda;       /* its code calls gpu/cuda.h's functions */
  CudaSession *cuda;    /* created at the first call */
};

static const GiltJitOptions default_options = GILT_JIT_OPTIONS_DEFAULT;

/* Where the module's symbol `name` was defined, NULL when it was not. */
static void *defined_symbol(const GiltJitModule *jm, const char *name)
{
  for (size_t i = 0; i < jm->num_symbols; i++)
    if (!strcmp(jm->symbol_names[i], name))
      return jm->symbol_addresses[i];
  return NULL;
}

/* Defines names[i] at addresses[i] for the module's code: kept for
** objects gilt links and for an ORC JIT made later, and given to the one
** there is now. */
static GiltStatus define_symbols(GiltJitModule *jm, size_t n,
                                 const char *const *names,
                                 void *const *addresses)
{
  if (n == 0)
    return GILT_SUCCESS;
  for (size_t i = 0; i < n; i++)
    if (jit_runtime_symbol(names[i]) || defined_symbol(jm, names[i])) {
      gilt_emit_error(jm->loc, "the symbol '%s' is defined twice", names[i]);
      return GILT_FAILURE;
    }
  size_t total = jm->num_symbols + n;
  char **all_names = realloc(jm->symbol_names, total * sizeof *all_names);
  if (all_names)
    jm->symbol_names = all_names;
  void **all_addresses =
      realloc(jm->symbol_addresses, total * sizeof *all_addresses);
  if (all_addresses)
    jm->symbol_addresses = all_addresses;
  for (size_t i = 0; i < n && all_names && all_addresses; i++) {
    char *name = strdup(names[i]);
    if (!name)
      break;
    jm->symbol_names[jm->num_symbols] = name;
    jm->symbol_addresses[jm->num_symbols++] = addresses[i];
  }
  if (jm->num_symbols != total) {
    gilt_emit_error(jm->loc, "out of memory defining %zu symbols", n);
    return GILT_FAILURE;
  }
  return jm->orc ? jit_orc_define_symbols(jm->orc, n, names, addresses,
                                          jm->loc)
                 : GILT_SUCCESS;
}

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
    s = define_symbols(jm, n, names, addresses);
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
  jm->opt_level = opts->opt_level;
  if (define_user_symbols(jm, opts)) {
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

/* The module's ORC JIT, made at the first call with the symbols defined
** so far; NULL after reporting. */
static JitOrc *jit_module_orc(GiltJitModule *jm)
{
  if (jm->orc)
    return jm->orc;
  JitOrc *orc = jit_orc_create(jm->loc, jm->opt_level);
  if (orc && jm->num_symbols &&
      jit_orc_define_symbols(orc, jm->num_symbols,
                             (const char *const *)jm->symbol_names,
                             jm->symbol_addresses, jm->loc)) {
    jit_orc_destroy(orc, jm->loc);
    orc = NULL;
  }
  return jm->orc = orc;
}

LLVMContextRef jit_module_get_llvm_context(GiltJitModule *jm)
{
  JitOrc *orc = jit_module_orc(jm);
  return orc ? jit_orc_get_llvm_context(orc) : NULL;
}

GiltStatus jit_module_add_llvm(GiltJitModule *jm, LLVMModuleRef m)
{
  JitOrc *orc = jit_module_orc(jm);
  if (!orc) {
    LLVMDisposeModule(m);
    return GILT_FAILURE;
  }
  return jit_orc_add_module(orc, m, jm->loc);
}

/* Where an undefined symbol of an object gilt links lies: what the
** module defines, the runtime, then the objects linked before it. */
static void *resolve_symbol(const char *name, void *user)
{
  GiltJitModule *jm = user;
  void *address = defined_symbol(jm, name);
  if (!address)
    address = jit_runtime_symbol(name);
  for (size_t i = 0; i < jm->num_objects && !address; i++)
    address = object_link_lookup(jm->objects[i], name);
  return address;
}

GiltStatus jit_module_add_object(GiltJitModule *jm, const void *data,
                                 size_t size)
{
  if (!object_link_supported()) {
    JitOrc *orc = jit_module_orc(jm);
    return orc ? jit_orc_add_object(orc, data, size, jm->loc) : GILT_FAILURE;
  }
  ObjectLink **objects =
      realloc(jm->objects, (jm->num_objects + 1) * sizeof *objects);
  if (!objects) {
    gilt_emit_error(jm->loc, "out of memory linking an object");
    return GILT_FAILURE;
  }
  jm->objects = objects;
  ObjectLink *link =
      object_link_create(data, size, resolve_symbol, jm, jm->loc);
  if (!link)
    return GILT_FAILURE;
  jm->objects[jm->num_objects++] = link;
  return GILT_SUCCESS;
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
    s = define_symbols(jm, n, names, addresses);
  free(names);
  free(addresses);
  return s;
}

/* The address of the function `name` of the module's code, compiled now
** if ORC has yet to; NULL after reporting at loc. */
static void *lookup(GiltJitModule *jm, const char *name, GiltLocation *loc)
{
  for (size_t i = 0; i < jm->num_objects; i++) {
    void *address = object_link_lookup(jm->objects[i], name);
    if (address)
      return address;
  }
  if (jm->orc)
    return jit_orc_lookup(jm->orc, name, loc);
  gilt_emit_error(loc, "no compiled function is named '%s'", name);
  return NULL;
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
  e.address = lookup(jm, name, loc);
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
  JitOrc *orc = jit_module_orc(jm);
  if (!orc || jit_split_compile(orc, module, threads, &times, jm->loc) ||
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
  for (size_t i = 0; i < jm->num_objects; i++)
    object_link_destroy(jm->objects[i]);
  free(jm->objects);
  for (size_t i = 0; i < jm->num_symbols; i++)
    free(jm->symbol_names[i]);
  free(jm->symbol_names);
  free(jm->symbol_addresses);
  /* Buffers its calls left for reuse are the process's business again. */
  jit_block_release_all();
  /* After the code that reads them. */
  for (size_t i = 0; i < jm->num_weight_copies; i++)
    free(jm->weight_copies[i]);
  free(jm->weight_copies);
  free(jm);
}
