/*
** aot.c - gjit --aot (aot.h). The object comes from gilt_llvm_emit, as
** `gopt --emit=obj` writes it: the weights are llvm.globals with their
** values, so they are constant data of the object (.rodata), and the
** entries are external functions with jit/abi.h's signature. The header
** is generated from each entry's loop-level type (the gilt.entry_type
** attribute loop-to-llvm leaves on it), which also gives the shapes and
** element types its comments state. The runtime the object calls
** (gilt_rt_*) is lib/libgilt-runtime.a, which needs only libc, libm and
** pthreads.
*/
#include "tools/gjit/aot.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gilt/dialect.h"
#include "gilt/llvm.h"
#include "ir/support/alloc.h"
#include "jit/abi.h"
#include "jit/cache.h"

/* ---- symbols ------------------------------------------------------------ */

/* The C identifier OUT's file name gives: the prefix of every entry's
** symbol, and of the header's include guard. */
static char *base_identifier(const char *out)
{
  const char *base = strrchr(out, '/');
  base = base ? base + 1 : out;
  size_t n = strlen(base);
  char *id = malloc(n + 2);
  if (!id)
    return NULL;
  size_t k = 0;
  if (!isalpha((unsigned char)*base) && *base != '_')
    id[k++] = '_';
  for (size_t i = 0; i < n; i++)
    id[k++] = isalnum((unsigned char)base[i]) ? base[i] : '_';
  id[k] = '\0';
  return id;
}

typedef struct Rename {
  GiltContext *ctx;
  const char *from;
  GiltAttr *to;
} Rename;

/* Points every reference to @from (a call's callee, an addressof) at the
** new name. */
static GiltWalkResult rename_refs(GiltOp *op, void *user)
{
  Rename *r = user;
  GiltAttr *dict = gilt_op_get_attr_dictionary(op);
  for (size_t i = 0; i < gilt_dictionary_attr_get_size(dict); i++) {
    GiltNamedAttr a = gilt_dictionary_attr_get_entry(dict, i);
    if (gilt_attr_get_kind(a.attr) == GILT_ATTR_SYMBOL_REF &&
        !strcmp(gilt_symbol_ref_attr_get_root(a.attr), r->from)) {
      gilt_op_set_attr(op, a.name, r->to);
      dict = gilt_op_get_attr_dictionary(op);
    }
  }
  return GILT_WALK_ADVANCE;
}

/* A C program has its own `main` (and maybe its own `predict`): entry
** @f of the model becomes the symbol PREFIX_f. Weights and helpers become
** private (internal to the object), so that two models link into one
** program without clashing. */
static void prefix_symbols(GiltOp *module, const char *prefix)
{
  GiltContext *ctx = gilt_op_get_context(module);
  GiltAttr *private_ = gilt_string_attr_get(ctx, "private", 7);
  for (GiltOp *op = gilt_block_get_first_op(gilt_module_get_body(module)); op;
       op = gilt_op_get_next(op)) {
    bool is_func = !strcmp(gilt_op_get_name(op), "llvm.func");
    GiltAttr *name = gilt_op_get_attr(op, "sym_name");
    if (!name)
      continue;
    if (!is_func || !gilt_op_get_attr(op, GILT_ABI_ENTRY_TYPE_ATTR)) {
      /* Only what the module defines: a declaration is the runtime's. */
      if (is_func ? gilt_op_get_num_regions(op) &&
                        gilt_region_get_first_block(gilt_op_get_region(op, 0))
                  : gilt_op_get_attr(op, "value") != NULL)
        gilt_op_set_attr(op, "sym_visibility", private_);
      continue;
    }
    const char *old = gilt_string_attr_get_value(name, NULL);
    size_t n = strlen(prefix) + strlen(old) + 2;
    char *renamed = malloc(n);
    if (!renamed)
      continue;
    snprintf(renamed, n, "%s_%s", prefix, old);
    char *from = strdup(old);
    Rename r = {ctx, from, gilt_symbol_ref_attr_get(ctx, renamed, 0, NULL)};
    gilt_op_set_attr(op, "sym_name", gilt_string_attr_get(ctx, renamed,
                                                          strlen(renamed)));
    if (from)
      gilt_op_walk(module, GILT_WALK_PRE_ORDER, rename_refs, &r);
    free(from);
    free(renamed);
  }
}

/* ---- the header ---------------------------------------------------------- */

/* The C type of a scalar in jit/abi.h's convention, or NULL. */
static const char *c_scalar_type(GiltType *t)
{
  switch (gilt_type_get_kind(t)) {
  case GILT_TYPE_INDEX:
    return "int64_t";
  case GILT_TYPE_INTEGER: {
    unsigned w = gilt_integer_type_get_width(t);
    bool u = w == 1 || gilt_integer_type_get_signedness(t) == GILT_UNSIGNED;
    static const char *const names[2][4] = {
        {"int8_t", "int16_t", "int32_t", "int64_t"},
        {"uint8_t", "uint16_t", "uint32_t", "uint64_t"}};
    int k = w <= 8 ? 0 : w <= 16 ? 1 : w <= 32 ? 2 : w <= 64 ? 3 : -1;
    return k < 0 ? NULL : names[u][k];
  }
  case GILT_TYPE_FLOAT:
    switch (gilt_float_type_get_kind(t)) {
    case GILT_F16:
    case GILT_BF16:
      return "uint16_t";
    case GILT_F32:
      return "float";
    case GILT_F64:
      return "double";
    default:
      return NULL;
    }
  default:
    return NULL;
  }
}

static void print_type(FILE *f, GiltType *t)
{
  gilt_type_print(t, gilt_print_to_file, f);
}

/* " * argument 0: memref<1x4xf32>, shape 1x4 (? dynamic), f32" */
static void describe(FILE *f, const char *what, size_t i, GiltType *t)
{
  fprintf(f, " *   %s %zu: ", what, i);
  print_type(f, t);
  if (gilt_type_get_kind(t) == GILT_TYPE_MEMREF) {
    fputs(": shape ", f);
    size_t rank = gilt_shaped_type_get_rank(t);
    if (rank == 0)
      fputs("() (a scalar in memory)", f);
    for (size_t d = 0; d < rank; d++) {
      int64_t n = gilt_shaped_type_get_dim(t, d);
      if (n < 0)
        fprintf(f, d ? "x?" : "?");
      else
        fprintf(f, d ? "x%lld" : "%lld", (long long)n);
    }
    fputs(", element type ", f);
    print_type(f, gilt_shaped_type_get_element_type(t));
  }
  fputc('\n', f);
}

/* One entry's comment and prototype; false after reporting a type with no
** C form. */
static bool declare(FILE *f, const JitCacheFunction *fn, GiltLocation *loc)
{
  GiltType *t = fn->type;
  size_t ni = gilt_function_type_get_num_inputs(t);
  size_t nr = gilt_function_type_get_num_results(t);
  fprintf(f, "/* %s: ", fn->name);
  print_type(f, t);
  fputs("\n", f);
  for (size_t i = 0; i < ni; i++)
    describe(f, "argument", i, gilt_function_type_get_input(t, i));
  for (size_t i = 0; i < nr; i++)
    describe(f, "result", i, gilt_function_type_get_result(t, i));
  fputs(" * Returns 0, or 1 after a failed check (gilt_rt_last_error()). */\n",
        f);
  fprintf(f, "int32_t %s(", fn->name);
  for (size_t i = 0; i < ni + nr; i++) {
    GiltType *a = i < ni ? gilt_function_type_get_input(t, i)
                         : gilt_function_type_get_result(t, i - ni);
    const char *c = gilt_type_get_kind(a) == GILT_TYPE_MEMREF
                        ? "GiltMemRefDesc"
                        : c_scalar_type(a);
    if (!c || (gilt_type_get_kind(a) == GILT_TYPE_MEMREF &&
               gilt_shaped_type_get_rank(a) > 32)) {
      gilt_emit_error(loc, "entry '%s': %s %zu has no C form in jit/abi.h",
                      fn->name, i < ni ? "argument" : "result",
                      i < ni ? i : i - ni);
      return false;
    }
    bool ptr = i >= ni || gilt_type_get_kind(a) == GILT_TYPE_MEMREF;
    fprintf(f, "%s%s%s%s%zu", i ? ", " : "", c, ptr ? " *" : " ",
            i < ni ? "arg" : "res", i < ni ? i : i - ni);
  }
  fputs(ni + nr ? ");\n\n" : "void);\n\n", f);
  return true;
}

static const char runtime_decls[] =
    "/* The memref descriptor of jit/abi.h: element (i, j) of a rank-2\n"
    "** memref is data[offset + i * strides[0] + j * strides[1]]. */\n"
    "#ifndef GILT_JIT_ABI_H\n"
    "#ifndef GILT_MEMREF_DESC_DEFINED\n"
    "#define GILT_MEMREF_DESC_DEFINED\n"
    "#define GILT_MAX_RANK 32\n"
    "typedef struct GiltMemRefDesc {\n"
    "  void *data;\n"
    "  int64_t offset;\n"
    "  int64_t sizes[GILT_MAX_RANK];\n"
    "  int64_t strides[GILT_MAX_RANK];\n"
    "} GiltMemRefDesc;\n"
    "#endif\n"
    "\n"
    "/* The runtime the object calls (lib/libgilt-runtime.a; link with\n"
    "** -lm -lpthread too). A memref result's data belongs to the\n"
    "** caller, who frees it with gilt_rt_free. */\n"
    "int64_t gilt_rt_scope_enter(void);\n"
    "void gilt_rt_scope_exit(int64_t mark);\n"
    "void *gilt_rt_alloc(int64_t bytes, int64_t align);\n"
    "int32_t gilt_rt_adopt(void *p);\n"
    "void gilt_rt_disown(void *p);\n"
    "void gilt_rt_free(void *p);\n"
    "void gilt_rt_fail(const char *message, const char *location);\n"
    "const char *gilt_rt_last_error(void);\n"
    "void gilt_rt_parallel_for(int64_t n,\n"
    "                          void (*body)(int64_t begin, int64_t end,\n"
    "                                       void *context),\n"
    "                          void *context);\n"
    "#endif /* GILT_JIT_ABI_H */\n\n";

static bool write_header(FILE *f, const char *out, const char *prefix,
                         const char *model, size_t n,
                         const JitCacheFunction *fns, GiltLocation *loc)
{
  char guard[128];
  int k = snprintf(guard, sizeof guard, "GILT_AOT_%s_H", prefix);
  for (int i = 0; i < k && guard[i]; i++)
    guard[i] = (char)toupper((unsigned char)guard[i]);
  fprintf(f, "/* Generated by gjit " GILT_VERSION " --aot from %s: the\n"
             "** entry functions of %s.o, in jit/abi.h's calling "
             "convention. */\n"
             "#ifndef %s\n#define %s\n\n#include <stdint.h>\n\n"
             "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n",
          model, out, guard, guard);
  fputs(runtime_decls, f);
  for (size_t i = 0; i < n; i++)
    if (!declare(f, &fns[i], loc))
      return false;
  fprintf(f, "#ifdef __cplusplus\n}\n#endif\n\n#endif /* %s */\n", guard);
  return true;
}

typedef struct Sink {
  FILE *f;
  bool ok;
} Sink;

static void to_file(const char *data, size_t len, void *user)
{
  Sink *s = user;
  if (fwrite(data, 1, len, s->f) != len)
    s->ok = false;
}

/* Opens OUT + suffix for writing; NULL after reporting. */
static FILE *open_output(const char *out, const char *suffix, char **path,
                         GiltLocation *loc)
{
  size_t n = strlen(out) + strlen(suffix) + 1;
  *path = malloc(n);
  if (!*path) {
    gilt_emit_error(loc, "out of memory");
    return NULL;
  }
  snprintf(*path, n, "%s%s", out, suffix);
  FILE *f = fopen(*path, "wb");
  if (!f)
    gilt_emit_error(loc, "cannot write '%s': %s", *path, strerror(errno));
  return f;
}

static bool finish(FILE *f, bool ok, const char *path, GiltLocation *loc)
{
  if (fclose(f) != 0 && ok) {
    gilt_emit_error(loc, "cannot write '%s': %s", path, strerror(errno));
    ok = false;
  }
  if (!ok)
    remove(path);
  return ok;
}

GiltStatus gjit_aot_write(GiltOp *module, const char *out, const char *model,
                          unsigned opt_level)
{
  GiltLocation *loc = gilt_op_get_location(module);
  if (gilt_op_verify(module))
    return GILT_FAILURE;
  char *prefix = base_identifier(out);
  if (!prefix) {
    gilt_emit_error(loc, "out of memory");
    return GILT_FAILURE;
  }
  prefix_symbols(module, prefix);
  size_t n;
  JitCacheFunction *fns;
  if (jit_cache_collect_functions(module, &n, &fns)) {
    free(prefix);
    return GILT_FAILURE;
  }
  if (n == 0) {
    free(prefix);
    free(fns);
    gilt_emit_error(loc, "has no entry function to compile ahead of time "
                         "(does the pipeline end with loop-to-llvm?)");
    return GILT_FAILURE;
  }
  char *obj_path = NULL, *h_path = NULL;
  bool ok = false;
  FILE *f = open_output(out, ".o", &obj_path, loc);
  if (f) {
    GiltLlvmTargetOptions target = gilt_llvm_target_options_default();
    target.opt_level = opt_level;
    Sink sink = {f, true};
    ok = gilt_llvm_emit(module, &target, GILT_LLVM_OUTPUT_OBJECT, to_file,
                        &sink) == GILT_SUCCESS;
    if (ok && !sink.ok)
      gilt_emit_error(loc, "cannot write '%s': %s", obj_path,
                      strerror(errno));
    ok = finish(f, ok && sink.ok, obj_path, loc);
  }
  if (ok && (f = open_output(out, ".h", &h_path, loc))) {
    ok = write_header(f, out, prefix, model, n, fns, loc);
    if (ok && ferror(f))
      gilt_emit_error(loc, "cannot write '%s'", h_path);
    ok = finish(f, ok && !ferror(f), h_path, loc);
    if (!ok)
      remove(obj_path);
  } else {
    ok = false;
  }
  free(obj_path);
  free(h_path);
  free(fns);
  free(prefix);
  return ok ? GILT_SUCCESS : GILT_FAILURE;
}
