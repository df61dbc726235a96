/*
** pass.c - `loop-to-llvm`: lowers a module at the loop level (func.func
** over memrefs, loop ops, loop.global, func.call and func.return) to
** llvm.func and llvm.global only, following jit/abi.h.
**
** Requires: what graph-to-loop produces, or any loop-level module whose
** functions have one block. Ops of other dialects are lowered by their
** own L2LLoweringMethods (l2l_lowering_interface, attached by their
** dialect: the gpu dialect's, gpu/to_nvvm.c and gpu/host_to_llvm.c).
** Produces: llvm ops only; the func and loop ops are gone. Every op that
** cannot be lowered is reported at its location (the ONNX node's, which
** loop ops inherit), and then the module is left as it was. lowering.h says why this is one walk rather than conversion
** patterns, and which file does what.
**
** Types: index becomes i64, siN and uiN become iN; iN, f16, bf16, f32, f64 and vectors of them
** stay; a memref of rank r becomes the struct {ptr data, i64 offset,
** i64 x r sizes, i64 x r strides} (fields flattened, MLIR's descriptor)
** held in SSA values. In memory, i1 elements take a byte (i8) and index
** elements eight (i64). The 8-bit float formats have no LLVM type and are
** reported.
*/
#include "transforms/loop_to_llvm/lowering.h"

#include <stdarg.h>
#include <stdio.h>

#include "gilt/pass.h"
#include "gilt/register.h"
#include "dialects/func/func.h"

/* ---- types ------------------------------------------------------------------------ */

static GiltType *scalar_type(L2L *l, GiltType *t)
{
  switch (t->kind) {
  case GILT_TYPE_INDEX:
    return l->i64;
  case GILT_TYPE_INTEGER: /* LLVM's are signless: the ops say the sign */
    return gilt_integer_type_get(l->ctx, t->integer.width, GILT_SIGNLESS);
  case GILT_TYPE_FLOAT:
    return t->fkind <= GILT_F64 ? t : NULL;
  default:
    return NULL;
  }
}

GiltType *l2l_type(L2L *l, GiltType *t)
{
  switch (t->kind) {
  case GILT_TYPE_VECTOR: {
    GiltType *elem = scalar_type(l, t->shaped.elem);
    if (!elem || t->shaped.rank != 1)
      return NULL;
    return gilt_vector_type_get(l->ctx, 1, t->shaped.shape, elem);
  }
  case GILT_TYPE_MEMREF:
    return scalar_type(l, t->shaped.elem)
               ? l2l_descriptor_type(l, t->shaped.rank)
               : NULL;
  default:
    return scalar_type(l, t);
  }
}

GiltType *l2l_memory_type(L2L *l, GiltType *elem)
{
  if (elem->kind == GILT_TYPE_INTEGER && elem->integer.width == 1)
    return l->i8;
  return scalar_type(l, elem);
}

/* ---- values ----------------------------------------------------------------------- */

void l2l_map(L2L *l, GiltValue *from, GiltValue *to)
{
  gilt_ptr_map_put(&l->values, from, (size_t)(uintptr_t)to);
}

GiltValue *l2l_value(L2L *l, GiltValue *v)
{
  size_t to = 0;
  if (gilt_ptr_map_get(&l->values, v, &to))
    return (GiltValue *)(uintptr_t)to;
  /* A value whose producer failed, or of a type without a lowering:
  ** poison keeps the walk going; the run fails anyway. */
  GiltType *t = l2l_type(l, gilt_value_get_type(v));
  GiltValue *p = l2l_poison(l, t ? t : gilt_value_get_type(v));
  l2l_map(l, v, p);
  return p;
}

GiltStatus l2l_error(L2L *l, const char *fmt, ...)
{
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return gilt_op_emit_error(l->op, "cannot be lowered to llvm: %s", msg);
}

/* ---- the walk ---------------------------------------------------------------------- */

static const L2LLowerFn loop_lowerings[LOOP_NUM_OPS] = {
    [LOOP_OP_CONSTANT] = l2l_lower_constant,
#define INT_ROW(sym) [LOOP_OP_##sym] = l2l_lower_int,
    INT_ROW(ADDI) INT_ROW(SUBI) INT_ROW(MULI) INT_ROW(DIVSI) INT_ROW(DIVUI)
    INT_ROW(FLOORDIVSI) INT_ROW(CEILDIVSI) INT_ROW(REMSI) INT_ROW(REMUI)
    INT_ROW(MINSI) INT_ROW(MAXSI) INT_ROW(MINUI) INT_ROW(MAXUI) INT_ROW(ANDI)
    INT_ROW(ORI) INT_ROW(XORI) INT_ROW(SHLI) INT_ROW(SHRSI) INT_ROW(SHRUI)
    INT_ROW(ABSI)
#undef INT_ROW
#define FLOAT_ROW(sym) [LOOP_OP_##sym] = l2l_lower_float,
    FLOAT_ROW(ADDF) FLOAT_ROW(SUBF) FLOAT_ROW(MULF) FLOAT_ROW(DIVF)
    FLOAT_ROW(REMF) FLOAT_ROW(MINIMUMF) FLOAT_ROW(MAXIMUMF) FLOAT_ROW(POWF)
    FLOAT_ROW(ATAN2) FLOAT_ROW(FMA) FLOAT_ROW(NEGF) FLOAT_ROW(ABSF)
    FLOAT_ROW(FLOOR) FLOAT_ROW(CEIL) FLOAT_ROW(ROUND) FLOAT_ROW(ROUNDEVEN)
    FLOAT_ROW(TRUNC) FLOAT_ROW(SQRT) FLOAT_ROW(RSQRT) FLOAT_ROW(EXP)
    FLOAT_ROW(EXPM1) FLOAT_ROW(LOG) FLOAT_ROW(LOG1P) FLOAT_ROW(TANH)
    FLOAT_ROW(SIGMOID) FLOAT_ROW(ERF) FLOAT_ROW(SIN) FLOAT_ROW(COS)
    FLOAT_ROW(TAN)
    FLOAT_ROW(ASIN) FLOAT_ROW(ACOS) FLOAT_ROW(ATAN) FLOAT_ROW(SINH)
    FLOAT_ROW(COSH) FLOAT_ROW(ASINH) FLOAT_ROW(ACOSH) FLOAT_ROW(ATANH)
#undef FLOAT_ROW
    [LOOP_OP_CMPI] = l2l_lower_compare,
    [LOOP_OP_CMPF] = l2l_lower_compare,
    [LOOP_OP_SELECT] = l2l_lower_compare,
#define CAST_ROW(sym) [LOOP_OP_##sym] = l2l_lower_cast,
    CAST_ROW(EXTSI) CAST_ROW(EXTUI) CAST_ROW(TRUNCI) CAST_ROW(SITOFP)
    CAST_ROW(UITOFP) CAST_ROW(FPTOSI) CAST_ROW(FPTOUI) CAST_ROW(EXTF)
    CAST_ROW(TRUNCF) CAST_ROW(INDEX_CAST) CAST_ROW(BITCAST)
#undef CAST_ROW
#define MEMORY_ROW(sym) [LOOP_OP_##sym] = l2l_lower_memory,
    MEMORY_ROW(ALLOC) MEMORY_ROW(DEALLOC) MEMORY_ROW(LOAD) MEMORY_ROW(STORE)
    MEMORY_ROW(DIM) MEMORY_ROW(SUBVIEW) MEMORY_ROW(RESHAPE) MEMORY_ROW(COPY)
    MEMORY_ROW(GET_GLOBAL) MEMORY_ROW(VIEW) MEMORY_ROW(PREFETCH)
#undef MEMORY_ROW
#define VECTOR_ROW(sym) [LOOP_OP_##sym] = l2l_lower_vector,
    VECTOR_ROW(VECTOR_LOAD) VECTOR_ROW(VECTOR_STORE) VECTOR_ROW(MASKED_LOAD)
    VECTOR_ROW(MASKED_STORE) VECTOR_ROW(CREATE_MASK) VECTOR_ROW(BROADCAST)
    VECTOR_ROW(EXTRACT) VECTOR_ROW(INSERT) VECTOR_ROW(SHUFFLE)
    VECTOR_ROW(REDUCTION)
#undef VECTOR_ROW
    [LOOP_OP_FOR] = l2l_lower_control,
    [LOOP_OP_PARALLEL] = l2l_lower_control,
    [LOOP_OP_IF] = l2l_lower_control,
    [LOOP_OP_WHILE] = l2l_lower_control,
    [LOOP_OP_ASSERT] = l2l_lower_control,
    [LOOP_OP_PROFILE_BEGIN] = l2l_lower_profile,
    [LOOP_OP_PROFILE_END] = l2l_lower_profile,
};

/* Whether every operand and result of op has an llvm type. */
static bool types_lower(L2L *l, GiltOp *op)
{
  for (size_t i = 0; i < gilt_op_get_num_operands(op); i++)
    if (!l2l_type(l, gilt_value_get_type(gilt_op_get_operand(op, i))))
      return false;
  for (size_t i = 0; i < gilt_op_get_num_results(op); i++)
    if (!l2l_type(l, gilt_value_get_type(gilt_op_get_result(op, i))))
      return false;
  return true;
}

const GiltInterface l2l_lowering_interface = {"loop-to-llvm lowering"};

/* The lowering an op of another dialect brings, or NULL. */
static L2LLowerFn own_lowering(GiltOp *op)
{
  const L2LLoweringMethods *m =
      gilt_op_get_interface(op, &l2l_lowering_interface);
  return m ? m->lower : NULL;
}

static GiltStatus lower_op(L2L *l, GiltOp *op)
{
  LoopOpId id = loop_op_id(op);
  L2LLowerFn fn = id < LOOP_NUM_OPS ? loop_lowerings[id] : NULL;
  if (!fn && gilt_func_op_is(op, FUNC_OP_CALL))
    fn = l2l_lower_call;
  if (!fn)
    fn = own_lowering(op);
  if (!fn)
    return l2l_error(l, "no lowering for '%s'", gilt_op_get_name(op));
  if (!types_lower(l, op))
    return l2l_error(l, "a value's type has no llvm form (8-bit floats, "
                        "vectors of rank other than 1)");
  return fn(l, op);
}

void l2l_lower_one(L2L *l, GiltOp *op)
{
  GiltOp *outer = l->op;
  GiltLocation *outer_loc = l->loc;
  l->op = op;
  l->loc = gilt_op_get_location(op);
  if (lower_op(l, op) != GILT_SUCCESS)
    l->num_errors++;
  l->op = outer;
  l->loc = outer_loc;
}

GiltOp *l2l_lower_block(L2L *l, GiltBlock *block)
{
  GiltOp *last = gilt_block_get_terminator(block);
  for (GiltOp *op = gilt_block_get_first_op(block); op && op != last;
       op = gilt_op_get_next(op))
    if (!gilt_ptr_map_get(&l->hoisted, op, NULL))
      l2l_lower_one(l, op);
  return last;
}

/* ---- the pass -------------------------------------------------------------------- */

void l2l_init(L2L *l, GiltContext *ctx, GiltOp *module)
{
  *l = (L2L){.ctx = ctx, .module = module};
  l->out = gilt_block_create(ctx, 0, NULL, NULL);
  l->b = gilt_builder_create(ctx);
  gilt_ptr_map_init(&l->values, ctx);
  gilt_ptr_map_init(&l->symbols, ctx);
  gilt_ptr_map_init(&l->strings, ctx);
  gilt_ptr_map_init(&l->hoisted, ctx);
  l->i1 = gilt_integer_type_get(ctx, 1, GILT_SIGNLESS);
  l->i8 = gilt_integer_type_get(ctx, 8, GILT_SIGNLESS);
  l->i32 = gilt_integer_type_get(ctx, 32, GILT_SIGNLESS);
  l->i64 = gilt_integer_type_get(ctx, 64, GILT_SIGNLESS);
  l->f32 = gilt_float_type_get(ctx, GILT_F32);
  l->ptr = llvm_ptr_type(ctx, 0);
}

void l2l_finish(L2L *l)
{
  gilt_block_destroy(l->out);
  gilt_builder_destroy(l->b);
  gilt_ptr_map_free(&l->values);
  gilt_ptr_map_free(&l->symbols);
  gilt_ptr_map_free(&l->strings);
  gilt_ptr_map_free(&l->hoisted);
  gilt_vec_free(l->ctx, &l->outlined);
  gilt_vec_free(l->ctx, &l->locations);
}

/* The module's func and loop ops go; llvm ops already there stay. */
void l2l_swap_in(L2L *l, GiltBlock *body)
{
  GiltOp *op, *next;
  for (op = gilt_block_get_first_op(body); op; op = next) {
    next = gilt_op_get_next(op);
    if (llvm_op_id(op) == LLVM_NUM_OPS)
      gilt_op_destroy(op);
  }
  while ((op = gilt_block_get_first_op(l->out))) {
    gilt_op_remove_from_parent(op);
    gilt_block_append_op(body, op);
  }
}

static const GiltPassOptionDef options[] = {
    {"serial-ops", GILT_OPTION_INT, "10000",
     "A loop.parallel known to run fewer ops than this in all calls its "
     "body on the calling thread instead of sharing it out to the thread "
     "pool (parallel.c); 0 shares out every one"},
    {0}};

static GiltStatus run(GiltPass *pass, GiltOp *module)
{
  int64_t serial_ops = gilt_pass_get_option_int(pass, "serial-ops");
  if (serial_ops < 0) {
    gilt_emit_error(gilt_op_get_location(module),
                    "loop-to-llvm: serial-ops must be 0 or more (given %lld)",
                    (long long)serial_ops);
    return GILT_FAILURE;
  }
  L2L l;
  l2l_init(&l, gilt_pass_get_context(pass), module);
  l.serial_ops = serial_ops;
  GiltBlock *body = gilt_module_get_body(module);
  for (GiltOp *op = gilt_block_get_first_op(body); op;
       op = gilt_op_get_next(op)) {
    l.op = op;
    l.loc = gilt_op_get_location(op);
    if (loop_op_is(op, LOOP_OP_GLOBAL))
      l2l_lower_global(&l, op);
    else if (gilt_func_op_is(op, FUNC_OP_FUNC))
      l2l_lower_func(&l, op);
    else if (own_lowering(op)) {
      if (own_lowering(op)(&l, op))
        l.num_errors++;
    } else if (llvm_op_id(op) == LLVM_NUM_OPS) {
      l2l_error(&l, "no lowering for '%s' at module level",
                gilt_op_get_name(op));
      l.num_errors++;
    }
  }
  GiltStatus status = l.num_errors ? GILT_FAILURE : GILT_SUCCESS;
  if (status == GILT_SUCCESS)
    l2l_swap_in(&l, body);
  l2l_finish(&l);
  return status;
}

const GiltPassDef gilt_loop_to_llvm_pass = {
    .name = "loop-to-llvm",
    .description = "Lower loop-level functions, loops and buffers to the "
                   "llvm dialect (the calling convention of jit/abi.h)",
    .anchor = "builtin.module",
    .options = options,
    .run = run,
};
