/*
** split.c - a module of the llvm dialect compiled on several threads at
** once: its functions shared out among parts of about equal size, each
** part translated into an LLVM context of its own, then optimized and
** compiled to an object on a thread of its own with a target machine of
** its own, and the objects added to the one JITDylib, where they link to
** each other as the whole module's code would.
**
** Why: LLVM's optimization pipeline and its code generator are nearly
** all of a cold compile (ResNet-18: 1.5 s and 1.1 s of 2.7, translation
** 0.06 s), and neither looks across functions in a module like these,
** whose functions call the runtime, not each other: the parallel bodies
** are handed to gilt_rt_parallel_for by address. What calls does join
** (a function and those it calls directly stay in one part), so that
** inlining sees what it saw in one module. Parts are balanced by their
** count of ops, a kernel's weighing three of an entry's (LLVM's cost per
** op: scan_function), largest first onto the lightest part (LPT
** scheduling).
** Translation stays on the calling thread: the gilt context is not
** shared between threads; only LLVM's half, which owns nothing of gilt's,
** runs in parallel. One part (one thread, or one group of functions)
** compiles on the calling thread.
**
** Not here: what a part declares and defines (translate.h's LlvmSplit),
** the pipeline and the machine (orc.c).
*/
#include "jit/split.h"

#include <pthread.h>
#include <stdlib.h>

#include "dialects/llvm/llvm.h"
#include "dialects/llvm/translate.h"
#include "jit/abi.h"
#include "jit/clock.h"

/* ---- sharing out the functions ------------------------------------------ */

typedef struct SplitFn {
  GiltOp *op;
  size_t size;  /* its body's ops, weighed (scan_function) */
  size_t group; /* union-find parent, an index into the same array */
} SplitFn;

/* The root of fns[i]'s group, halving the path on the way (each visited
** slot points to its grandparent), so that chains stay short. */
static size_t find_group(SplitFn *fns, size_t i)
{
  while (fns[i].group != i) {
    size_t grandparent = fns[fns[i].group].group;
    fns[i].group = grandparent;
    i = grandparent;
  }
  return i;
}

/* What an op of a kernel (any function but an entry) counts for against
** an op of an entry. An entry is host code: descriptors built field by
** field, launches, status checks, few loops; LLVM spends about a third
** as long on each of its ops (RegNetY-400MF: 24 against 68 us of CPU per
** op), and counted alike its large `main` filled one part alone, the
** kernels the other: 0.7 s of CPU against 1.9. */
#define KERNEL_OP_WEIGHT 3

/* Weighs the ops of fns[i]'s body (KERNEL_OP_WEIGHT) and joins it with
** the defined functions it calls; `index` maps each defined function to
** its slot. */
static void scan_function(SplitFn *fns, size_t i, GiltOp *module,
                          const GiltPtrMap *index)
{
  GiltRegion *body = gilt_op_get_region(fns[i].op, 0);
  size_t weight =
      gilt_op_get_attr(fns[i].op, GILT_ABI_ENTRY_TYPE_ATTR) ? 1
                                                            : KERNEL_OP_WEIGHT;
  for (GiltBlock *b = gilt_region_get_first_block(body); b;
       b = gilt_block_get_next(b))
    for (GiltOp *op = gilt_block_get_first_op(b); op;
         op = gilt_op_get_next(op)) {
      fns[i].size += weight;
      GiltAttr *callee = llvm_op_is(op, LLVM_OP_CALL)
                             ? gilt_op_get_attr(op, "callee")
                             : NULL;
      GiltOp *target = callee ? gilt_symbol_table_lookup(
                                    module,
                                    gilt_symbol_ref_attr_get_root(callee))
                              : NULL;
      size_t j;
      if (target && gilt_ptr_map_get(index, target, &j)) {
        size_t callee_root = find_group(fns, j);
        fns[callee_root].group = find_group(fns, i);
      }
    }
}

/* The defined llvm.funcs of `module` as a new array of *n (free()),
** sized and grouped; NULL when there are none or no memory. */
static SplitFn *collect_functions(GiltOp *module, size_t *n)
{
  GiltBlock *body = gilt_module_get_body(module);
  GiltPtrMap index;
  gilt_ptr_map_init(&index, gilt_op_get_context(module));
  *n = 0;
  for (GiltOp *op = gilt_block_get_first_op(body); op;
       op = gilt_op_get_next(op))
    if (llvm_op_is(op, LLVM_OP_FUNC) &&
        gilt_region_get_num_blocks(gilt_op_get_region(op, 0)) > 0)
      gilt_ptr_map_put(&index, op, (*n)++);
  SplitFn *fns = *n ? calloc(*n, sizeof *fns) : NULL;
  size_t i = 0;
  for (GiltOp *op = gilt_block_get_first_op(body); op && fns;
       op = gilt_op_get_next(op))
    if (gilt_ptr_map_get(&index, op, NULL)) {
      fns[i] = (SplitFn){.op = op, .group = i};
      i++;
    }
  for (i = 0; fns && i < *n; i++)
    scan_function(fns, i, module, &index);
  gilt_ptr_map_free(&index);
  return fns;
}

/* Group sizes, heaviest first: a group is known by its root's index. */
static int by_size_descending(const void *a, const void *b)
{
  const SplitFn *x = *(const SplitFn *const *)a;
  const SplitFn *y = *(const SplitFn *const *)b;
  return (x->size < y->size) - (x->size > y->size);
}

/* Shares the groups of fns out among at most max_parts parts into
** part_of (function op -> part); returns the number of parts used, or 0
** when out of memory. */
static size_t plan_parts(SplitFn *fns, size_t n, size_t max_parts,
                         GiltPtrMap *part_of)
{
  /* Each group's total size on its root, the roots in a list. */
  SplitFn **roots = calloc(n, sizeof *roots);
  size_t *load = calloc(max_parts, sizeof *load);
  size_t *part = calloc(n, sizeof *part);
  size_t num_roots = 0, used = 0;
  if (roots && load && part) {
    for (size_t i = 0; i < n; i++) {
      size_t r = find_group(fns, i);
      if (r != i)
        fns[r].size += fns[i].size;
    }
    for (size_t i = 0; i < n; i++)
      if (find_group(fns, i) == i)
        roots[num_roots++] = &fns[i];
    qsort(roots, num_roots, sizeof *roots, by_size_descending);
    for (size_t k = 0; k < num_roots; k++) {
      size_t lightest = 0;
      for (size_t p = 1; p < max_parts; p++)
        if (load[p] < load[lightest])
          lightest = p;
      load[lightest] += roots[k]->size;
      part[roots[k] - fns] = lightest;
      used = used > lightest + 1 ? used : lightest + 1;
    }
    for (size_t i = 0; i < n; i++)
      gilt_ptr_map_put(part_of, fns[i].op, part[find_group(fns, i)]);
  }
  free(roots);
  free(load);
  free(part);
  return used;
}

/* ---- compiling the parts ------------------------------------------------ */

typedef struct SplitPart {
  const JitOrc *orc;
  LLVMContextRef llctx;
  LLVMTargetMachineRef tm;
  LLVMModuleRef module; /* consumed by the compile */
  LLVMMemoryBufferRef object;
  char *error;
  JitCompileTimes times;
  pthread_t thread;
  bool started;
} SplitPart;

static void *compile_part(void *arg)
{
  SplitPart *p = arg;
  p->object =
      jit_orc_compile_object(p->orc, p->tm, p->module, &p->times, &p->error);
  p->module = NULL;
  return NULL;
}

/* Translates part `k` of the split into parts[k] with a machine of its
** own; fails after reporting. */
static GiltStatus prepare_part(SplitPart *part, JitOrc *orc, GiltOp *module,
                               const LlvmSplit *split, GiltLocation *loc)
{
  part->orc = orc;
  part->llctx = LLVMContextCreate();
  part->tm = jit_orc_create_machine(orc, loc);
  if (!part->tm)
    return GILT_FAILURE;
  part->module = llvm_translate_module_part(
      module, part->llctx, jit_orc_get_target_machine(orc),
      LLVM_WEIGHTS_LINKED, split);
  return part->module ? GILT_SUCCESS : GILT_FAILURE;
}

/* Compiles parts 1.. on threads of their own and part 0 on this one, and
** waits for all; a part whose thread does not start compiles here. */
static void compile_parts(SplitPart *parts, size_t n)
{
  for (size_t k = 1; k < n; k++)
    parts[k].started =
        !pthread_create(&parts[k].thread, NULL, compile_part, &parts[k]);
  compile_part(&parts[0]);
  for (size_t k = 1; k < n; k++) {
    if (parts[k].started)
      pthread_join(parts[k].thread, NULL);
    else
      compile_part(&parts[k]);
  }
}

/* Reports part's error, or adds its object to orc. */
static GiltStatus add_part(JitOrc *orc, SplitPart *part, GiltLocation *loc)
{
  if (!part->object) {
    /* No message only when even making one ran out of memory. */
    gilt_emit_error(loc, "%s",
                    part->error ? part->error
                                : "cannot compile a part of the module: out "
                                  "of memory");
    return GILT_FAILURE;
  }
  return jit_orc_add_object(orc, LLVMGetBufferStart(part->object),
                            LLVMGetBufferSize(part->object), loc);
}

static void free_part(SplitPart *part)
{
  if (part->module)
    LLVMDisposeModule(part->module);
  if (part->object)
    LLVMDisposeMemoryBuffer(part->object);
  if (part->tm)
    LLVMDisposeTargetMachine(part->tm);
  /* After the module, which lives in it. */
  if (part->llctx)
    LLVMContextDispose(part->llctx);
  free(part->error);
}

static GiltStatus compile_split(JitOrc *orc, GiltOp *module,
                                const GiltPtrMap *part_of, size_t n,
                                JitSplitTimes *times, GiltLocation *loc)
{
  SplitPart *parts = calloc(n, sizeof *parts);
  GiltStatus s = parts ? GILT_SUCCESS : GILT_FAILURE;
  if (!parts)
    gilt_emit_error(loc, "out of memory compiling %zu parts", n);
  double start = jit_now_seconds();
  for (size_t k = 0; k < n && s == GILT_SUCCESS; k++) {
    /* One part is the whole module, its private symbols internal. */
    LlvmSplit split = {.part_of = part_of, .part = k};
    s = prepare_part(&parts[k], orc, module, n > 1 ? &split : NULL, loc);
  }
  double translated = jit_now_seconds();
  if (s == GILT_SUCCESS)
    compile_parts(parts, n);
  double compiled = jit_now_seconds();
  for (size_t k = 0; k < n && s == GILT_SUCCESS; k++) {
    times->optimize_cpu += parts[k].times.optimize;
    times->codegen_cpu += parts[k].times.codegen;
    s = add_part(orc, &parts[k], loc);
  }
  times->translate = translated - start;
  times->compile = compiled - translated;
  for (size_t k = 0; parts && k < n; k++)
    free_part(&parts[k]);
  free(parts);
  return s;
}

GiltStatus jit_split_compile(JitOrc *orc, GiltOp *module, size_t threads,
                             JitSplitTimes *times, GiltLocation *loc)
{
  *times = (JitSplitTimes){0};
  size_t n = 0;
  SplitFn *fns = collect_functions(module, &n);
  GiltPtrMap part_of;
  gilt_ptr_map_init(&part_of, gilt_op_get_context(module));
  /* No function at all: one part, of the globals. */
  size_t parts = fns ? plan_parts(fns, n, threads ? threads : 1, &part_of)
                     : !n;
  free(fns);
  GiltStatus s;
  if (!parts) {
    gilt_emit_error(loc, "out of memory splitting %zu functions", n);
    s = GILT_FAILURE;
  } else {
    times->parts = parts;
    s = compile_split(orc, module, &part_of, parts, times, loc);
  }
  gilt_ptr_map_free(&part_of);
  return s;
}
