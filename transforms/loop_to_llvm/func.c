/*
** func.c - functions, returns and calls in the calling convention of
** jit/abi.h: func.func @f(args) -> (results) becomes
**
**     llvm.func @f(ARGS..., RESULT POINTERS...) -> i32
**
** where a memref argument is a pointer to a GiltMemRefDesc, loaded into
** the descriptor struct at entry; a scalar is passed by value in its C
** type (iN in the smallest C integer holding it, f16 and bf16 as their
** 16 bits); each result is a pointer the callee stores through; the
** function returns 0, or 1 after gilt_rt_fail. Its buffers live in a
** scope of the runtime, exited on every return; a memref result leaves
** it first (disowned): one of the function's own buffers as it is,
** anything else copied into one. A func.call between
** compiled functions uses the same convention: descriptors and results in
** stack slots of the caller's entry block, and a failed callee's status
** passed on.
*/
#include "transforms/loop_to_llvm/lowering.h"

#include "jit/abi.h"

#include "dialects/func/func.h"

/* GiltMemRefDesc as i64 words: data, offset, sizes[32], strides[32]. */
enum { DESC_WORDS = 2 + 2 * 32, DESC_SIZES = 2, DESC_STRIDES = 2 + 32 };

/* ---- scalars at the boundary ---------------------------------------------------- */

/* The type a loop-level argument or result has in the C signature. */
static GiltType *abi_type(L2L *l, GiltType *t)
{
  if (t->kind == GILT_TYPE_MEMREF)
    return l2l_type(l, t) ? l->ptr : NULL;
  if (t->kind == GILT_TYPE_FLOAT && t->fkind <= GILT_BF16)
    return gilt_integer_type_get(l->ctx, 16, GILT_SIGNLESS);
  if (t->kind == GILT_TYPE_INTEGER && t->integer.width < 64) {
    unsigned w = t->integer.width;
    unsigned c = w <= 8 ? 8 : w <= 16 ? 16 : w <= 32 ? 32 : 64;
    return gilt_integer_type_get(l->ctx, c, GILT_SIGNLESS);
  }
  return l2l_type(l, t);
}

static bool is_unsigned(GiltType *t)
{
  return t->integer.width == 1 || t->integer.sign == GILT_UNSIGNED;
}

/* An argument in its C type as the value of loop-level type t. */
static GiltValue *from_abi(L2L *l, GiltValue *v, GiltType *t)
{
  GiltType *to = l2l_type(l, t);
  if (gilt_value_get_type(v) == to)
    return v;
  if (t->kind == GILT_TYPE_FLOAT)
    return l2l_cast(l, LLVM_OP_BITCAST, v, to);
  return l2l_cast(l, LLVM_OP_TRUNC, v, to);
}

static GiltValue *to_abi(L2L *l, GiltValue *v, GiltType *t)
{
  GiltType *to = abi_type(l, t);
  if (gilt_value_get_type(v) == to)
    return v;
  if (t->kind == GILT_TYPE_FLOAT)
    return l2l_cast(l, LLVM_OP_BITCAST, v, to);
  return l2l_cast(l, is_unsigned(t) ? LLVM_OP_ZEXT : LLVM_OP_SEXT, v, to);
}

/* ---- descriptors in memory ------------------------------------------------------- */

static GiltValue *word(L2L *l, GiltValue *desc, int64_t i)
{
  return i ? l2l_gep(l, l->i64, desc, l2l_i64(l, i)) : desc;
}

static GiltValue *load_descriptor(L2L *l, GiltValue *p, size_t rank)
{
  GiltValue *d = l2l_poison(l, l2l_descriptor_type(l, rank));
  d = l2l_insert(l, d, l2l_load(l, l->ptr, p, 8), L2L_DATA);
  d = l2l_insert(l, d, l2l_load(l, l->i64, word(l, p, 1), 8), L2L_OFFSET);
  for (size_t i = 0; i < rank; i++) {
    GiltValue *size = l2l_load(l, l->i64, word(l, p, DESC_SIZES + i), 8);
    GiltValue *stride = l2l_load(l, l->i64, word(l, p, DESC_STRIDES + i), 8);
    d = l2l_insert(l, d, size, L2L_SIZE(rank, i));
    d = l2l_insert(l, d, stride, L2L_STRIDE(rank, i));
  }
  return d;
}

static void store_descriptor(L2L *l, GiltValue *d, GiltValue *p, size_t rank)
{
  l2l_store(l, l2l_extract(l, d, L2L_DATA), p, 8);
  l2l_store(l, l2l_extract(l, d, L2L_OFFSET), word(l, p, 1), 8);
  for (size_t i = 0; i < rank; i++) {
    l2l_store(l, l2l_extract(l, d, L2L_SIZE(rank, i)),
              word(l, p, DESC_SIZES + i), 8);
    l2l_store(l, l2l_extract(l, d, L2L_STRIDE(rank, i)),
              word(l, p, DESC_STRIDES + i), 8);
  }
}

/* A stack slot of `words` i64 in the entry block: allocas in a loop
** would grow the stack at every iteration. */
static GiltValue *stack_slot(L2L *l, int64_t words)
{
  GiltBlock *here = gilt_builder_get_insertion_block(l->b);
  gilt_builder_set_insertion_point_to_start(l->b, l->entry);
  GiltValue *n = l2l_i64(l, words);
  GiltNamedAttr attrs[] = {{"alignment", gilt_integer_attr_get(l->i64, 8)},
                           {"elem_type", gilt_type_attr_get(l->i64)}};
  GiltOp *op = l2l_create(l, LLVM_OP_ALLOCA, l->ptr, 1, &n, 2, attrs);
  l2l_set_block(l, here);
  return gilt_op_get_result(op, 0);
}

/* ---- functions --------------------------------------------------------------------- */

/* The llvm.func for func's signature, empty; NULL after an error. */
static GiltOp *signature(L2L *l, GiltOp *func)
{
  GiltType *ft = gilt_func_get_type(func);
  size_t n_in = ft->func.num_inputs, n_out = ft->func.num_results;
  GiltType *types[n_in + n_out + 1];
  for (size_t i = 0; i < n_in + n_out; i++) {
    types[i] = i < n_in ? abi_type(l, ft->func.types[i]) : l->ptr;
    if (!types[i] || (i >= n_in && !l2l_type(l, ft->func.types[i]))) {
      l2l_error(l, "%s %zu has a type without an llvm form",
                i < n_in ? "argument" : "result", i < n_in ? i : i - n_in);
      return NULL;
    }
  }
  GiltType *fn_type =
      gilt_function_type_get(l->ctx, n_in + n_out, types, 1, &l->i32);
  /* The loop-level type stays with the function: a caller through the
  ** ABI (the JIT, an ahead-of-time header) needs the shapes and element
  ** types the C signature no longer says. */
  GiltAttr *visibility = gilt_op_get_attr(func, "sym_visibility");
  GiltNamedAttr attrs[] = {
      {"function_type", gilt_type_attr_get(fn_type)},
      {GILT_ABI_ENTRY_TYPE_ATTR, gilt_type_attr_get(ft)},
      {"sym_name", gilt_op_get_attr(func, "sym_name")},
      {"sym_visibility", visibility},
  };
  GiltOpState st = gilt_op_state_get("llvm.func", l->loc);
  st.num_attrs = visibility ? 4 : 3;
  st.attrs = attrs;
  st.num_regions = 1;
  return gilt_op_create(l->ctx, &st);
}

/* Whether memref result i of `ret` can be handed to the caller as it is:
** a buffer the function allocated itself (dense from its first element),
** not returned before. Views, arguments, weights and a buffer's second
** return are copied instead: the caller owns each result alone. */
static bool returns_own_buffer(GiltOp *ret, size_t i)
{
  GiltValue *v = gilt_op_get_operand(ret, i);
  GiltOp *def = gilt_value_get_defining_op(v);
  if (!def || !loop_op_is(def, LOOP_OP_ALLOC))
    return false;
  for (size_t j = 0; j < i; j++)
    if (gilt_op_get_operand(ret, j) == v)
      return false;
  return true;
}

static void lower_return(L2L *l, GiltOp *ret, GiltType *ft)
{
  l->op = ret;
  l->loc = gilt_op_get_location(ret);
  size_t n_in = ft->func.num_inputs, n = gilt_op_get_num_operands(ret);
  /* Results outlive the scope: anything but the function's own buffers
  ** is first copied into a buffer of the scope's, then every result
  ** leaves the scope (disowned), then every buffer left in it goes. A
  ** failed copy (out of memory) thus frees every result too. A model's
  ** result, written by its last kernel, is neither copied nor faulted in
  ** again on every call: the caller frees it into the runtime's cache of
  ** blocks, where the next call's result is taken from. */
  GiltValue *values[n + 1];
  for (size_t i = 0; i < n; i++) {
    GiltType *t = ft->func.types[n_in + i];
    values[i] = l2l_value(l, gilt_op_get_operand(ret, i));
    if (t->kind == GILT_TYPE_MEMREF && !returns_own_buffer(ret, i))
      values[i] = l2l_copy(l, values[i], t);
  }
  for (size_t i = 0; i < n; i++)
    if (ft->func.types[n_in + i]->kind == GILT_TYPE_MEMREF) {
      GiltValue *data = l2l_extract(l, values[i], L2L_DATA);
      l2l_call_extern(l, "gilt_rt_disown", NULL, 1, &data);
    }
  l2l_exit_scope(l);
  for (size_t i = 0; i < n; i++) {
    GiltType *t = ft->func.types[n_in + i];
    if (t->kind == GILT_TYPE_MEMREF)
      store_descriptor(l, values[i], l->results[i], t->shaped.rank);
    else
      l2l_store(l, to_abi(l, values[i], t), l->results[i], 0);
  }
  GiltValue *zero = l2l_int(l, l->i32, 0);
  l2l_emit(l, LLVM_OP_RETURN, NULL, 1, &zero);
}

void l2l_lower_func(L2L *l, GiltOp *func)
{
  GiltOp *fn = signature(l, func);
  if (!fn) {
    l->num_errors++;
    return;
  }
  l2l_add_symbol(l, fn);
  GiltRegion *src = gilt_op_get_region(func, 0);
  if (gilt_region_get_num_blocks(src) == 0)
    return; /* a declaration */
  if (gilt_region_get_num_blocks(src) != 1) {
    l2l_error(l, "the function has more than one block");
    l->num_errors++;
    return;
  }
  GiltType *ft = gilt_func_get_type(func);
  GiltType *llvm_ft =
      gilt_type_attr_get_value(gilt_op_get_attr(fn, "function_type"));
  size_t n_in = ft->func.num_inputs, n = llvm_ft->func.num_inputs;
  l->func_name = gilt_symbol_get_name(func);
  l->status = NULL;
  l->body = gilt_op_get_region(fn, 0);
  l->entry = l2l_block(l, n, llvm_ft->func.types);
  l2l_set_block(l, l->entry);
  l->scope = l2l_call_extern(l, "gilt_rt_scope_enter", l->i64, 0, NULL);
  GiltBlock *block = gilt_region_get_first_block(src);
  GiltValue *results[n + 1];
  for (size_t i = 0; i < n; i++) {
    GiltValue *arg = gilt_block_get_argument(l->entry, i);
    results[i] = arg;
    if (i >= n_in)
      continue;
    GiltType *t = ft->func.types[i];
    GiltValue *v = t->kind == GILT_TYPE_MEMREF
                       ? load_descriptor(l, arg, t->shaped.rank)
                       : from_abi(l, arg, t);
    l2l_map(l, gilt_block_get_argument(block, i), v);
  }
  l->results = results + n_in;
  GiltOp *ret = l2l_lower_block(l, block);
  if (ret && gilt_func_op_is(ret, FUNC_OP_RETURN))
    lower_return(l, ret, ft);
  l->results = NULL;
}

/* ---- calls ------------------------------------------------------------------------- */

/* Returns the callee's status unless it is 0. */
static void pass_on_failure(L2L *l, GiltValue *status)
{
  GiltBlock *fail = l2l_block(l, 0, NULL), *next = l2l_block(l, 0, NULL);
  GiltValue *ok = l2l_icmp(l, "eq", status, l2l_int(l, l->i32, 0));
  l2l_cond_br(l, ok, next, 0, NULL, fail, 0, NULL);
  l2l_set_block(l, fail);
  l2l_return_failure(l, status);
  l2l_set_block(l, next);
}

static GiltValue *call_argument(L2L *l, GiltValue *v, GiltType *t)
{
  GiltValue *lowered = l2l_value(l, v);
  if (t->kind != GILT_TYPE_MEMREF)
    return to_abi(l, lowered, t);
  GiltValue *slot = stack_slot(l, DESC_WORDS);
  store_descriptor(l, lowered, slot, t->shaped.rank);
  return slot;
}

GiltStatus l2l_lower_call(L2L *l, GiltOp *op)
{
  if (l->device)
    return l2l_error(l, "device code calls no host function");
  const char *name =
      gilt_symbol_ref_attr_get_root(gilt_op_get_attr(op, "callee"));
  GiltOp *callee = gilt_symbol_table_lookup(l->module, name);
  if (!callee || !gilt_func_op_is(callee, FUNC_OP_FUNC))
    return l2l_error(l, "'%s' is not a func.func of the module", name);
  size_t n_in = gilt_op_get_num_operands(op);
  size_t n_out = gilt_op_get_num_results(op);
  GiltValue *args[n_in + n_out + 1];
  for (size_t i = 0; i < n_in; i++) {
    GiltValue *v = gilt_op_get_operand(op, i);
    args[i] = call_argument(l, v, gilt_value_get_type(v));
  }
  for (size_t i = 0; i < n_out; i++) {
    GiltType *t = gilt_value_get_type(gilt_op_get_result(op, i));
    args[n_in + i] = stack_slot(l, t->kind == GILT_TYPE_MEMREF ? DESC_WORDS : 1);
  }
  GiltValue *status =
      l2l_emit_attr(l, LLVM_OP_CALL, l->i32, n_in + n_out, args, "callee",
                    gilt_op_get_attr(op, "callee"));
  pass_on_failure(l, status);
  /* The callee's memref results are ours to free: every one goes into
  ** the scope before the one check, so that when one cannot (out of
  ** memory, freed by gilt_rt_adopt) the scope frees the others. */
  GiltValue *adopted = NULL;
  for (size_t i = 0; i < n_out; i++) {
    GiltType *t = gilt_value_get_type(gilt_op_get_result(op, i));
    GiltValue *slot = args[n_in + i], *v;
    if (t->kind == GILT_TYPE_MEMREF) {
      v = load_descriptor(l, slot, t->shaped.rank);
      GiltValue *data = l2l_extract(l, v, L2L_DATA);
      GiltValue *failed =
          l2l_call_extern(l, "gilt_rt_adopt", l->i32, 1, &data);
      adopted = adopted ? l2l_binary(l, LLVM_OP_OR, adopted, failed) : failed;
    } else
      v = from_abi(l, l2l_load(l, abi_type(l, t), slot, 0), t);
    l2l_map(l, gilt_op_get_result(op, i), v);
  }
  if (adopted)
    pass_on_failure(l, adopted);
  return GILT_SUCCESS;
}
