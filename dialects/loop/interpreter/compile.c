/*
** compile.c - turns a func.func at the loop level into the interpreter's
** program: cells for every value, one Instr per op with its handler
** chosen here, sub-programs for regions, and the frame's initial image
** with every loop.constant in place.
**
** Requires verified IR (gilt_interpret_function verifies the module), so
** that operand counts, types and terminators are what loop.c promises.
** The gpu dialect's ops that the GPU pipeline leaves at the loop level
** (after gpu-outline-kernels) run too, so that the interpreter checks
** the mapping and outlining against the loop-level results. Reports, at
** the op, every other op outside the loop dialect, func.call and
** func.return, and values of types the interpreter cannot hold (tensors,
** integers wider than 64 bits, vectors of no lanes). Cells are never
** reused: a function's frame is as large as its number of value cells.
** A loop.for's results share the cells of its body's loop-carried
** arguments, a loop.while's those of its body's arguments, so that the
** last values need no copy.
*/
#include "dialects/loop/interpreter/interpreter.h"

#include <string.h>

#include "dialects/func/func.h"
#include "gpu/gpu.h"

typedef GILT_VEC(Instr) InstrVec;
typedef GILT_VEC(uint32_t) CellVec;

typedef struct Compiler {
  Interp *it;
  bool barriers;         /* the function has a gpu.barrier */
  GiltPtrMap cells;      /* value -> its first cell */
  GILT_VEC(Cell) init;   /* the frame's image, one entry per cell */
} Compiler;

/* ---- types and cells ------------------------------------------------------------ */

InterpElem interp_elem_of(GiltType *t)
{
  InterpElem e = {ELEM_SINT, 0, 64, 8};
  if (t->kind == GILT_TYPE_INTEGER) {
    e.cls = t->integer.sign == GILT_UNSIGNED ? ELEM_UINT : ELEM_SINT;
    e.width = (uint8_t)t->integer.width;
    e.bytes = (uint8_t)gilt_type_get_storage_size(t);
  } else if (t->kind == GILT_TYPE_FLOAT) {
    e.fkind = (uint8_t)t->fkind;
    e.cls = t->fkind == GILT_F32 ? ELEM_F32 : t->fkind == GILT_F64 ? ELEM_F64 : ELEM_SMALL;
    e.width = (uint8_t)gilt_type_get_bit_width(t);
    e.bytes = (uint8_t)gilt_type_get_storage_size(t);
  }
  return e;
}

static bool is_scalar(GiltType *t)
{
  return t->kind == GILT_TYPE_INDEX || t->kind == GILT_TYPE_FLOAT ||
         (t->kind == GILT_TYPE_INTEGER && t->integer.width >= 1 &&
          t->integer.width <= 64);
}

uint32_t interp_cells_of(GiltType *t)
{
  if (is_scalar(t))
    return 1;
  if (t->kind == GILT_TYPE_VECTOR && t->shaped.rank == 1 &&
      is_scalar(t->shaped.elem) && t->shaped.shape[0] > 0 &&
      t->shaped.shape[0] <= LOOP_MAX_LANES)
    return (uint32_t)t->shaped.shape[0];
  if (t->kind == GILT_TYPE_MEMREF && is_scalar(t->shaped.elem))
    return DESC_CELLS((uint32_t)t->shaped.rank);
  return 0;
}

/* The lanes of a scalar (1) or vector type. */
static uint32_t lanes_of(GiltType *t)
{
  return t->kind == GILT_TYPE_VECTOR ? (uint32_t)t->shaped.shape[0] : 1;
}

static GiltType *type_of(GiltValue *v)
{
  return gilt_value_get_type(v);
}

/* New cells for v; UINT32_MAX after reporting a type it cannot hold. */
static uint32_t define(Compiler *c, GiltValue *v, GiltOp *at)
{
  uint32_t n = interp_cells_of(type_of(v)), first = (uint32_t)c->init.len;
  if (n == 0) {
    gilt_op_emit_error(at, "has a value of a type the interpreter cannot "
                           "hold");
    return UINT32_MAX;
  }
  gilt_vec_reserve(c->it->ctx, &c->init, c->init.len + n);
  memset(c->init.data + first, 0, n * sizeof(Cell));
  c->init.len += n;
  gilt_ptr_map_put(&c->cells, v, first);
  return first;
}

static uint32_t cell(Compiler *c, GiltValue *v)
{
  size_t first = 0;
  bool found = gilt_ptr_map_get(&c->cells, v, &first);
  GILT_ASSERT(found); /* verified IR defines a value before its uses */
  return (uint32_t)first;
}

static uint32_t operand(Compiler *c, GiltOp *op, size_t i)
{
  return cell(c, gilt_op_get_operand(op, i));
}

/* The cells of n operands from `first`, one each (indices, sizes). */
static const uint32_t *operand_list(Compiler *c, GiltOp *op, size_t first,
                                    size_t n)
{
  uint32_t *list = gilt_arena_alloc(&c->it->arena, (n + 1) * sizeof *list);
  for (size_t i = 0; i < n; i++)
    list[i] = operand(c, op, first + i);
  return list;
}

/* Every cell of v, in order, onto list. */
static void push_cells(Compiler *c, CellVec *list, GiltValue *v)
{
  uint32_t first = cell(c, v), n = interp_cells_of(type_of(v));
  for (uint32_t k = 0; k < n; k++)
    gilt_vec_push(c->it->ctx, list, first + k);
}

static const uint32_t *finish_list(Compiler *c, CellVec *list)
{
  uint32_t *out = gilt_arena_alloc(&c->it->arena, (list->len + 1) * sizeof *out);
  if (list->len)
    memcpy(out, list->data, list->len * sizeof *out);
  gilt_vec_free(c->it->ctx, list);
  return out;
}

/* ---- moves ----------------------------------------------------------------- */

/* Moves from the values `from` to the values `to` (as many cells each),
** dropping the cells that stay put and using scratch cells when a source
** is overwritten before it is read. */
static InterpMoves make_moves(Compiler *c, GiltValue *const *from,
                              GiltValue *const *to, size_t n)
{
  CellVec src = {0}, dst = {0}, a = {0}, b = {0};
  for (size_t i = 0; i < n; i++) {
    push_cells(c, &a, from[i]);
    push_cells(c, &b, to[i]);
  }
  for (size_t k = 0; k < a.len; k++)
    if (a.data[k] != b.data[k]) {
      gilt_vec_push(c->it->ctx, &src, a.data[k]);
      gilt_vec_push(c->it->ctx, &dst, b.data[k]);
    }
  gilt_vec_free(c->it->ctx, &a);
  gilt_vec_free(c->it->ctx, &b);
  InterpMoves m = {(uint32_t)src.len, UINT32_MAX, NULL, NULL};
  for (size_t i = 0; i < src.len && m.scratch == UINT32_MAX; i++)
    for (size_t j = 0; j < dst.len; j++)
      if (src.data[i] == dst.data[j]) {
        m.scratch = (uint32_t)c->init.len;
        gilt_vec_reserve(c->it->ctx, &c->init, c->init.len + src.len);
        memset(c->init.data + c->init.len, 0, src.len * sizeof(Cell));
        c->init.len += src.len;
        break;
      }
  m.src = finish_list(c, &src);
  m.dst = finish_list(c, &dst);
  return m;
}

/* The n operands of op from `first`, as an array of values. */
static GiltValue **operand_values(Compiler *c, GiltOp *op, size_t first,
                                  size_t n)
{
  GiltValue **v = gilt_arena_alloc(&c->it->arena, (n + 1) * sizeof *v);
  for (size_t i = 0; i < n; i++)
    v[i] = gilt_op_get_operand(op, first + i);
  return v;
}

/* The block's arguments from `first`. */
static GiltValue **arg_values(Compiler *c, GiltBlock *b, size_t first)
{
  size_t n = gilt_block_get_num_arguments(b) - first;
  GiltValue **v = gilt_arena_alloc(&c->it->arena, (n + 1) * sizeof *v);
  for (size_t i = 0; i < n; i++)
    v[i] = gilt_block_get_argument(b, first + i);
  return v;
}

/* ---- ops ----------------------------------------------------------------------- */

static bool compile_block(Compiler *c, GiltBlock *b, InterpProgram *out);

static const char *const float_predicates[] = {
    "oeq", "one", "olt", "ole", "ogt", "oge", "ord",
    "ueq", "une", "ult", "ule", "ugt", "uge", "uno"};
static const char *const float_kinds[] = {"add", "mul", "minimumf",
                                          "maximumf"};
static const char *const int_kinds[] = {"add", "mul", "minsi", "maxsi", "minui",
                                        "maxui", "and", "or", "xor"};

/* The position of the op's string attribute `name` in list. */
static int32_t string_index(GiltOp *op, const char *name,
                            const char *const *list, size_t n)
{
  const char *s = gilt_string_attr_get_value(gilt_op_get_attr(op, name), NULL);
  for (size_t i = 0; i < n; i++)
    if (strcmp(s, list[i]) == 0)
      return (int32_t)i;
  return 0;
}

/* loop.constant: writes the value into the frame's image. */
static bool compile_constant(Compiler *c, GiltOp *op)
{
  GiltValue *r = gilt_op_get_result(op, 0);
  uint32_t first = define(c, r, op);
  if (first == UINT32_MAX)
    return false;
  GiltAttr *value = gilt_op_get_attr(op, "value");
  InterpElem e = interp_elem_of(loop_element_type(type_of(r)));
  Cell *cells = c->init.data + first;
  if (value->kind == GILT_ATTR_INTEGER) {
    cells->i = loop_int_cell((uint64_t)gilt_integer_attr_get_value(value), e.width);
  } else if (value->kind == GILT_ATTR_FLOAT) {
    double v = gilt_float_attr_get_value(value);
    if (e.cls == ELEM_F64)
      cells->d = v;
    else
      cells->f = (float)v; /* the attribute is rounded to its type already */
  } else {
    size_t nbytes;
    const char *data = gilt_dense_attr_get_data(value, &nbytes);
    bool splat = nbytes == e.bytes;
    for (uint32_t l = 0; l < lanes_of(type_of(r)); l++)
      cells[l] = interp_elem_read(e, data + (splat ? 0 : l * e.bytes));
  }
  return true;
}

/* Arithmetic, comparisons, select and casts: lane by lane, in the
** element type of operand 0 (of the values, for select). */
static void prepare_lanes(Compiler *c, GiltOp *op, LoopOpId id, Instr *in)
{
  GiltType *t0 = type_of(gilt_op_get_operand(op, 0));
  GiltType *r = type_of(gilt_op_get_result(op, 0));
  (void)c;
  in->n = lanes_of(r);
  in->elem = interp_elem_of(loop_element_type(t0));
  in->elem2 = interp_elem_of(loop_element_type(r));
  if (id == LOOP_OP_CMPI)
    in->imm = loop_int_predicate(
        gilt_string_attr_get_value(gilt_op_get_attr(op, "predicate"), NULL));
  else if (id == LOOP_OP_CMPF)
    in->imm = string_index(op, "predicate", float_predicates, 14);
  else if (id == LOOP_OP_SELECT) {
    in->imm = t0->kind == GILT_TYPE_VECTOR;
    in->n = interp_cells_of(r); /* a vector's lanes, a descriptor's cells */
    in->elem = in->elem2;
  }
}

/* Loads, stores and prefetches: the buffer is operand k, its indices
** follow; the lanes those of the value loaded or stored (a prefetch's
** one element: it has none). */
static void prepare_access(Compiler *c, GiltOp *op, size_t k, Instr *in)
{
  GiltType *m = type_of(gilt_op_get_operand(op, k));
  size_t n = gilt_op_get_num_operands(op);
  in->elem = interp_elem_of(m->shaped.elem);
  in->n = (uint32_t)m->shaped.rank;
  in->list = operand_list(c, op, k + 1, n - k - 1);
  GiltType *value = gilt_op_get_num_results(op)
                        ? type_of(gilt_op_get_result(op, 0))
                    : k ? type_of(gilt_op_get_operand(op, k - 1))
                        : NULL;
  in->imm = value ? (int32_t)lanes_of(value) : 1;
}

/* loop.shuffle's mask as a list of the lanes of its operands (the
** verifier checked them). */
static const uint32_t *shuffle_mask(Compiler *c, GiltOp *op, uint32_t n)
{
  GiltAttr *mask = gilt_op_get_attr(op, "mask");
  uint32_t *list = gilt_arena_alloc(&c->it->arena, (n + 1) * sizeof *list);
  for (uint32_t i = 0; i < n; i++)
    list[i] = (uint32_t)gilt_dense_array_attr_get_int(mask, i);
  return list;
}

/* The alignment of loop.alloc, which its verifier checked; never below
** the default 64 bytes. */
static int32_t alloc_alignment(GiltOp *op)
{
  GiltAttr *a = gilt_op_get_attr(op, "alignment");
  int64_t align = a ? gilt_integer_attr_get_value(a) : 64;
  return (int32_t)(align < 64 ? 64 : align);
}

/* Fills in the Instr of an op that is neither control flow nor a
** constant; false after reporting. */
static bool prepare(Compiler *c, GiltOp *op, LoopOpId id, Instr *in)
{
  size_t n = gilt_op_get_num_operands(op);
  uint32_t *slots[3] = {&in->a, &in->b, &in->c};
  for (size_t i = 0; i < n && i < 3; i++)
    *slots[i] = operand(c, op, i);
  GiltType *t0 = n ? type_of(gilt_op_get_operand(op, 0)) : NULL;
  GiltType *r = gilt_op_get_num_results(op) ? type_of(gilt_op_get_result(op, 0))
                                            : NULL;
  switch (id) {
  case LOOP_OP_LOAD:
  case LOOP_OP_VECTOR_LOAD:
  case LOOP_OP_PREFETCH:
    prepare_access(c, op, 0, in);
    break;
  case LOOP_OP_STORE:
  case LOOP_OP_VECTOR_STORE:
    prepare_access(c, op, 1, in);
    break;
  case LOOP_OP_MASKED_LOAD:
  case LOOP_OP_MASKED_STORE:
    prepare_access(c, op, 2, in);
    break;
  case LOOP_OP_ALLOC:
    in->elem = interp_elem_of(r->shaped.elem);
    in->n = (uint32_t)r->shaped.rank;
    in->aux = r->shaped.shape;
    in->list = operand_list(c, op, 0, n);
    in->imm = alloc_alignment(op);
    break;
  case LOOP_OP_DEALLOC:
  case LOOP_OP_DIM:
  case LOOP_OP_COPY:
    in->n = (uint32_t)t0->shaped.rank;
    in->elem = interp_elem_of(t0->shaped.elem);
    break;
  case LOOP_OP_SUBVIEW:
  case LOOP_OP_RESHAPE:
    in->n = (uint32_t)r->shaped.rank;
    in->imm = (int32_t)t0->shaped.rank;
    in->aux = r;
    in->list = operand_list(c, op, 1, n - 1);
    break;
  case LOOP_OP_VIEW:
    in->n = (uint32_t)r->shaped.rank;
    in->aux = r;
    break;
  case LOOP_OP_GET_GLOBAL:
    in->n = (uint32_t)r->shaped.rank;
    in->aux = gilt_symbol_table_lookup(
        c->it->module,
        gilt_symbol_ref_attr_get_root(gilt_op_get_attr(op, "name")));
    break;
  case LOOP_OP_EXTRACT:
  case LOOP_OP_REDUCTION:
    in->n = lanes_of(t0);
    in->elem = interp_elem_of(r);
    if (id == LOOP_OP_REDUCTION)
      in->imm = r->kind == GILT_TYPE_FLOAT ? string_index(op, "kind", float_kinds, 4)
                                           : string_index(op, "kind", int_kinds, 9);
    break;
  case LOOP_OP_CREATE_MASK:
  case LOOP_OP_BROADCAST:
  case LOOP_OP_INSERT:
    in->n = lanes_of(r);
    break;
  case LOOP_OP_SHUFFLE:
    in->n = lanes_of(r);
    in->imm = (int32_t)lanes_of(t0);
    in->list = shuffle_mask(c, op, in->n);
    break;
  default:
    prepare_lanes(c, op, id, in);
    break;
  }
  return !r || (in->dst = define(c, gilt_op_get_result(op, 0), op)) != UINT32_MAX;
}

static bool select_handler(LoopOpId id, Instr *in)
{
  return interp_select_scalar(id, in) || interp_select_cast(id, in) ||
         interp_select_memory(id, in) || interp_select_vector(id, in);
}

/* ---- control flow ------------------------------------------------------------- */

/* New cells for the block's arguments from `first`. */
static bool define_args(Compiler *c, GiltBlock *b, size_t first, GiltOp *at)
{
  for (size_t i = first; i < gilt_block_get_num_arguments(b); i++)
    if (define(c, gilt_block_get_argument(b, i), at) == UINT32_MAX)
      return false;
  return true;
}

/* Results that share the cells of the block's arguments from `first`. */
static void alias_results(Compiler *c, GiltOp *op, GiltBlock *b, size_t first)
{
  for (size_t i = 0; i < gilt_op_get_num_results(op); i++)
    gilt_ptr_map_put(&c->cells, gilt_op_get_result(op, i),
                     cell(c, gilt_block_get_argument(b, first + i)));
}

static GiltBlock *region_block(GiltOp *op, size_t i)
{
  return gilt_region_get_first_block(gilt_op_get_region(op, i));
}

/* The moves from a terminator's operands (from `first`) to values. */
static InterpMoves moves_from(Compiler *c, GiltOp *term, size_t first,
                              GiltValue *const *to)
{
  size_t n = gilt_op_get_num_operands(term) - first;
  return make_moves(c, operand_values(c, term, first, n), to, n);
}

static bool compile_for(Compiler *c, GiltOp *op, Instr *in)
{
  InterpFor *loop = gilt_arena_alloc(&c->it->arena, sizeof *loop);
  GiltBlock *body = region_block(op, 0);
  size_t n = gilt_op_get_num_results(op);
  in->a = operand(c, op, 0), in->b = operand(c, op, 1), in->c = operand(c, op, 2);
  if (!define_args(c, body, 0, op))
    return false;
  loop->iv = cell(c, gilt_block_get_argument(body, 0));
  GiltValue **args = arg_values(c, body, 1);
  loop->init = make_moves(c, operand_values(c, op, 3, n), args, n);
  alias_results(c, op, body, 1);
  if (!compile_block(c, body, &loop->body))
    return false;
  loop->next = moves_from(c, gilt_block_get_terminator(body), 0, args);
  in->fn = interp_for;
  in->aux = loop;
  return true;
}

static bool compile_parallel(Compiler *c, GiltOp *op, Instr *in)
{
  InterpParallel *p = gilt_arena_alloc(&c->it->arena, sizeof *p);
  GiltBlock *body = region_block(op, 0);
  size_t dims;
  gilt_op_get_operand_group(op, 0, &dims);
  p->dims = (uint32_t)dims;
  p->lower = operand_list(c, op, 0, dims);
  p->upper = operand_list(c, op, dims, dims);
  p->step = operand_list(c, op, 2 * dims, dims);
  if (!define_args(c, body, 0, op))
    return false;
  uint32_t *ivs = gilt_arena_alloc(&c->it->arena, (dims + 1) * sizeof *ivs);
  for (size_t d = 0; d < dims; d++)
    ivs[d] = cell(c, gilt_block_get_argument(body, d));
  p->ivs = ivs;
  in->fn = interp_parallel;
  in->aux = p;
  return compile_block(c, body, &p->body);
}

static bool compile_if(Compiler *c, GiltOp *op, Instr *in)
{
  InterpIf *branch = gilt_arena_alloc(&c->it->arena, sizeof *branch);
  size_t n = gilt_op_get_num_results(op);
  GiltValue **results = gilt_arena_alloc(&c->it->arena, (n + 1) * sizeof *results);
  in->a = operand(c, op, 0);
  for (size_t i = 0; i < n; i++)
    if (define(c, results[i] = gilt_op_get_result(op, i), op) == UINT32_MAX)
      return false;
  GiltBlock *then_block = region_block(op, 0), *else_block = region_block(op, 1);
  if (!compile_block(c, then_block, &branch->then_body))
    return false;
  branch->then_out = moves_from(c, gilt_block_get_terminator(then_block), 0, results);
  branch->else_out.scratch = UINT32_MAX;
  /* No else: an empty program, not a null one (interp_run adds its
  ** length to its code). */
  branch->else_body.code = gilt_arena_alloc(&c->it->arena, sizeof(Instr));
  if (else_block) {
    if (!compile_block(c, else_block, &branch->else_body))
      return false;
    branch->else_out = moves_from(c, gilt_block_get_terminator(else_block), 0, results);
  }
  in->fn = interp_if;
  in->aux = branch;
  return true;
}

static bool compile_while(Compiler *c, GiltOp *op, Instr *in)
{
  InterpWhile *loop = gilt_arena_alloc(&c->it->arena, sizeof *loop);
  GiltBlock *before = region_block(op, 0), *after = region_block(op, 1);
  size_t n = gilt_op_get_num_operands(op);
  if (!define_args(c, before, 0, op) || !define_args(c, after, 0, op))
    return false;
  GiltValue **before_args = arg_values(c, before, 0);
  GiltValue **after_args = arg_values(c, after, 0);
  loop->init = make_moves(c, operand_values(c, op, 0, n), before_args, n);
  alias_results(c, op, after, 0);
  if (!compile_block(c, before, &loop->before))
    return false;
  GiltOp *cond = gilt_block_get_terminator(before);
  loop->cond = operand(c, cond, 0);
  loop->pass = moves_from(c, cond, 1, after_args);
  if (!compile_block(c, after, &loop->after))
    return false;
  loop->next = moves_from(c, gilt_block_get_terminator(after), 0, before_args);
  in->fn = interp_while;
  in->aux = loop;
  return true;
}

/* func.call: list holds every cell of the operands (n), then of the
** results (imm). */
static bool compile_call(Compiler *c, GiltOp *op, Instr *in)
{
  InterpCallee *callee = gilt_arena_alloc(&c->it->arena, sizeof *callee);
  callee->func = gilt_symbol_table_lookup(
      c->it->module,
      gilt_symbol_ref_attr_get_root(gilt_op_get_attr(op, "callee")));
  CellVec list = {0};
  for (size_t i = 0; i < gilt_op_get_num_operands(op); i++)
    push_cells(c, &list, gilt_op_get_operand(op, i));
  in->n = (uint32_t)list.len;
  for (size_t i = 0; i < gilt_op_get_num_results(op); i++) {
    if (define(c, gilt_op_get_result(op, i), op) == UINT32_MAX) {
      gilt_vec_free(c->it->ctx, &list);
      return false;
    }
    push_cells(c, &list, gilt_op_get_result(op, i));
  }
  in->imm = (int32_t)(list.len - in->n);
  in->list = finish_list(c, &list);
  in->fn = interp_call_op;
  in->aux = callee;
  return true;
}

static bool compile_assert(Compiler *c, GiltOp *op, Instr *in)
{
  size_t len;
  const char *msg =
      gilt_string_attr_get_value(gilt_op_get_attr(op, "message"), &len);
  char *copy = gilt_arena_alloc(&c->it->arena, len + 1);
  memcpy(copy, msg, len);
  in->a = operand(c, op, 0);
  in->aux = copy;
  in->fn = interp_assert;
  return true;
}

/* ---- the gpu dialect ------------------------------------------------------------ */

/* gpu.launch_func: the grid's cells, then the arguments'. */
static bool compile_launch_func(Compiler *c, GiltOp *op, Instr *in)
{
  InterpCallee *kernel = gilt_arena_alloc(&c->it->arena, sizeof *kernel);
  kernel->func = gpu_launch_func_get_kernel(op);
  kernel->fn = NULL;
  if (!kernel->func) {
    gilt_op_emit_error(op, "launches a kernel that is not a gpu.func (the "
                           "interpreter runs kernels before gpu-to-nvvm)");
    return false;
  }
  CellVec list = {0};
  for (size_t i = 0; i < gilt_op_get_num_operands(op); i++)
    push_cells(c, &list, gilt_op_get_operand(op, i));
  in->n = (uint32_t)list.len;
  in->list = finish_list(c, &list);
  in->fn = interp_launch_func;
  in->aux = kernel;
  return true;
}

/* The ops the GPU pipeline leaves at the loop level: device buffers are
** buffers, a launch runs its kernel's threads (gpu.c). A shuffle, which
** reads another thread's value, and an un-outlined gpu.launch have no
** interpretation. */
static bool compile_gpu_op(Compiler *c, GiltOp *op, Instr *in)
{
  GpuOpId id = gpu_op_id(op);
  static const LoopOpId as_loop[GPU_NUM_OPS] = {
      [GPU_OP_ALLOC] = LOOP_OP_ALLOC, [GPU_OP_DEALLOC] = LOOP_OP_DEALLOC,
      [GPU_OP_MEMCPY] = LOOP_OP_COPY,
      [GPU_OP_DEVICE_GLOBAL] = LOOP_OP_GET_GLOBAL};
  static const int32_t id_kinds[GPU_NUM_OPS] = {
      [GPU_OP_THREAD_ID] = GPU_ID_THREAD + 1, [GPU_OP_BLOCK_ID] = GPU_ID_BLOCK + 1,
      [GPU_OP_BLOCK_DIM] = GPU_ID_BLOCK_DIM + 1,
      [GPU_OP_GRID_DIM] = GPU_ID_GRID_DIM + 1};
  if (id == GPU_OP_LAUNCH_FUNC)
    return compile_launch_func(c, op, in);
  if (id == GPU_OP_BARRIER) {
    c->barriers = true;
    in->fn = interp_gpu_barrier;
    return true;
  }
  if (id < GPU_NUM_OPS && id_kinds[id]) {
    in->imm = (id_kinds[id] - 1) * 3 + gpu_id_dimension(op);
    in->fn = interp_gpu_id;
    return (in->dst = define(c, gilt_op_get_result(op, 0), op)) != UINT32_MAX;
  }
  if (id >= GPU_NUM_OPS || !as_loop[id]) {
    gilt_op_emit_error(op, "is not supported by the loop interpreter, "
                           "which runs a kernel's threads one after another");
    return false;
  }
  if (!prepare(c, op, as_loop[id], in) || !select_handler(as_loop[id], in))
    return false;
  if (id == GPU_OP_MEMCPY) { /* target, source: loop.copy's the other way */
    uint32_t target = in->a;
    in->a = in->b;
    in->b = target;
  }
  return true;
}

/* ---- blocks and functions ---------------------------------------------------- */

/* Appends op's instruction (none for a constant); false after
** reporting. */
static bool compile_op(Compiler *c, GiltOp *op, InstrVec *code)
{
  Instr in = {0};
  in.op = op;
  LoopOpId id = loop_op_id(op);
  bool ok;
  if (id == LOOP_NUM_OPS && gilt_func_op_is(op, FUNC_OP_CALL))
    return compile_call(c, op, &in) && (gilt_vec_push(c->it->ctx, code, in), true);
  if (id == LOOP_NUM_OPS && gpu_op_id(op) != GPU_NUM_OPS)
    return compile_gpu_op(c, op, &in) && (gilt_vec_push(c->it->ctx, code, in), true);
  switch (id) {
  case LOOP_OP_CONSTANT: return compile_constant(c, op);
  /* The interpreter does not time: a start of 0, nothing recorded. */
  case LOOP_OP_PROFILE_BEGIN:
    return define(c, gilt_op_get_result(op, 0), op) != UINT32_MAX;
  case LOOP_OP_PROFILE_END: return true;
  case LOOP_OP_FOR: ok = compile_for(c, op, &in); break;
  case LOOP_OP_PARALLEL: ok = compile_parallel(c, op, &in); break;
  case LOOP_OP_IF: ok = compile_if(c, op, &in); break;
  case LOOP_OP_WHILE: ok = compile_while(c, op, &in); break;
  case LOOP_OP_ASSERT: ok = compile_assert(c, op, &in); break;
  case LOOP_NUM_OPS:
  case LOOP_OP_GLOBAL:
  case LOOP_OP_YIELD:
  case LOOP_OP_CONDITION:
    gilt_op_emit_error(op, "is not supported by the loop interpreter");
    return false;
  default:
    ok = prepare(c, op, id, &in) && select_handler(id, &in);
    GILT_ASSERT(!ok || in.fn);
    break;
  }
  if (ok)
    gilt_vec_push(c->it->ctx, code, in);
  return ok;
}

/* The block's ops but its terminator, whose operands its parent's
** compiler reads. */
static bool compile_block(Compiler *c, GiltBlock *b, InterpProgram *out)
{
  InstrVec code = {0};
  GiltOp *last = gilt_block_get_last_op(b);
  bool ok = true;
  for (GiltOp *op = gilt_block_get_first_op(b); ok && op; op = gilt_op_get_next(op))
    if (op != last || !gilt_op_has_trait(op, GILT_TRAIT_TERMINATOR))
      ok = compile_op(c, op, &code);
  out->len = code.len;
  out->code = gilt_arena_alloc(&c->it->arena, (code.len + 1) * sizeof(Instr));
  if (code.len)
    memcpy(out->code, code.data, code.len * sizeof(Instr));
  gilt_vec_free(c->it->ctx, &code);
  return ok;
}

/* Flattens the cells of the values into *cells, each value's start into
** *first. */
static uint32_t flatten(Compiler *c, GiltValue *const *values, size_t n,
                        const uint32_t **cells, const uint32_t **first)
{
  CellVec list = {0};
  uint32_t *starts = gilt_arena_alloc(&c->it->arena, (n + 1) * sizeof *starts);
  for (size_t i = 0; i < n; i++) {
    starts[i] = (uint32_t)list.len;
    push_cells(c, &list, values[i]);
  }
  uint32_t len = (uint32_t)list.len;
  *cells = finish_list(c, &list);
  *first = starts;
  return len;
}

static bool compile_function(Compiler *c, InterpFunction *fn)
{
  GiltOp *func = fn->func;
  GiltRegion *region = gilt_op_get_region(func, 0);
  if (gilt_region_get_num_blocks(region) != 1) {
    gilt_op_emit_error(func, "needs a body of one block to be interpreted");
    return false;
  }
  GiltBlock *entry = gilt_region_get_first_block(region);
  if (!define_args(c, entry, 0, func) || !compile_block(c, entry, &fn->body))
    return false;
  GiltOp *ret = gilt_block_get_terminator(entry);
  size_t nargs = gilt_block_get_num_arguments(entry);
  size_t nres = gilt_op_get_num_operands(ret);
  fn->num_arg_cells = flatten(c, arg_values(c, entry, 0), nargs,
                              &fn->arg_cells, &fn->arg_first);
  fn->num_result_cells = flatten(c, operand_values(c, ret, 0, nres), nres,
                                 &fn->result_cells, &fn->result_first);
  fn->num_cells = (uint32_t)c->init.len;
  fn->init = gilt_arena_alloc(&c->it->arena, (c->init.len + 1) * sizeof(Cell));
  if (c->init.len)
    memcpy(fn->init, c->init.data, c->init.len * sizeof(Cell));
  return true;
}

InterpFunction *interp_function_get(Interp *it, GiltOp *func)
{
  size_t index;
  if (gilt_ptr_map_get(&it->functions, func, &index)) {
    InterpFunction *fn = it->funcs.data[index];
    return fn->compiled ? fn : NULL;
  }
  InterpFunction *fn = gilt_arena_alloc(&it->arena, sizeof *fn);
  fn->func = func;
  gilt_ptr_map_put(&it->functions, func, it->funcs.len);
  gilt_vec_push(it->ctx, &it->funcs, fn);
  Compiler c = {.it = it};
  gilt_ptr_map_init(&c.cells, it->ctx);
  fn->compiled = compile_function(&c, fn);
  fn->waits_at_barriers = c.barriers;
  gilt_ptr_map_free(&c.cells);
  gilt_vec_free(it->ctx, &c.init);
  return fn->compiled ? fn : NULL;
}
