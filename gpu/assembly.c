/*
** assembly.c - the custom textual forms of the gpu dialect, MLIR's where
** it has one:
**
**   %t = gpu.thread_id x
**   gpu.launch blocks(%gx, %gy, %gz) threads(%bx, %by, %bz) {
**     ...
**     gpu.terminator
**   }
**   gpu.module @f_kernels {
**     gpu.func @f_kernel_0(%arg0: memref<?xf32, 1>) attributes {gpu.kernel} {
**       gpu.return
**     }
**   }
**   gpu.launch_func @f_kernels::@f_kernel_0 blocks(%gx, %c1, %c1)
**       threads(%c256, %c1, %c1) args(%d, %n) : memref<?xf32, 1>, index
**   gpu.binary @f_kernels attributes {chip = "sm_80", ptx = "..."}
**
** gpu.terminator, gpu.return and gpu.barrier are their names alone;
** gpu.func is func.func's form (ir/asm/function_asm.c); the other ops use
** the functional form `%a, %b {attrs} : (A, B) -> R`. Each parse hook
** reads back exactly what its print hook writes; the generic form works
** for every op too.
*/
#include "gpu/gpu.h"

#include "ir/asm/asm.h"
#include "ir/core.h"

typedef GILT_VEC(GiltUnresolvedOperand) OperandVec;
typedef GILT_VEC(GiltType *) TypeVec;

/* ---- gpu.terminator, gpu.return, gpu.barrier: the name alone ---------- */

void gpu_print_bare(GiltOp *op, GiltAsmPrinter *p)
{
  gilt_asm_print_attr_dict(p, op, NULL, 0, false);
}

GiltStatus gpu_parse_bare(GiltAsmParser *p, GiltOpBuild *b)
{
  return gilt_asm_parse_optional_attr_dict(p, b, false);
}

/* ---- ids ------------------------------------------------------------------- */

void gpu_print_id(GiltOp *op, GiltAsmPrinter *p)
{
  static const char *const elided[] = {"dimension"};
  gilt_asm_print(p, " %s", gilt_string_attr_get_value(
                               gilt_op_get_attr(op, "dimension"), NULL));
  gilt_asm_print_attr_dict(p, op, elided, 1, false);
}

GiltStatus gpu_parse_id(GiltAsmParser *p, GiltOpBuild *b)
{
  static const char *const names[3] = {"x", "y", "z"};
  GiltContext *ctx = gilt_asm_parser_get_context(p);
  size_t d = 0;
  while (d < 3 && !gilt_asm_parse_optional_keyword(p, names[d]))
    d++;
  if (d == 3)
    return gilt_asm_emit_error(p, "expected 'x', 'y' or 'z'");
  gilt_op_build_add_attr(b, "dimension", gilt_string_attr_get(ctx, names[d], 1));
  gilt_vec_push(ctx, &b->result_types, gilt_index_type_get(ctx));
  return gilt_asm_parse_optional_attr_dict(p, b, false);
}

/* ---- grid sizes --------------------------------------------------------------- */

/* ` blocks(%a, %b, %c) threads(%d, %e, %f)`: operands 0 to 5. */
static void print_grid(GiltOp *op, GiltAsmPrinter *p)
{
  gilt_asm_print(p, " blocks(");
  gilt_asm_print_operands(p, op, 0, 3);
  gilt_asm_print(p, ") threads(");
  gilt_asm_print_operands(p, op, 3, 3);
  gilt_asm_print(p, ")");
}

/* `keyword(%a, %b, %c)`: three index operands into the build. */
static GiltStatus parse_triple(GiltAsmParser *p, GiltOpBuild *b,
                               const char *keyword)
{
  GiltContext *ctx = gilt_asm_parser_get_context(p);
  OperandVec ops = {0};
  GiltStatus st = gilt_asm_parse_keyword(p, keyword);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_punct(p, "(");
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_operand_vec(p, &ops);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_punct(p, ")");
  if (st == GILT_SUCCESS && ops.len != 3)
    st = gilt_asm_emit_error(p, "expected 3 sizes (x, y, z), got %zu",
                             ops.len);
  if (st == GILT_SUCCESS)
    st = gilt_asm_resolve_into(p, b, ops.data, 3, gilt_index_type_get(ctx),
                               NULL);
  gilt_vec_free(ctx, &ops);
  return st;
}

static GiltStatus parse_grid(GiltAsmParser *p, GiltOpBuild *b)
{
  if (parse_triple(p, b, "blocks"))
    return GILT_FAILURE;
  return parse_triple(p, b, "threads");
}

/* ---- gpu.launch ------------------------------------------------------------------ */

void gpu_print_launch(GiltOp *op, GiltAsmPrinter *p)
{
  print_grid(op, p);
  gilt_asm_print_region(p, gilt_op_get_region(op, 0), false);
  gilt_asm_print_attr_dict(p, op, NULL, 0, false);
}

GiltStatus gpu_parse_launch(GiltAsmParser *p, GiltOpBuild *b)
{
  if (parse_grid(p, b) ||
      gilt_asm_parse_region(p, gilt_op_build_add_region(b), NULL, 0))
    return GILT_FAILURE;
  return gilt_asm_parse_optional_attr_dict(p, b, false);
}

/* ---- symbols: gpu.module and gpu.binary ------------------------------------------- */

/* ` @name attributes {...}`, the symbol's other attributes. */
static void print_symbol_header(GiltOp *op, GiltAsmPrinter *p)
{
  static const char *const elided[] = {"sym_name"};
  gilt_asm_print(p, " ");
  gilt_asm_print_symbol_name(p, gilt_symbol_get_name(op));
  gilt_asm_print_attr_dict(p, op, elided, 1, true);
}

static GiltStatus parse_symbol_header(GiltAsmParser *p, GiltOpBuild *b)
{
  GiltAttr *name;
  if (gilt_asm_parse_symbol_name(p, &name))
    return GILT_FAILURE;
  gilt_op_build_add_attr(b, "sym_name", name);
  return gilt_asm_parse_optional_attr_dict(p, b, true);
}

void gpu_print_module(GiltOp *op, GiltAsmPrinter *p)
{
  print_symbol_header(op, p);
  gilt_asm_print_region(p, gilt_op_get_region(op, 0), true);
}

GiltStatus gpu_parse_module(GiltAsmParser *p, GiltOpBuild *b)
{
  if (parse_symbol_header(p, b))
    return GILT_FAILURE;
  GiltRegion *body = gilt_op_build_add_region(b);
  if (gilt_asm_parse_region(p, body, NULL, 0))
    return GILT_FAILURE;
  /* `gpu.module @m {}` has no block; a module always has one. */
  if (!body->first)
    gilt_region_append_block(body, gilt_block_create(b->ctx, 0, NULL, NULL));
  return GILT_SUCCESS;
}

void gpu_print_binary(GiltOp *op, GiltAsmPrinter *p)
{
  print_symbol_header(op, p);
}

GiltStatus gpu_parse_binary(GiltAsmParser *p, GiltOpBuild *b)
{
  return parse_symbol_header(p, b);
}

/* ---- gpu.launch_func ---------------------------------------------------------------- */

void gpu_print_launch_func(GiltOp *op, GiltAsmPrinter *p)
{
  static const char *const elided[] = {"kernel"};
  size_t n = gilt_op_get_num_operands(op) - 6;
  gilt_asm_print(p, " ");
  gilt_asm_print_attr(p, gilt_op_get_attr(op, "kernel"));
  print_grid(op, p);
  if (n) {
    gilt_asm_print(p, " args(");
    gilt_asm_print_operands(p, op, 6, n);
    gilt_asm_print(p, ")");
  }
  gilt_asm_print_attr_dict(p, op, elided, 1, false);
  if (!n)
    return;
  gilt_asm_print(p, " : ");
  for (size_t i = 0; i < n; i++) {
    gilt_asm_print(p, i ? ", " : "");
    gilt_asm_print_type(p, gilt_value_get_type(gilt_op_get_operand(op, 6 + i)));
  }
}

/* ` args(%a, %b) ... : A, B`, after the attributes. */
static GiltStatus parse_kernel_args(GiltAsmParser *p, GiltOpBuild *b)
{
  OperandVec ops = {0};
  TypeVec types = {0};
  GiltStatus st = GILT_SUCCESS;
  if (gilt_asm_parse_optional_keyword(p, "args")) {
    st = gilt_asm_parse_punct(p, "(");
    if (st == GILT_SUCCESS)
      st = gilt_asm_parse_operand_vec(p, &ops);
    if (st == GILT_SUCCESS)
      st = gilt_asm_parse_punct(p, ")");
  }
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_optional_attr_dict(p, b, false);
  if (st == GILT_SUCCESS && ops.len) {
    st = gilt_asm_parse_punct(p, ":");
    if (st == GILT_SUCCESS)
      st = gilt_asm_parse_type_vec(p, &types);
    if (st == GILT_SUCCESS && types.len != ops.len)
      st = gilt_asm_emit_error(p, "%zu arguments but %zu types", ops.len,
                               types.len);
    if (st == GILT_SUCCESS)
      st = gilt_asm_resolve_into(p, b, ops.data, ops.len, NULL, types.data);
  }
  gilt_vec_free(b->ctx, &ops);
  gilt_vec_free(b->ctx, &types);
  return st;
}

GiltStatus gpu_parse_launch_func(GiltAsmParser *p, GiltOpBuild *b)
{
  GiltAttr *kernel;
  if (gilt_asm_parse_attr(p, &kernel))
    return GILT_FAILURE;
  if (kernel->kind != GILT_ATTR_SYMBOL_REF)
    return gilt_asm_emit_error(p, "expected the kernel as @module::@kernel");
  gilt_op_build_add_attr(b, "kernel", kernel);
  if (parse_grid(p, b))
    return GILT_FAILURE;
  return parse_kernel_args(p, b);
}
