/*
** run.c - gilt_interpret_function: checks the inputs against the
** function's signature, runs the compiled function on a frame, and turns
** its results into tensors. Also the frames of func.call and the moves of
** loop-carried values.
**
** Inputs are borrowed, never copied: a memref argument's descriptor points
** at the tensor's elements, so a function that stores into an argument
** (destination-passing style) writes the caller's tensor. Results are
** always copied into new tensors, whatever buffer they come from (an
** allocation, a view, an argument, a global); then every buffer the call
** allocated is freed.
*/
#include "dialects/loop/interpreter/interpreter.h"

#include <stdlib.h>
#include <string.h>

#include "dialects/func/func.h"

/* Deeper recursion would exhaust the C stack of the handlers. */
#define MAX_CALL_DEPTH 1000

void interp_moves_through_scratch(Cell *f, const InterpMoves *m)
{
  for (uint32_t i = 0; i < m->n; i++)
    f[m->scratch + i] = f[m->src[i]];
  for (uint32_t i = 0; i < m->n; i++)
    f[m->dst[i]] = f[m->scratch + i];
}

bool interp_call(Interp *it, InterpFunction *fn, GiltOp *at, const Cell *args,
                 Cell *results)
{
  if (it->depth >= MAX_CALL_DEPTH) {
    gilt_op_emit_error(at, "calls nest deeper than %d", MAX_CALL_DEPTH);
    return false;
  }
  Cell *f = gilt_malloc(it->ctx, fn->num_cells * sizeof(Cell) + sizeof(Cell));
  memcpy(f, fn->init, fn->num_cells * sizeof(Cell));
  for (uint32_t i = 0; i < fn->num_arg_cells; i++)
    f[fn->arg_cells[i]] = args[i];
  it->depth++;
  bool ok = interp_run(f, &fn->body, it);
  it->depth--;
  for (uint32_t i = 0; ok && i < fn->num_result_cells; i++)
    results[i] = f[fn->result_cells[i]];
  gilt_free(it->ctx, f);
  return ok;
}

/* ---- inputs ------------------------------------------------------------------ */

/* The descriptor of a tensor seen as a memref of type t, which
** loop_check_inputs found it fits: dense, row-major, at offset 0. */
static void memref_input(GiltType *t, GiltTensor *x, Cell *cells)
{
  size_t rank = t->shaped.rank;
  const int64_t *shape = gilt_tensor_get_shape(x);
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    DESC_SIZE(cells, 0, d) = shape[d];
    DESC_STRIDE(cells, 0, rank, d) = stride;
    stride *= shape[d];
  }
  DESC_BASE(cells, 0) = gilt_tensor_get_data(x);
  DESC_OFFSET(cells, 0) = 0;
}

/* Lanes of a scalar (a tensor of rank 0) or a vector (of rank 1). */
static void lanes_input(GiltType *t, GiltTensor *x, Cell *cells)
{
  GiltType *elem = loop_element_type(t);
  int64_t lanes = t->kind == GILT_TYPE_VECTOR ? t->shaped.shape[0] : 1;
  InterpElem e = interp_elem_of(elem);
  const char *data = gilt_tensor_get_data(x);
  for (int64_t l = 0; l < lanes; l++)
    cells[l] = interp_elem_read(e, data + l * e.bytes);
}

static bool read_inputs(GiltOp *func, InterpFunction *fn, size_t num_inputs,
                        GiltTensor *const *inputs, Cell *args)
{
  GiltType *type = gilt_func_get_type(func);
  if (loop_check_inputs(gilt_op_get_location(func), type, num_inputs, inputs))
    return false;
  for (size_t i = 0; i < num_inputs; i++) {
    GiltType *t = gilt_function_type_get_input(type, i);
    Cell *cells = args + fn->arg_first[i];
    if (t->kind == GILT_TYPE_MEMREF)
      memref_input(t, inputs[i], cells);
    else
      lanes_input(t, inputs[i], cells);
  }
  return true;
}

/* ---- outputs ----------------------------------------------------------------- */

/* The elements of descriptor cells, row-major, into dst, which has room
** for them all: their count fits, and is 0 when a size is. */
static void copy_out(const Cell *desc, size_t rank, size_t elem, char *dst)
{
  int64_t idx[rank + 1], count = 1;
  for (size_t d = 0; d < rank; d++)
    idx[d] = 0;
  for (size_t d = 0; d < rank; d++)
    if (desc[2 + d].i == 0)
      return;
  for (size_t d = 0; d < rank; d++)
    count *= desc[2 + d].i;
  for (int64_t k = 0; k < count; k++) {
    int64_t off = desc[1].i;
    for (size_t d = 0; d < rank; d++)
      off += idx[d] * desc[2 + rank + d].i;
    memcpy(dst + k * (int64_t)elem, desc[0].p + off * (int64_t)elem, elem);
    for (size_t d = rank; d-- > 0;)
      if (++idx[d] < desc[2 + d].i)
        break;
      else
        idx[d] = 0;
  }
}

static GiltTensor *make_output(GiltType *t, const Cell *cells)
{
  GiltType *elem = loop_element_type(t->kind == GILT_TYPE_MEMREF ? t->shaped.elem : t);
  if (t->kind == GILT_TYPE_MEMREF) {
    size_t rank = t->shaped.rank;
    int64_t shape[rank + 1];
    for (size_t d = 0; d < rank; d++)
      shape[d] = cells[2 + d].i;
    GiltTensor *x = gilt_tensor_create(elem, rank, shape);
    if (x)
      copy_out(cells, rank, gilt_tensor_element_size(elem),
               gilt_tensor_get_data(x));
    return x;
  }
  int64_t lanes = t->kind == GILT_TYPE_VECTOR ? t->shaped.shape[0] : 1;
  GiltTensor *x = gilt_tensor_create(elem, t->kind == GILT_TYPE_VECTOR, &lanes);
  InterpElem e = interp_elem_of(elem);
  for (int64_t l = 0; x && l < lanes; l++)
    interp_elem_write(e, cells[l], (char *)gilt_tensor_get_data(x) + l * e.bytes);
  return x;
}

/* The func.return of func, where the use of a freed buffer it returns
** is reported. */
static GiltOp *return_op(GiltOp *func)
{
  GiltRegion *body = gilt_op_get_region(func, 0);
  GiltBlock *b = gilt_region_get_first_block(body);
  GiltOp *ret = NULL;
  for (; b; b = gilt_block_get_next(b))
    if (gilt_func_op_is(gilt_block_get_terminator(b), FUNC_OP_RETURN))
      ret = gilt_block_get_terminator(b);
  return ret ? ret : func;
}

static bool make_outputs(Interp *it, GiltOp *func, InterpFunction *fn,
                         const Cell *results, size_t *num_outputs,
                         GiltTensor ***outputs)
{
  GiltType *type = gilt_func_get_type(func);
  size_t n = gilt_function_type_get_num_results(type);
  for (size_t i = 0; i < n; i++)
    if (gilt_function_type_get_result(type, i)->kind == GILT_TYPE_MEMREF &&
        !interp_buffer_live(it, return_op(func),
                            DESC_BASE(results + fn->result_first[i], 0)))
      return false;
  GiltTensor **out = calloc(n + 1, sizeof *out);
  for (size_t i = 0; out && i < n; i++) {
    out[i] = make_output(gilt_function_type_get_result(type, i),
                         results + fn->result_first[i]);
    if (!out[i]) {
      gilt_op_emit_error(func, "cannot allocate result %zu", i);
      while (i-- > 0)
        gilt_tensor_destroy(out[i]);
      free(out);
      return false;
    }
  }
  *outputs = out;
  *num_outputs = n;
  return out != NULL;
}

/* ---- the entry ----------------------------------------------------------------- */

static void interp_init(Interp *it, GiltOp *module)
{
  memset(it, 0, sizeof *it);
  it->ctx = gilt_op_get_context(module);
  it->module = module;
  gilt_arena_init(&it->arena, it->ctx);
  gilt_ptr_map_init(&it->functions, it->ctx);
  gilt_ptr_map_init(&it->globals, it->ctx);
  gilt_ptr_map_init(&it->allocations, it->ctx);
  gilt_ptr_map_init(&it->shared, it->ctx);
}

static void interp_fini(Interp *it)
{
  interp_free_all(it);
  gilt_ptr_map_free(&it->shared);
  gilt_ptr_map_free(&it->functions);
  gilt_ptr_map_free(&it->globals);
  gilt_vec_free(it->ctx, &it->funcs);
  gilt_vec_free(it->ctx, &it->global_data);
  gilt_arena_free_all(&it->arena);
}

GiltStatus gilt_interpret_function(GiltOp *module, const char *function,
                                   size_t num_inputs,
                                   GiltTensor *const *inputs,
                                   size_t *num_outputs, GiltTensor ***outputs)
{
  *num_outputs = 0;
  *outputs = NULL;
  if (gilt_op_verify(module))
    return GILT_FAILURE;
  GiltOp *func = gilt_symbol_table_lookup(module, function);
  if (!gilt_func_op_is(func, FUNC_OP_FUNC))
    return gilt_op_emit_error(module, "has no func.func named '%s'",
                              function);
  Interp it;
  interp_init(&it, module);
  InterpFunction *fn = interp_function_get(&it, func);
  bool ok = fn != NULL;
  if (ok) { /* on the heap: vectors make them large */
    Cell *args = gilt_malloc(it.ctx, (fn->num_arg_cells + fn->num_result_cells + 1) *
                                         sizeof(Cell));
    Cell *results = args + fn->num_arg_cells;
    ok = read_inputs(func, fn, num_inputs, inputs, args) &&
         interp_call(&it, fn, func, args, results) &&
         make_outputs(&it, func, fn, results, num_outputs, outputs);
    gilt_free(it.ctx, args);
  }
  interp_fini(&it);
  return ok ? GILT_SUCCESS : GILT_FAILURE;
}
