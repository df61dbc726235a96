/*
** jit.c - unit test of the JIT (gilt/jit.h and its internal entry
** jit/jit.h): LLVM modules built with LLVM's C API in the calling
** convention of jit/abi.h, compiled by ORC and called through libffi on
** host tensors.
**
** The functions: one adding two f32 memrefs into a third (destination
** passing, no results), one returning a freshly allocated memref whose
** descriptor has an offset and a stride (so the copy out must honour
** them), one taking and returning scalars that fails through gilt_rt_fail
** on a negative input, one calling expf, one filling a buffer through
** gilt_rt_parallel_for (and one whose chunk fails), one reading a weight
** the caller defines. And the errors: wrong inputs in the interpreter's
** words, an undefined symbol, a module that does not verify, an entry type
** with no C form, an unknown entry.
**
** The one place a unit test includes LLVM headers: until the llvm
** dialect translates, this is how code reaches the JIT.
*/
#include <llvm-c/Core.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gilt/jit.h"
#include "gilt/register.h"
#include "jit/abi.h"
#include "jit/jit.h"
#include "test/unit/check.h"

static GiltContext *ctx;
static size_t errors;
static char last_error[1024];
static char last_where[256]; /* its location, as printed */
static char all_errors[8192]; /* every error since errors was last 0 */

static void print_to(const char *data, size_t len, void *file)
{
  fwrite(data, 1, len, file);
}

static void on_diag(const GiltDiagnostic *d, void *user)
{
  (void)user;
  if (gilt_diagnostic_get_severity(d) != GILT_SEVERITY_ERROR)
    return;
  if (errors++ == 0)
    all_errors[0] = '\0';
  snprintf(last_error, sizeof last_error, "%s", gilt_diagnostic_get_message(d));
  FILE *f = fmemopen(last_where, sizeof last_where, "w");
  if (f) {
    gilt_location_print(gilt_diagnostic_get_location(d), print_to, f);
    fclose(f);
  }
  size_t used = strlen(all_errors);
  snprintf(all_errors + used, sizeof all_errors - used, "%s\n", last_error);
}

/* ---- building functions in abi.h's convention --------------------------------- */

typedef struct B {
  LLVMContextRef c;
  LLVMModuleRef m;
  LLVMBuilderRef b;
  LLVMValueRef fn;
  LLVMTypeRef desc, ptr, i64, i32, f32, f64;
} B;

static void b_init(B *x, LLVMContextRef c, const char *name)
{
  x->c = c;
  x->m = LLVMModuleCreateWithNameInContext(name, c);
  x->b = LLVMCreateBuilderInContext(c);
  x->ptr = LLVMPointerTypeInContext(c, 0);
  x->i64 = LLVMInt64TypeInContext(c);
  x->i32 = LLVMInt32TypeInContext(c);
  x->f32 = LLVMFloatTypeInContext(c);
  x->f64 = LLVMDoubleTypeInContext(c);
  LLVMTypeRef fields[] = {x->ptr, x->i64, LLVMArrayType2(x->i64, GILT_MAX_RANK),
                          LLVMArrayType2(x->i64, GILT_MAX_RANK)};
  x->desc = LLVMStructTypeInContext(c, fields, 4, 0);
}

static LLVMValueRef b_func(B *x, const char *name, LLVMTypeRef ret,
                           LLVMTypeRef *params, unsigned n)
{
  x->fn = LLVMAddFunction(x->m, name, LLVMFunctionType(ret, params, n, 0));
  LLVMPositionBuilderAtEnd(x->b, LLVMAppendBasicBlockInContext(x->c, x->fn, "entry"));
  return x->fn;
}

static LLVMValueRef i64c(B *x, long long v)
{
  return LLVMConstInt(x->i64, (unsigned long long)v, 1);
}

/* Field f (0 data, 1 offset, 2 sizes, 3 strides) of descriptor d;
** dim for sizes and strides. */
static LLVMValueRef field_ptr(B *x, LLVMValueRef d, unsigned f, unsigned dim)
{
  LLVMValueRef idx[] = {LLVMConstInt(x->i32, 0, 0), LLVMConstInt(x->i32, f, 0),
                        LLVMConstInt(x->i32, dim, 0)};
  return LLVMBuildInBoundsGEP2(x->b, x->desc, d, idx, f >= 2 ? 3 : 2, "");
}

static LLVMValueRef load_field(B *x, LLVMValueRef d, unsigned f, unsigned dim)
{
  return LLVMBuildLoad2(x->b, f == 0 ? x->ptr : x->i64, field_ptr(x, d, f, dim),
                        "");
}

/* The address of element i of a rank-1 descriptor of elements ty. */
static LLVMValueRef elem_ptr(B *x, LLVMTypeRef ty, LLVMValueRef d, LLVMValueRef i)
{
  LLVMValueRef off = LLVMBuildAdd(
      x->b, load_field(x, d, 1, 0),
      LLVMBuildMul(x->b, i, load_field(x, d, 3, 0), ""), "");
  return LLVMBuildGEP2(x->b, ty, load_field(x, d, 0, 0), &off, 1, "");
}

typedef void (*BodyFn)(B *x, LLVMValueRef i, void *user);

/* for (i = lo; i < hi; i++) body(i), from the current block on. */
static void b_loop(B *x, LLVMValueRef lo, LLVMValueRef hi, BodyFn body,
                   void *user)
{
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(x->b);
  LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(x->c, x->fn, "head");
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(x->c, x->fn, "loop");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(x->c, x->fn, "done");
  LLVMBuildBr(x->b, head);
  LLVMPositionBuilderAtEnd(x->b, head);
  LLVMValueRef i = LLVMBuildPhi(x->b, x->i64, "i");
  LLVMBuildCondBr(x->b, LLVMBuildICmp(x->b, LLVMIntSLT, i, hi, ""), loop, done);
  LLVMPositionBuilderAtEnd(x->b, loop);
  body(x, i, user);
  LLVMValueRef next = LLVMBuildAdd(x->b, i, i64c(x, 1), "");
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(x->b);
  LLVMBuildBr(x->b, head);
  LLVMValueRef in_vals[] = {lo, next};
  LLVMBasicBlockRef in_blocks[] = {pre, latch};
  LLVMAddIncoming(i, in_vals, in_blocks, 2);
  LLVMPositionBuilderAtEnd(x->b, done);
}

static void ret0(B *x)
{
  LLVMBuildRet(x->b, LLVMConstInt(x->i32, 0, 0));
}

static LLVMValueRef declare(B *x, const char *name, LLVMTypeRef ret,
                            LLVMTypeRef *params, unsigned n)
{
  LLVMValueRef f = LLVMGetNamedFunction(x->m, name);
  return f ? f : LLVMAddFunction(x->m, name, LLVMFunctionType(ret, params, n, 0));
}

static LLVMValueRef call(B *x, const char *name, LLVMTypeRef ret,
                         LLVMTypeRef *params, unsigned n, LLVMValueRef *args)
{
  LLVMValueRef f = declare(x, name, ret, params, n);
  return LLVMBuildCall2(x->b, LLVMFunctionType(ret, params, n, 0), f, args, n, "");
}

/* add(a, b, c: memref<?xf32>): c[i] = a[i] + b[i]. */
static void add_body(B *x, LLVMValueRef i, void *user)
{
  (void)user;
  LLVMValueRef a = LLVMGetParam(x->fn, 0), b = LLVMGetParam(x->fn, 1),
               c = LLVMGetParam(x->fn, 2);
  LLVMValueRef s = LLVMBuildFAdd(
      x->b, LLVMBuildLoad2(x->b, x->f32, elem_ptr(x, x->f32, a, i), ""),
      LLVMBuildLoad2(x->b, x->f32, elem_ptr(x, x->f32, b, i), ""), "");
  LLVMBuildStore(x->b, s, elem_ptr(x, x->f32, c, i));
}

static void build_add(B *x)
{
  LLVMTypeRef p[] = {x->ptr, x->ptr, x->ptr};
  b_func(x, "add", x->i32, p, 3);
  b_loop(x, i64c(x, 0), load_field(x, LLVMGetParam(x->fn, 0), 2, 0), add_body,
         NULL);
  ret0(x);
}

/* twice(a: memref<?xf32>) -> memref<?xf32>: a fresh buffer of 2n + 1
** floats, the result at offset 1 with stride 2, so that the elements in
** between (never written) must not be read. */
static void twice_body(B *x, LLVMValueRef i, void *user)
{
  LLVMValueRef out = user, a = LLVMGetParam(x->fn, 0);
  LLVMValueRef v = LLVMBuildLoad2(x->b, x->f32, elem_ptr(x, x->f32, a, i), "");
  LLVMBuildStore(x->b, LLVMBuildFMul(x->b, v, LLVMConstReal(x->f32, 2), ""),
                 elem_ptr(x, x->f32, out, i));
}

static void build_twice(B *x)
{
  LLVMTypeRef p[] = {x->ptr, x->ptr};
  b_func(x, "twice", x->i32, p, 2);
  LLVMValueRef a = LLVMGetParam(x->fn, 0), out = LLVMGetParam(x->fn, 1);
  LLVMValueRef n = load_field(x, a, 2, 0);
  LLVMValueRef bytes = LLVMBuildMul(
      x->b, LLVMBuildAdd(x->b, LLVMBuildMul(x->b, n, i64c(x, 2), ""),
                         i64c(x, 1), ""),
      i64c(x, 4), "");
  LLVMTypeRef ap[] = {x->i64, x->i64};
  LLVMValueRef args[] = {bytes, i64c(x, 64)};
  LLVMValueRef data = call(x, "gilt_rt_alloc", x->ptr, ap, 2, args);
  LLVMBuildStore(x->b, data, field_ptr(x, out, 0, 0));
  LLVMBuildStore(x->b, i64c(x, 1), field_ptr(x, out, 1, 0));
  LLVMBuildStore(x->b, n, field_ptr(x, out, 2, 0));
  LLVMBuildStore(x->b, i64c(x, 2), field_ptr(x, out, 3, 0));
  b_loop(x, i64c(x, 0), n, twice_body, out);
  ret0(x);
}

/* checked(x: index, y: f64) -> (index, f64): x + 1 and y / 2, or a
** failure when x is negative. */
static void build_checked(B *x)
{
  LLVMTypeRef p[] = {x->i64, x->f64, x->ptr, x->ptr};
  b_func(x, "checked", x->i32, p, 4);
  LLVMValueRef v = LLVMGetParam(x->fn, 0);
  LLVMBasicBlockRef bad = LLVMAppendBasicBlockInContext(x->c, x->fn, "bad");
  LLVMBasicBlockRef good = LLVMAppendBasicBlockInContext(x->c, x->fn, "good");
  LLVMBuildCondBr(x->b, LLVMBuildICmp(x->b, LLVMIntSLT, v, i64c(x, 0), ""), bad,
                  good);
  LLVMPositionBuilderAtEnd(x->b, bad);
  LLVMTypeRef fp[] = {x->ptr, x->ptr};
  LLVMValueRef args[] = {
      LLVMBuildGlobalStringPtr(x->b, "negative input", "msg"),
      LLVMBuildGlobalStringPtr(x->b, "\"checked.gilt\":3:5", "loc")};
  call(x, "gilt_rt_fail", LLVMVoidTypeInContext(x->c), fp, 2, args);
  LLVMBuildRet(x->b, LLVMConstInt(x->i32, 1, 0));
  LLVMPositionBuilderAtEnd(x->b, good);
  LLVMBuildStore(x->b, LLVMBuildAdd(x->b, v, i64c(x, 1), ""),
                 LLVMGetParam(x->fn, 2));
  LLVMBuildStore(x->b,
                 LLVMBuildFDiv(x->b, LLVMGetParam(x->fn, 1),
                               LLVMConstReal(x->f64, 2), ""),
                 LLVMGetParam(x->fn, 3));
  ret0(x);
}

/* exps(a, out: memref<?xf32>): out[i] = expf(a[i]). */
static void exps_body(B *x, LLVMValueRef i, void *user)
{
  (void)user;
  LLVMValueRef a = LLVMGetParam(x->fn, 0), out = LLVMGetParam(x->fn, 1);
  LLVMValueRef v = LLVMBuildLoad2(x->b, x->f32, elem_ptr(x, x->f32, a, i), "");
  LLVMTypeRef p[] = {x->f32};
  LLVMBuildStore(x->b, call(x, "expf", x->f32, p, 1, &v),
                 elem_ptr(x, x->f32, out, i));
}

static void build_exps(B *x)
{
  LLVMTypeRef p[] = {x->ptr, x->ptr};
  b_func(x, "exps", x->i32, p, 2);
  b_loop(x, i64c(x, 0), load_field(x, LLVMGetParam(x->fn, 0), 2, 0), exps_body,
         NULL);
  ret0(x);
}

/* squares(a: memref<?xf64>, fail_at: index): a[i] = i * i through
** gilt_rt_parallel_for; the chunk holding fail_at fails, and the entry
** returns 1 when gilt_rt_last_error says a chunk failed. The body's
** context is a pointer to {descriptor pointer, fail_at}. */
static void squares_body_loop(B *x, LLVMValueRef i, void *user)
{
  LLVMValueRef *ctxv = user; /* [desc, fail_at] */
  LLVMValueRef f = LLVMBuildSIToFP(x->b, i, x->f64, "");
  LLVMBuildStore(x->b, LLVMBuildFMul(x->b, f, f, ""),
                 elem_ptr(x, x->f64, ctxv[0], i));
  LLVMBasicBlockRef bad = LLVMAppendBasicBlockInContext(x->c, x->fn, "bad");
  LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(x->c, x->fn, "go");
  LLVMBuildCondBr(x->b, LLVMBuildICmp(x->b, LLVMIntEQ, i, ctxv[1], ""), bad, go);
  LLVMPositionBuilderAtEnd(x->b, bad);
  LLVMTypeRef fp[] = {x->ptr, x->ptr};
  LLVMValueRef args[] = {LLVMBuildGlobalStringPtr(x->b, "chunk failed", ""),
                         LLVMBuildGlobalStringPtr(x->b, "\"par.gilt\":7:3", "")};
  call(x, "gilt_rt_fail", LLVMVoidTypeInContext(x->c), fp, 2, args);
  LLVMBuildBr(x->b, go);
  LLVMPositionBuilderAtEnd(x->b, go);
}

static void build_squares(B *x)
{
  LLVMTypeRef ctx_ty_fields[] = {x->ptr, x->i64};
  LLVMTypeRef ctx_ty = LLVMStructTypeInContext(x->c, ctx_ty_fields, 2, 0);
  /* The body. */
  LLVMTypeRef bp[] = {x->i64, x->i64, x->ptr};
  LLVMValueRef body = b_func(x, "squares_body", LLVMVoidTypeInContext(x->c), bp, 3);
  LLVMSetLinkage(body, LLVMInternalLinkage);
  LLVMValueRef c = LLVMGetParam(body, 2);
  LLVMValueRef ctxv[] = {
      LLVMBuildLoad2(x->b, x->ptr, LLVMBuildStructGEP2(x->b, ctx_ty, c, 0, ""), ""),
      LLVMBuildLoad2(x->b, x->i64, LLVMBuildStructGEP2(x->b, ctx_ty, c, 1, ""), "")};
  b_loop(x, LLVMGetParam(body, 0), LLVMGetParam(body, 1), squares_body_loop, ctxv);
  LLVMBuildRetVoid(x->b);
  /* The entry. */
  LLVMTypeRef p[] = {x->ptr, x->i64};
  b_func(x, "squares", x->i32, p, 2);
  LLVMValueRef slot = LLVMBuildAlloca(x->b, ctx_ty, "");
  LLVMBuildStore(x->b, LLVMGetParam(x->fn, 0), LLVMBuildStructGEP2(x->b, ctx_ty, slot, 0, ""));
  LLVMBuildStore(x->b, LLVMGetParam(x->fn, 1), LLVMBuildStructGEP2(x->b, ctx_ty, slot, 1, ""));
  LLVMTypeRef pp[] = {x->i64, x->ptr, x->ptr};
  LLVMValueRef args[] = {load_field(x, LLVMGetParam(x->fn, 0), 2, 0), body, slot};
  call(x, "gilt_rt_parallel_for", LLVMVoidTypeInContext(x->c), pp, 3, args);
  LLVMValueRef err = call(x, "gilt_rt_last_error", x->ptr, NULL, 0, NULL);
  LLVMValueRef failed = LLVMBuildICmp(x->b, LLVMIntNE, err, LLVMConstNull(x->ptr), "");
  LLVMBuildRet(x->b, LLVMBuildZExt(x->b, failed, x->i32, ""));
}

/* weight() -> f32: the float at the external symbol @w, times 3. */
static void build_weight(B *x)
{
  LLVMValueRef w = LLVMAddGlobal(x->m, x->f32, "w");
  LLVMSetGlobalConstant(w, 1);
  LLVMTypeRef p[] = {x->ptr};
  b_func(x, "weight", x->i32, p, 1);
  LLVMValueRef v = LLVMBuildLoad2(x->b, x->f32, w, "");
  LLVMBuildStore(x->b, LLVMBuildFMul(x->b, v, LLVMConstReal(x->f32, 3), ""),
                 LLVMGetParam(x->fn, 0));
  ret0(x);
}

/* ---- tensors --------------------------------------------------------------------- */

static GiltType *type(const char *s)
{
  GiltType *t = gilt_type_parse(ctx, s);
  CHECK(t != NULL);
  return t;
}

static GiltTensor *vec(const char *elem, int64_t n, const double *v)
{
  GiltTensor *t = gilt_tensor_create(type(elem), 1, &n);
  for (int64_t i = 0; v && i < n; i++)
    gilt_tensor_set_double(t, i, v[i]);
  return t;
}

static GiltTensor *scalar(const char *elem, double v)
{
  GiltTensor *t = gilt_tensor_create(type(elem), 0, NULL);
  gilt_tensor_set_double(t, 0, v);
  return t;
}

static void free_outputs(size_t n, GiltTensor **out)
{
  for (size_t i = 0; i < n; i++)
    gilt_tensor_destroy(out[i]);
  free(out);
}

static GiltLocation *loc(const char *file)
{
  return gilt_location_file_line_col_get(ctx, file, 1, 1);
}

/* ---- the tests ----------------------------------------------------------------- */

static float weight_value = 1.5f;

static GiltJitModule *compile_all(size_t threads, unsigned opt)
{
  GiltJitSymbol syms[] = {{"w", &weight_value}};
  GiltJitOptions opts = GILT_JIT_OPTIONS_DEFAULT;
  opts.threads = threads;
  opts.opt_level = opt;
  opts.num_symbols = 1;
  opts.symbols = syms;
  GiltJitModule *jm = jit_module_create(loc("jit.gilt"), &opts);
  CHECK(jm != NULL);
  if (!jm)
    return NULL;
  B x;
  b_init(&x, jit_module_get_llvm_context(jm), "all");
  build_add(&x);
  build_twice(&x);
  build_checked(&x);
  build_exps(&x);
  build_squares(&x);
  build_weight(&x);
  LLVMDisposeBuilder(x.b);
  CHECK(jit_module_add_llvm(jm, x.m) == GILT_SUCCESS);
  CHECK(jit_module_add_entry(jm, "add", type("(memref<4xf32>, memref<4xf32>, "
                                             "memref<4xf32>) -> ()"),
                             loc("add.gilt")) == GILT_SUCCESS);
  CHECK(jit_module_add_entry(jm, "twice",
                             type("(memref<?xf32>) -> memref<?xf32>"),
                             loc("twice.gilt")) == GILT_SUCCESS);
  CHECK(jit_module_add_entry(jm, "checked", type("(index, f64) -> (index, f64)"),
                             loc("checked.gilt")) == GILT_SUCCESS);
  CHECK(jit_module_add_entry(jm, "exps",
                             type("(memref<?xf32>, memref<?xf32>) -> ()"),
                             loc("exps.gilt")) == GILT_SUCCESS);
  CHECK(jit_module_add_entry(jm, "squares", type("(memref<?xf64>, index) -> ()"),
                             loc("squares.gilt")) == GILT_SUCCESS);
  CHECK(jit_module_add_entry(jm, "weight", type("() -> f32"),
                             loc("weight.gilt")) == GILT_SUCCESS);
  CHECK(errors == 0);
  return jm;
}

static void test_add(GiltJitModule *jm)
{
  double a[] = {1, 2, 3, 4}, b[] = {10, 20, 30, 40};
  GiltTensor *in[] = {vec("f32", 4, a), vec("f32", 4, b), vec("f32", 4, NULL)};
  size_t n = 99;
  GiltTensor **out = NULL;
  CHECK(gilt_jit_call(jm, "add", 3, in, &n, &out) == GILT_SUCCESS);
  CHECK(n == 0 && out != NULL);
  for (int i = 0; i < 4; i++)
    CHECK(gilt_tensor_get_double(in[2], i) == a[i] + b[i]);
  free(out);

  /* Wrong inputs, in the interpreter's words, at the entry. */
  errors = 0;
  CHECK(gilt_jit_call(jm, "add", 2, in, &n, &out) == GILT_FAILURE);
  CHECK(n == 0 && out == NULL && errors == 1);
  CHECK(strcmp(last_error, "'func.func' op takes 3 inputs, got 2") == 0);
  GiltTensor *bad[] = {in[0], vec("f32", 5, NULL), in[2]};
  CHECK(gilt_jit_call(jm, "add", 3, bad, &n, &out) == GILT_FAILURE);
  CHECK(strcmp(last_error, "'func.func' op input 1 is a tensor of 5xf32, "
                           "where argument 1 is memref<4xf32>") == 0);
  GiltTensor *missing[] = {in[0], NULL, in[2]};
  CHECK(gilt_jit_call(jm, "add", 3, missing, &n, &out) == GILT_FAILURE);
  CHECK(strcmp(last_error, "'func.func' op input 1 is missing") == 0);
  CHECK(gilt_jit_call(jm, "nosuch", 0, NULL, &n, &out) == GILT_FAILURE);
  CHECK(strstr(last_error, "'nosuch'") != NULL);
  gilt_tensor_destroy(bad[1]);
  for (int i = 0; i < 3; i++)
    gilt_tensor_destroy(in[i]);
  errors = 0;
}

static void test_twice(GiltJitModule *jm)
{
  double a[] = {1, -2, 3.5, 4, 5, 6, 7};
  for (int64_t len = 0; len <= 7; len += 7) {
    GiltTensor *in = vec("f32", len, a);
    size_t n = 0;
    GiltTensor **out = NULL;
    CHECK(gilt_jit_call(jm, "twice", 1, &in, &n, &out) == GILT_SUCCESS);
    CHECK(n == 1 && gilt_tensor_get_rank(out[0]) == 1);
    CHECK(gilt_tensor_get_shape(out[0])[0] == len);
    for (int64_t i = 0; i < len; i++)
      CHECK(gilt_tensor_get_double(out[0], i) == 2 * a[i]);
    free_outputs(n, out);
    gilt_tensor_destroy(in);
  }
}

static void test_checked(GiltJitModule *jm)
{
  GiltTensor *in[] = {scalar("index", 41), scalar("f64", 5)};
  size_t n = 0;
  GiltTensor **out = NULL;
  CHECK(gilt_jit_call(jm, "checked", 2, in, &n, &out) == GILT_SUCCESS);
  CHECK(n == 2 && gilt_tensor_get_rank(out[0]) == 0);
  CHECK(gilt_tensor_get_double(out[0], 0) == 42);
  CHECK(gilt_tensor_get_double(out[1], 0) == 2.5);
  free_outputs(n, out);
  gilt_tensor_set_double(in[0], 0, -1);
  errors = 0;
  CHECK(gilt_jit_call(jm, "checked", 2, in, &n, &out) == GILT_FAILURE);
  CHECK(n == 0 && out == NULL && errors == 1);
  /* At the location the compiled code gave, as the interpreter reports. */
  CHECK(strcmp(last_error, "negative input") == 0);
  CHECK(strcmp(last_where, "loc(\"checked.gilt\":3:5)") == 0);
  /* A scalar where the tensor has rank 1. */
  GiltTensor *wrong[] = {vec("index", 1, NULL), in[1]};
  CHECK(gilt_jit_call(jm, "checked", 2, wrong, &n, &out) == GILT_FAILURE);
  CHECK(strcmp(last_error, "'func.func' op input 0 is a tensor of 1xindex, "
                           "where argument 0 is index") == 0);
  gilt_tensor_destroy(wrong[0]);
  gilt_tensor_destroy(in[0]);
  gilt_tensor_destroy(in[1]);
  errors = 0;
}

static void test_exps(GiltJitModule *jm)
{
  double a[] = {0, 1, -1, 2.5};
  GiltTensor *in[] = {vec("f32", 4, a), vec("f32", 4, NULL)};
  size_t n = 0;
  GiltTensor **out = NULL;
  CHECK(gilt_jit_call(jm, "exps", 2, in, &n, &out) == GILT_SUCCESS);
  for (int i = 0; i < 4; i++)
    CHECK(gilt_tensor_get_double(in[1], i) == (double)expf((float)a[i]));
  free(out);
  gilt_tensor_destroy(in[0]);
  gilt_tensor_destroy(in[1]);
}

static void test_squares(GiltJitModule *jm)
{
  int64_t len = 1000;
  GiltTensor *in[] = {vec("f64", len, NULL), scalar("index", -1)};
  size_t n = 0;
  GiltTensor **out = NULL;
  for (int r = 0; r < 20; r++) {
    CHECK(gilt_jit_call(jm, "squares", 2, in, &n, &out) == GILT_SUCCESS);
    free(out);
  }
  int bad = 0;
  for (int64_t i = 0; i < len; i++)
    bad += gilt_tensor_get_double(in[0], i) != (double)(i * i);
  CHECK(bad == 0);
  /* The last chunk fails, whichever thread runs it. */
  gilt_tensor_set_double(in[1], 0, (double)(len - 1));
  for (int r = 0; r < 20; r++) {
    errors = 0;
    CHECK(gilt_jit_call(jm, "squares", 2, in, &n, &out) == GILT_FAILURE);
    CHECK(errors == 1 && strcmp(last_error, "chunk failed") == 0);
    CHECK(strcmp(last_where, "loc(\"par.gilt\":7:3)") == 0);
  }
  errors = 0;
  gilt_tensor_destroy(in[0]);
  gilt_tensor_destroy(in[1]);
}

static void test_weight(GiltJitModule *jm)
{
  size_t n = 0;
  GiltTensor **out = NULL;
  CHECK(gilt_jit_call(jm, "weight", 0, NULL, &n, &out) == GILT_SUCCESS);
  CHECK(n == 1 && gilt_tensor_get_double(out[0], 0) == 4.5);
  free_outputs(n, out);
}

/* Errors of compiling: each reported, none fatal. */
static void test_compile_errors(void)
{
  GiltJitModule *jm = jit_module_create(loc("e.gilt"), NULL);
  CHECK(jm != NULL && gilt_jit_get_num_threads(jm) >= 1);
  B x;
  /* A call of a function nobody defines: the lookup fails to link. */
  b_init(&x, jit_module_get_llvm_context(jm), "undefined");
  LLVMTypeRef p[] = {x.ptr};
  b_func(&x, "calls_nothing", x.i32, p, 1);
  LLVMValueRef v = call(&x, "no_such_function", x.f32, NULL, 0, NULL);
  LLVMBuildStore(x.b, v, LLVMGetParam(x.fn, 0));
  ret0(&x);
  LLVMDisposeBuilder(x.b);
  errors = 0;
  CHECK(jit_module_add_llvm(jm, x.m) == GILT_SUCCESS);
  CHECK(jit_module_add_entry(jm, "calls_nothing", type("() -> f32"),
                             loc("u.gilt")) == GILT_FAILURE);
  CHECK(errors >= 1 && strstr(all_errors, "no_such_function") != NULL);
  /* A module that does not verify: a block without a terminator. */
  b_init(&x, jit_module_get_llvm_context(jm), "broken");
  b_func(&x, "broken", x.i32, NULL, 0);
  LLVMDisposeBuilder(x.b);
  errors = 0;
  CHECK(jit_module_add_llvm(jm, x.m) == GILT_FAILURE);
  CHECK(errors == 1 && strstr(last_error, "does not verify") != NULL);
  /* No entry by that name. */
  errors = 0;
  CHECK(jit_module_add_entry(jm, "absent", type("() -> ()"), loc("a.gilt")) ==
        GILT_FAILURE);
  CHECK(errors == 1 && strstr(last_error, "absent") != NULL);
  /* A type with no C form. */
  errors = 0;
  CHECK(jit_module_add_entry(jm, "calls_nothing",
                             type("(vector<4xf32>) -> ()"), loc("v.gilt")) ==
        GILT_FAILURE);
  CHECK(errors == 1 && strstr(last_error, "vector<4xf32>") != NULL);
  gilt_jit_destroy(jm);

  /* Options out of range, and a symbol defined twice. */
  GiltJitOptions opts = GILT_JIT_OPTIONS_DEFAULT;
  opts.opt_level = 4;
  errors = 0;
  CHECK(jit_module_create(loc("o.gilt"), &opts) == NULL && errors == 1);
  opts.opt_level = 2;
  GiltJitSymbol twice[] = {{"gilt_rt_alloc", &weight_value}};
  opts.num_symbols = 1;
  opts.symbols = twice;
  errors = 0;
  CHECK(jit_module_create(loc("o.gilt"), &opts) == NULL && errors == 1);
  CHECK(strstr(last_error, "gilt_rt_alloc") != NULL);
  errors = 0;
}

int main(void)
{
  ctx = gilt_context_create();
  gilt_register_everything(ctx);
  gilt_context_set_diagnostic_handler(ctx, on_diag, NULL);

  /* One thread, four threads and all cores; no optimization and -O3. */
  size_t threads[] = {1, 4, 0};
  unsigned opts[] = {0, 3, 2};
  for (int k = 0; k < 3; k++) {
    GiltJitModule *jm = compile_all(threads[k], opts[k]);
    if (!jm)
      continue;
    CHECK(gilt_jit_get_num_threads(jm) >= 1);
    test_add(jm);
    test_twice(jm);
    test_checked(jm);
    test_exps(jm);
    test_squares(jm);
    test_weight(jm);
    gilt_jit_destroy(jm);
  }
  test_compile_errors();
  gilt_jit_destroy(NULL);

  gilt_context_destroy(ctx);
  if (check_failures)
    fprintf(stderr, "last error: %s\n", last_error);
  return check_failures != 0;
}
