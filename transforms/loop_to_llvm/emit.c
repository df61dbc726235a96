/*
** emit.c - how loop-to-llvm builds llvm ops (the contract is in
** lowering.h): op creation at the current insertion point with the
** location of the op being lowered, constants, calls of intrinsics and of
** the runtime (declared once per module), blocks and branches, and the
** failure paths that stop a run with gilt_rt_fail (jit/abi.h).
**
** The runtime's messages and locations are string globals: private
** llvm.globals of i8 with a NUL-terminated dense value, one per distinct
** text. Nothing here checks what the verifier checks afterwards.
*/
#include "transforms/loop_to_llvm/lowering.h"

#include <stdio.h>
#include <string.h>

#include "ir/support/alloc.h"

/* ---- ops ------------------------------------------------------------------------- */

GiltOp *l2l_create(L2L *l, LlvmOpId id, GiltType *result, size_t n,
                   GiltValue *const *operands, size_t num_attrs,
                   const GiltNamedAttr *attrs)
{
  GiltOpState st = gilt_op_state_get(llvm_ops[id].name, l->loc);
  st.num_operands = n;
  st.operands = operands;
  st.num_results = result ? 1 : 0;
  st.result_types = &result;
  st.num_attrs = num_attrs;
  st.attrs = attrs;
  GiltOp *op = gilt_builder_create_op(l->b, &st);
  GILT_ASSERT(op); /* llvm ops are registered and infer nothing */
  return op;
}

GiltValue *l2l_emit_attr(L2L *l, LlvmOpId id, GiltType *result, size_t n,
                         GiltValue *const *operands, const char *name,
                         GiltAttr *attr)
{
  GiltNamedAttr a = {name, attr};
  GiltOp *op = l2l_create(l, id, result, n, operands, attr ? 1 : 0, &a);
  return result ? gilt_op_get_result(op, 0) : NULL;
}

GiltValue *l2l_emit(L2L *l, LlvmOpId id, GiltType *result, size_t n,
                    GiltValue *const *operands)
{
  return l2l_emit_attr(l, id, result, n, operands, NULL, NULL);
}

GiltValue *l2l_binary(L2L *l, LlvmOpId id, GiltValue *a, GiltValue *b)
{
  GiltValue *ops[2] = {a, b};
  return l2l_emit(l, id, gilt_value_get_type(a), 2, ops);
}

GiltValue *l2l_cast(L2L *l, LlvmOpId id, GiltValue *v, GiltType *to)
{
  if (gilt_value_get_type(v) == to)
    return v;
  return l2l_emit(l, id, to, 1, &v);
}

/* i1, or a vector of i1 of t's shape. */
static GiltType *bool_like(L2L *l, GiltType *t)
{
  if (t->kind != GILT_TYPE_VECTOR)
    return l->i1;
  return gilt_vector_type_get(l->ctx, 1, t->shaped.shape, l->i1);
}

GiltValue *l2l_icmp(L2L *l, const char *pred, GiltValue *a, GiltValue *b)
{
  GiltValue *ops[2] = {a, b};
  return l2l_emit_attr(l, LLVM_OP_ICMP, bool_like(l, gilt_value_get_type(a)),
                       2, ops, "predicate",
                       gilt_string_attr_get(l->ctx, pred, strlen(pred)));
}

GiltValue *l2l_select(L2L *l, GiltValue *c, GiltValue *a, GiltValue *b)
{
  GiltValue *ops[3] = {c, a, b};
  return l2l_emit(l, LLVM_OP_SELECT, gilt_value_get_type(a), 3, ops);
}

/* ---- constants --------------------------------------------------------------------- */

static GiltValue *constant(L2L *l, GiltType *t, GiltAttr *scalar)
{
  GiltAttr *value = scalar;
  if (t->kind == GILT_TYPE_VECTOR) {
    uint64_t bits = 0;
    GiltType *elem = t->shaped.elem;
    size_t size = gilt_type_get_storage_size(elem);
    if (elem->kind == GILT_TYPE_FLOAT)
      bits = gilt_float_bits_from_double(elem->fkind,
                                         gilt_float_attr_get_value(scalar),
                                         false);
    else
      bits = (uint64_t)gilt_integer_attr_get_value(scalar);
    value = gilt_dense_elements_attr_get(t, &bits, size); /* little-endian */
  }
  return l2l_emit_attr(l, LLVM_OP_CONSTANT, t, 0, NULL, "value", value);
}

GiltValue *l2l_int(L2L *l, GiltType *t, int64_t v)
{
  GiltType *elem = t->kind == GILT_TYPE_VECTOR ? t->shaped.elem : t;
  return constant(l, t, gilt_integer_attr_get(elem, v));
}

GiltValue *l2l_i64(L2L *l, int64_t v)
{
  return l2l_int(l, l->i64, v);
}

GiltValue *l2l_float(L2L *l, GiltType *t, double v)
{
  GiltType *elem = t->kind == GILT_TYPE_VECTOR ? t->shaped.elem : t;
  return constant(l, t, gilt_float_attr_get(elem, v));
}

bool l2l_constant_int(GiltValue *v, int64_t *c)
{
  GiltOp *def = gilt_value_get_defining_op(v);
  if (!def || !llvm_op_is(def, LLVM_OP_CONSTANT))
    return false;
  GiltAttr *a = gilt_op_get_attr(def, "value");
  if (gilt_value_get_type(v)->kind != GILT_TYPE_INTEGER)
    return false;
  *c = gilt_integer_attr_get_value(a);
  return true;
}

GiltValue *l2l_poison(L2L *l, GiltType *t)
{
  return l2l_emit(l, LLVM_OP_POISON, t, 0, NULL);
}

/* ---- memory and aggregates ------------------------------------------------------ */

GiltValue *l2l_gep(L2L *l, GiltType *elem, GiltValue *base, GiltValue *index)
{
  GiltValue *ops[2] = {base, index};
  return l2l_emit_attr(l, LLVM_OP_GEP, l->ptr, 2, ops, "elem_type",
                       gilt_type_attr_get(elem));
}

GiltValue *l2l_load(L2L *l, GiltType *t, GiltValue *addr, int64_t align)
{
  return l2l_emit_attr(l, LLVM_OP_LOAD, t, 1, &addr, "alignment",
                       align ? gilt_integer_attr_get(l->i64, align) : NULL);
}

void l2l_store(L2L *l, GiltValue *v, GiltValue *addr, int64_t align)
{
  GiltValue *ops[2] = {v, addr};
  l2l_emit_attr(l, LLVM_OP_STORE, NULL, 2, ops, "alignment",
                align ? gilt_integer_attr_get(l->i64, align) : NULL);
}

GiltValue *l2l_extract(L2L *l, GiltValue *agg, int64_t pos)
{
  GiltType *t = llvm_struct_field(gilt_value_get_type(agg), (size_t)pos);
  return l2l_emit_attr(l, LLVM_OP_EXTRACTVALUE, t, 1, &agg, "position",
                       gilt_integer_attr_get(l->i64, pos));
}

GiltValue *l2l_insert(L2L *l, GiltValue *agg, GiltValue *v, int64_t pos)
{
  GiltValue *ops[2] = {agg, v};
  return l2l_emit_attr(l, LLVM_OP_INSERTVALUE, gilt_value_get_type(agg), 2,
                       ops, "position", gilt_integer_attr_get(l->i64, pos));
}

/* ---- calls ---------------------------------------------------------------------------- */

GiltValue *l2l_intrinsic(L2L *l, const char *name, GiltType *result,
                         size_t n, GiltValue *const *operands)
{
  return l2l_emit_attr(l, LLVM_OP_CALL_INTRINSIC, result, n, operands,
                       "intrinsic",
                       gilt_string_attr_get(l->ctx, name, strlen(name)));
}

void l2l_add_symbol(L2L *l, GiltOp *op)
{
  GiltIdent *name = gilt_ident_get_cstr(l->ctx, gilt_symbol_get_name(op));
  if (gilt_ptr_map_get(&l->symbols, name, NULL)) {
    gilt_op_destroy(op);
    return;
  }
  gilt_ptr_map_put(&l->symbols, name, 1);
  gilt_block_append_op(l->out, op);
}

GiltOp *l2l_private_func(L2L *l, const char *name, GiltType *fn_type)
{
  GiltNamedAttr attrs[] = {
      {"function_type", gilt_type_attr_get(fn_type)},
      {"sym_name", gilt_string_attr_get(l->ctx, name, strlen(name))},
      {"sym_visibility", gilt_string_attr_get(l->ctx, "private", 7)},
  };
  GiltOpState st = gilt_op_state_get("llvm.func", l->loc);
  st.num_attrs = 3;
  st.attrs = attrs;
  st.num_regions = 1;
  GiltOp *fn = gilt_op_create(l->ctx, &st);
  l2l_add_symbol(l, fn);
  return fn;
}

/* Declares the external function `name` of the given type. */
static void declare(L2L *l, const char *name, GiltType *fn_type)
{
  if (!gilt_ptr_map_get(&l->symbols, gilt_ident_get_cstr(l->ctx, name), NULL))
    l2l_private_func(l, name, fn_type);
}

GiltValue *l2l_call(L2L *l, const char *name, GiltType *result, size_t n,
                    GiltValue *const *operands)
{
  GiltType *inputs[n + 1];
  for (size_t i = 0; i < n; i++)
    inputs[i] = gilt_value_get_type(operands[i]);
  declare(l, name,
          gilt_function_type_get(l->ctx, n, inputs, result ? 1 : 0, &result));
  return l2l_emit_attr(l, LLVM_OP_CALL, result, n, operands, "callee",
                       gilt_symbol_ref_attr_get(l->ctx, name, 0, NULL));
}

GiltValue *l2l_call_extern(L2L *l, const char *name, GiltType *result,
                           size_t n, GiltValue *const *operands)
{
  if (l->device) { /* no runtime, no C library on the GPU */
    l2l_error(l, "it needs '%s' of the runtime or the C library, which "
                 "device code cannot call",
              name);
    l->num_errors++;
    return result ? l2l_poison(l, result) : NULL;
  }
  return l2l_call(l, name, result, n, operands);
}

/* ---- blocks and branches ------------------------------------------------------------- */

GiltBlock *l2l_block(L2L *l, size_t n, GiltType *const *types)
{
  GiltBlock *block = gilt_block_create(l->ctx, n, types, NULL);
  gilt_region_append_block(l->body, block);
  return block;
}

void l2l_set_block(L2L *l, GiltBlock *block)
{
  gilt_builder_set_insertion_point_to_end(l->b, block);
}

void l2l_br(L2L *l, GiltBlock *dest, size_t n, GiltValue *const *args)
{
  GiltOpState st = gilt_op_state_get("llvm.br", l->loc);
  st.num_operands = n;
  st.operands = args;
  st.num_successors = 1;
  st.successors = &dest;
  GILT_ASSERT(gilt_builder_create_op(l->b, &st));
}

void l2l_cond_br(L2L *l, GiltValue *cond, GiltBlock *t, size_t nt,
                 GiltValue *const *targs, GiltBlock *f, size_t nf,
                 GiltValue *const *fargs)
{
  GiltValue *ops[1 + nt + nf];
  ops[0] = cond;
  for (size_t i = 0; i < nt; i++) /* targs may be NULL when nt is 0 */
    ops[1 + i] = targs[i];
  for (size_t i = 0; i < nf; i++)
    ops[1 + nt + i] = fargs[i];
  int32_t sizes[3] = {1, (int32_t)nt, (int32_t)nf};
  GiltNamedAttr a = {"operandSegmentSizes",
                     gilt_dense_array_attr_get(l->i32, 3, sizes)};
  GiltBlock *succ[2] = {t, f};
  GiltOpState st = gilt_op_state_get("llvm.cond_br", l->loc);
  st.num_operands = 1 + nt + nf;
  st.operands = ops;
  st.num_attrs = 1;
  st.attrs = &a;
  st.num_successors = 2;
  st.successors = succ;
  GILT_ASSERT(gilt_builder_create_op(l->b, &st));
}

/* ---- failing a run ------------------------------------------------------------------- */

void l2l_string_global(L2L *l, const char *name, const char *text)
{
  int64_t len = (int64_t)strlen(text) + 1;
  GiltType *type = gilt_tensor_type_get(l->ctx, 1, &len, l->i8, NULL);
  GiltNamedAttr attrs[] = {
      {"constant", gilt_unit_attr_get(l->ctx)},
      {"sym_name", gilt_string_attr_get(l->ctx, name, strlen(name))},
      {"sym_visibility", gilt_string_attr_get(l->ctx, "private", 7)},
      {"type", gilt_type_attr_get(l->i8)},
      {"value", gilt_dense_elements_attr_get(type, text, (size_t)len)},
  };
  GiltOpState st = gilt_op_state_get("llvm.global", l->loc);
  st.num_attrs = 5;
  st.attrs = attrs;
  l2l_add_symbol(l, gilt_op_create(l->ctx, &st));
}

GiltValue *l2l_string(L2L *l, const char *text)
{
  GiltIdent *key = gilt_ident_get_cstr(l->ctx, text);
  size_t number;
  char name[32];
  if (!gilt_ptr_map_get(&l->strings, key, &number)) {
    number = l->num_strings++;
    gilt_ptr_map_put(&l->strings, key, number);
    snprintf(name, sizeof name, "__gilt_str_%zu", number);
    l2l_string_global(l, name, text);
  }
  snprintf(name, sizeof name, "__gilt_str_%zu", number);
  return l2l_emit_attr(l, LLVM_OP_ADDRESSOF, l->ptr, 0, NULL, "global_name",
                       gilt_symbol_ref_attr_get(l->ctx, name, 0, NULL));
}

GiltValue *l2l_location(L2L *l)
{
  /* The location as the interpreter's diagnostics print it: the ONNX
  ** node's name included. */
  GiltStrBuf where;
  gilt_strbuf_init(&where, l->ctx);
  gilt_location_print(l->loc, gilt_strbuf_callback, &where);
  /* `loc(X)` prints as X, the form of gjit's and gopt's messages. */
  const char *text = where.data ? where.data : "";
  size_t len = strlen(text);
  if (len > 5 && strncmp(text, "loc(", 4) == 0 && text[len - 1] == ')') {
    where.data[len - 1] = 0;
    text += 4;
  }
  GiltValue *address =
      l->context ? l2l_outlined_location(l, text) : l2l_string(l, text);
  gilt_strbuf_free(&where);
  return address;
}

/* Goes on in a new block where `ok` holds, and returns it; leaves the
** insertion point in a block of its own where it does not. */
static GiltBlock *unless(L2L *l, GiltValue *ok)
{
  GiltBlock *fail = l2l_block(l, 0, NULL), *next = l2l_block(l, 0, NULL);
  l2l_cond_br(l, ok, next, 0, NULL, fail, 0, NULL);
  l2l_set_block(l, fail);
  return next;
}

void l2l_check(L2L *l, GiltValue *ok, const char *message)
{
  GiltBlock *next = unless(l, ok);
  if (l->device) { /* the launch fails; the host's CUDA call says so */
    l2l_intrinsic(l, "llvm.trap", NULL, 0, NULL);
    l2l_emit(l, LLVM_OP_UNREACHABLE, NULL, 0, NULL);
    l2l_set_block(l, next);
    return;
  }
  GiltValue *args[2];
  args[0] = l2l_string(l, message);
  args[1] = l2l_location(l);
  l2l_call_extern(l, "gilt_rt_fail", NULL, 2, args);
  l2l_return_failure(l, l2l_int(l, l->i32, 1));
  l2l_set_block(l, next);
}

void l2l_check_recorded(L2L *l, GiltValue *ok, GiltValue *status)
{
  GiltBlock *next = unless(l, ok);
  l2l_return_failure(l, status);
  l2l_set_block(l, next);
}

void l2l_return_failure(L2L *l, GiltValue *status)
{
  l2l_exit_scope(l);
  if (!l->status) {
    l2l_emit(l, LLVM_OP_RETURN, NULL, 1, &status);
    return;
  }
  /* Chunks on several threads may fail at once: the store is atomic
  ** (monotonic is enough, the runtime's join orders it before the
  ** caller's load). */
  GiltValue *ops[2] = {status, l->status};
  GiltNamedAttr attrs[] = {
      {"alignment", gilt_integer_attr_get(l->i64, 4)},
      {"ordering", gilt_string_attr_get(l->ctx, "monotonic", 9)},
  };
  l2l_create(l, LLVM_OP_STORE, NULL, 2, ops, 2, attrs);
  l2l_emit(l, LLVM_OP_RETURN, NULL, 0, NULL);
}

void l2l_exit_scope(L2L *l)
{
  l2l_call_extern(l, "gilt_rt_scope_exit", NULL, 1, &l->scope);
}

GiltValue *l2l_any(L2L *l, GiltValue *cond)
{
  if (gilt_value_get_type(cond)->kind != GILT_TYPE_VECTOR)
    return cond;
  return l2l_intrinsic(l, "llvm.vector.reduce.or", l->i1, 1, &cond);
}
