/*
** control.c - lowering of the control-flow ops If, Loop and Scan. The ops
** of their bodies move into the loop op that replaces them, where the
** driver lowers them in turn as anywhere else (their block arguments are
** given buffer types first, gilt_conversion_convert_region_types); the
** graph.yield ending a body is rewritten here at once into what the new
** op's body ends with, reading the yielded values through
** gilt_conversion_get_remapped_value, since they are converted only later.
**
**   If    loop.if yielding the branches' buffers.
**   Loop  loop.while carrying (iteration, condition, loop-carried buffers,
**         scan buffers). The trip count is known only at run time, so
**         each scan output is stored row by row into a buffer of M rows
**         (capped; one without M) that grows when full (reallocated at
**         twice the rows, plus one, and copied), then copied into a
**         result of the final size. The iteration number and condition
**         reach the body as buffers of one element, made anew each
**         iteration and not freed: the body may pass them on.
**   Scan  loop.for over the scanned axis of the first scan input; each
**         iteration copies its slice of every scan input into a fresh
**         buffer and stores the scan outputs' slices into the results.
**
** Values of the enclosing function that a body uses stay uses of the
** converted outer buffers. A loop-carried value whose shape changes
** between iterations is carried with the result's type (dynamic where they
** differ) and reshaped (loop.reshape) where the types disagree. Not
** handled, and reported: scan outputs whose slices have no static shape,
** values that are not ranked tensors (sequences, optionals).
*/
#include "transforms/graph_to_loop/lowering.h"

#include "ir/rewrite/conversion.h"

static GiltBuilder *builder(Lower *l)
{
  return gilt_rewriter_get_builder(l->rw);
}

static GiltType *type_of(GiltValue *v)
{
  return gilt_value_get_type(v);
}

/* The buffer type of a ranked tensor type, NULL for any other. */
static GiltType *buffer_type(Lower *l, GiltType *t)
{
  if (t->kind != GILT_TYPE_TENSOR || !t->shaped.ranked)
    return NULL;
  return gilt_memref_type_get(l->ctx, t->shaped.rank, t->shaped.shape,
                              t->shaped.elem, NULL, NULL);
}

/* v seen as type `to`, of its element type and rank: v itself, or a
** loop.reshape where the static and dynamic dims differ. */
static GiltValue *coerce(Lower *l, GiltValue *v, GiltType *to)
{
  if (type_of(v) == to)
    return v;
  GiltValue *ops[GRAPH_MAX_RANK + 1];
  size_t n = 0;
  ops[n++] = v;
  for (size_t i = 0; i < to->shaped.rank; i++)
    if (to->shaped.shape[i] == GILT_DYNAMIC)
      ops[n++] = lower_dim(l, v, i);
  return lower_emit(l, LOOP_OP_RESHAPE, to, n, ops);
}

/* The one element of a buffer of any rank (a condition, a count). */
static GiltValue *load_scalar(Lower *l, GiltValue *buf)
{
  GiltValue *zeros[GRAPH_MAX_RANK];
  for (size_t i = 0; i < type_of(buf)->shaped.rank; i++)
    zeros[i] = lower_index(l, 0);
  return lower_load(l, buf, zeros);
}

static void store_scalar(Lower *l, GiltValue *v, GiltValue *buf)
{
  GiltValue *zeros[GRAPH_MAX_RANK];
  for (size_t i = 0; i < type_of(buf)->shaped.rank; i++)
    zeros[i] = lower_index(l, 0);
  lower_store(l, v, buf, zeros);
}

/* ---- bodies ---------------------------------------------------------------- */

/* A loop op with regions, at the insertion point. */
static GiltOp *create_region_op(Lower *l, LoopOpId id, size_t num_results,
                                GiltType *const *types, size_t n,
                                GiltValue *const *operands,
                                size_t num_regions)
{
  GiltOpState st = gilt_op_state_get(loop_ops[id].name, l->loc);
  st.num_operands = n;
  st.operands = operands;
  st.num_results = num_results;
  st.result_types = types;
  st.num_regions = num_regions;
  GiltOp *op = gilt_rewriter_create_op(l->rw, &st);
  GILT_ASSERT(op);
  return op;
}

/* A new block with arguments of these types as region r of op; the
** insertion point goes into it. */
static GiltBlock *open_block(Lower *l, GiltOp *op, size_t r, size_t n,
                             GiltType *const *types)
{
  GiltBlock *block = gilt_block_create(l->ctx, n, types, NULL);
  gilt_region_append_block(gilt_op_get_region(op, r), block);
  gilt_builder_set_insertion_point_to_end(builder(l), block);
  return block;
}

/* Moves the ops of the graph op's body `body` (region r's block) to the
** end of the block being built, its arguments replaced by args (of the
** arguments' converted types), and returns its graph.yield with the
** insertion point before it; values[] gets the yielded values as buffers.
** The caller ends the block there and erases the yield (close_body). */
static GiltOp *splice_body(Lower *l, GiltBlock *body,
                           GiltValue *const *args, GiltValue **values)
{
  GiltBlock *dst = gilt_builder_get_insertion_block(builder(l));
  lower_emit(l, LOOP_OP_YIELD, NULL, 0, NULL);
  GiltOp *anchor = gilt_block_get_last_op(dst);
  gilt_rewriter_inline_block_before(l->rw, body, anchor, args);
  gilt_rewriter_erase_op(l->rw, anchor);
  GiltOp *yield = gilt_block_get_last_op(dst);
  for (size_t i = 0; i < gilt_op_get_num_operands(yield); i++)
    values[i] = gilt_conversion_get_remapped_value(
        l->rw, gilt_op_get_operand(yield, i), yield);
  gilt_builder_set_insertion_point_before(builder(l), yield);
  return yield;
}

/* Erases the graph.yield; the insertion point goes to the block's end. */
static void drop_yield(Lower *l, GiltOp *yield)
{
  GiltBlock *b = gilt_op_get_block(yield);
  gilt_rewriter_erase_op(l->rw, yield);
  gilt_builder_set_insertion_point_to_end(builder(l), b);
}

/* Ends the block with loop.yield of these values in place of the
** graph.yield and moves the insertion point after `owner`. */
static void close_body(Lower *l, GiltOp *yield, size_t n,
                       GiltValue *const *values, GiltOp *owner)
{
  lower_emit(l, LOOP_OP_YIELD, NULL, n, values);
  drop_yield(l, yield);
  gilt_builder_set_insertion_point_after(builder(l), owner);
}

/* The body block of the graph op's region r, its arguments converted. */
static GiltBlock *body_of(Lower *l, size_t r)
{
  GiltRegion *region = gilt_op_get_region(l->op, r);
  if (gilt_conversion_convert_region_types(l->rw, region))
    return NULL;
  return gilt_region_get_first_block(region);
}

/* The number of values the graph.yield ending region r yields. */
static size_t num_yielded(Lower *l, size_t r)
{
  GiltBlock *b = gilt_region_get_first_block(gilt_op_get_region(l->op, r));
  return gilt_op_get_num_operands(gilt_block_get_last_op(b));
}

/* The result types as buffers; fails (reported) on any other kind. */
static GiltStatus result_types(Lower *l, GiltType **types)
{
  for (size_t i = 0; i < gilt_op_get_num_results(l->op); i++) {
    types[i] = buffer_type(l, type_of(gilt_op_get_result(l->op, i)));
    if (!types[i])
      return lower_error(l, "result %zu is not a ranked tensor", i);
  }
  return GILT_SUCCESS;
}

/* ---- slices ------------------------------------------------------------------ */

/* Copies between a slice and the buffer it is a slice of at index `pos`
** of dimension `axis`: into the buffer (`into`) or out of it. */
typedef struct Slice {
  GiltValue *slice, *whole, *pos;
  size_t axis;
  bool into;
} Slice;

static void slice_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Slice *s = user;
  GiltValue *at[GRAPH_MAX_RANK];
  size_t rank = type_of(s->whole)->shaped.rank;
  for (size_t i = 0, k = 0; i < rank; i++)
    at[i] = i == s->axis ? s->pos : ivs[k++];
  if (s->into)
    lower_store(l, lower_load(l, s->slice, ivs), s->whole, at);
  else
    lower_store(l, lower_load(l, s->whole, at), s->slice, ivs);
}

static void copy_slice(Lower *l, Slice *s)
{
  GiltValue *dims[GRAPH_MAX_RANK];
  lower_dims(l, s->slice, dims);
  lower_parallel(l, type_of(s->slice)->shaped.rank, dims, slice_body, s);
}

typedef struct Rows {
  GiltValue *from, *to;
} Rows;

static void rows_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Rows *r = user;
  lower_store(l, lower_load(l, r->from, ivs), r->to, ivs);
}

/* Copies the first n rows (along dimension 0) of `from` into `to`. */
static void copy_rows(Lower *l, GiltValue *from, GiltValue *to, GiltValue *n)
{
  GiltValue *dims[GRAPH_MAX_RANK];
  Rows r = {from, to};
  lower_dims(l, from, dims);
  dims[0] = n;
  lower_parallel(l, type_of(from)->shaped.rank, dims, rows_body, &r);
}

/* ---- If ---------------------------------------------------------------------- */

static GiltStatus lower_if_op(Lower *l)
{
  size_t n = gilt_op_get_num_results(l->op);
  GiltType *types[n + 1];
  if (result_types(l, types))
    return GILT_FAILURE;
  GiltBlock *branches[2];
  branches[0] = body_of(l, 0);
  branches[1] = body_of(l, 1);
  if (!branches[0] || !branches[1])
    return lower_error(l, "a branch has arguments of no buffer type");
  GiltValue *cond = load_scalar(l, lower_operand(l, 0));
  GiltOp *op = create_region_op(l, LOOP_OP_IF, n, types, 1, &cond, 2);
  for (size_t r = 0; r < 2; r++) {
    GiltValue *values[num_yielded(l, r) + 1];
    open_block(l, op, r, 0, NULL);
    GiltOp *yield = splice_body(l, branches[r], NULL, values);
    for (size_t i = 0; i < n; i++)
      values[i] = coerce(l, values[i], types[i]);
    close_body(l, yield, n, values, op);
  }
  GiltValue *results[n + 1];
  for (size_t i = 0; i < n; i++)
    results[i] = gilt_op_get_result(op, i);
  return lower_replace(l, results);
}

/* ---- Loop ---------------------------------------------------------------------- */

/* Loop(M, cond, v...): body (iteration, cond, v...) yields (cond, v...,
** scan slices...). The loop.while carries (i, cond, v..., scan
** buffers...): num_carried values v, num_scans buffers of rows. */
typedef struct LoopState {
  size_t num_carried, num_scans;
  GiltValue *max; /* M as an index; NULL when absent */
  GiltType **types; /* the loop.while's: index, i1, v..., buffers... */
  GiltBlock *body;
} LoopState;

/* The type of the rows buffer of a scan output whose slices have type
** `slice`: one dynamic dimension more, in front. NULL unless static. */
static GiltType *rows_type(Lower *l, GiltType *slice)
{
  GiltType *t = buffer_type(l, slice);
  if (!t || !gilt_shaped_type_has_static_shape(t))
    return NULL;
  int64_t shape[GRAPH_MAX_RANK + 1];
  shape[0] = GILT_DYNAMIC;
  for (size_t i = 0; i < t->shaped.rank; i++)
    shape[1 + i] = t->shaped.shape[i];
  return gilt_memref_type_get(l->ctx, t->shaped.rank + 1, shape,
                              t->shaped.elem, NULL, NULL);
}

typedef struct Grow {
  GiltValue *buf, *rows;
} Grow;

static GiltValue *grown(Lower *l, void *user)
{
  Grow *g = user;
  GiltValue *dims[GRAPH_MAX_RANK + 1];
  lower_dims(l, g->buf, dims);
  dims[0] = lower_binary(l, LOOP_OP_MULI, g->rows, lower_index(l, 2));
  dims[0] = lower_binary(l, LOOP_OP_ADDI, dims[0], lower_index(l, 1));
  GiltValue *bigger = lower_alloc(l, type_of(g->buf), dims);
  copy_rows(l, g->buf, bigger, g->rows);
  lower_emit(l, LOOP_OP_DEALLOC, NULL, 1, &g->buf);
  return bigger;
}

static GiltValue *unchanged(Lower *l, void *user)
{
  (void)l;
  return ((Grow *)user)->buf;
}

/* buf, or a copy with room for row i when it has none. */
static GiltValue *grow(Lower *l, GiltValue *buf, GiltValue *i)
{
  Grow g = {buf, lower_dim(l, buf, 0)};
  GiltValue *full = lower_cmp(l, "sge", i, g.rows);
  return lower_if_value(l, full, type_of(buf), grown, unchanged, &g);
}

/* The condition region: go on while cond holds and i < M. */
static void loop_condition(Lower *l, GiltOp *loop, LoopState *s, size_t n)
{
  GiltBlock *b = open_block(l, loop, 0, n, s->types);
  GiltValue *ops[n + 1];
  ops[0] = gilt_block_get_argument(b, 1);
  if (s->max)
    ops[0] = lower_binary(
        l, LOOP_OP_ANDI, ops[0],
        lower_cmp(l, "slt", gilt_block_get_argument(b, 0), s->max));
  for (size_t i = 0; i < n; i++)
    ops[1 + i] = gilt_block_get_argument(b, i);
  lower_emit(l, LOOP_OP_CONDITION, NULL, n + 1, ops);
}

/* The body's arguments from the loop.while's: the iteration count and
** condition as buffers, the carried values in the body's types. */
static void loop_arguments(Lower *l, LoopState *s, GiltBlock *b,
                           GiltValue **args)
{
  for (size_t k = 0; k < 2 + s->num_carried; k++) {
    GiltType *want = type_of(gilt_block_get_argument(s->body, k));
    GiltValue *v = gilt_block_get_argument(b, k);
    if (k >= 2) {
      args[k] = coerce(l, v, want);
      continue;
    }
    args[k] = lower_alloc(l, want, NULL);
    if (k == 0)
      v = lower_emit(l, LOOP_OP_INDEX_CAST, want->shaped.elem, 1, &v);
    store_scalar(l, v, args[k]);
  }
}

/* The body region: the graph body, then the scan slices stored at row
** i and the next values yielded. */
static void loop_body(Lower *l, GiltOp *loop, LoopState *s, size_t n)
{
  GiltBlock *b = open_block(l, loop, 1, n, s->types);
  GiltValue *args[2 + s->num_carried], *next[n + 1];
  GiltValue *values[num_yielded(l, 0) + 1];
  GiltValue *i = gilt_block_get_argument(b, 0);
  loop_arguments(l, s, b, args);
  GiltOp *yield = splice_body(l, s->body, args, values);
  next[0] = lower_binary(l, LOOP_OP_ADDI, i, lower_index(l, 1));
  next[1] = load_scalar(l, values[0]);
  for (size_t k = 2; k < n; k++) {
    GiltValue *v = values[k - 1];
    if (k < 2 + s->num_carried) {
      next[k] = coerce(l, v, s->types[k]);
      continue;
    }
    next[k] = grow(l, gilt_block_get_argument(b, k), i);
    Slice slice = {v, next[k], i, 0, true};
    copy_slice(l, &slice);
  }
  close_body(l, yield, n, next, loop);
}

/* The results: the carried values, and each scan output's rows copied
** into a buffer of the trip count's rows. */
static GiltStatus loop_results(Lower *l, GiltOp *loop, LoopState *s,
                               GiltType *const *types)
{
  size_t n = gilt_op_get_num_results(l->op);
  GiltValue *results[n + 1];
  GiltValue *count = gilt_op_get_result(loop, 0);
  for (size_t i = 0; i < n; i++) {
    GiltValue *v = gilt_op_get_result(loop, 2 + i);
    if (i < s->num_carried) {
      results[i] = v;
      continue;
    }
    GiltValue *dims[GRAPH_MAX_RANK + 1];
    lower_dims(l, v, dims);
    dims[0] = count;
    results[i] = lower_alloc(l, types[i], dims);
    copy_rows(l, v, results[i], count);
    lower_emit(l, LOOP_OP_DEALLOC, NULL, 1, &v);
  }
  return lower_replace(l, results);
}

/* The loop.while's types; fails (reported) on a scan output whose
** slices have no static shape. */
static GiltStatus loop_types(Lower *l, LoopState *s, GiltType *const *types)
{
  GiltOp *yield = gilt_block_get_last_op(s->body);
  s->types[0] = lower_index_type(l);
  s->types[1] = lower_i1_type(l);
  for (size_t k = 0; k < s->num_carried + s->num_scans; k++) {
    GiltType *slice = type_of(gilt_op_get_operand(yield, 1 + k));
    s->types[2 + k] = k < s->num_carried ? types[k] : rows_type(l, slice);
    if (!s->types[2 + k])
      return lower_error(l, "scan output %zu has no static shape",
                         k - s->num_carried);
  }
  return GILT_SUCCESS;
}

/* The rows a scan buffer starts with: M, which is all it needs unless
** the condition stops the loop first, but at most ROWS_AT_FIRST (M is
** often INT64_MAX, "no bound") and at least 0; 1 without M. */
enum { ROWS_AT_FIRST = 4096 };

static GiltValue *first_rows(Lower *l, LoopState *s)
{
  if (!s->max)
    return lower_index(l, 1);
  GiltValue *rows = lower_binary(l, LOOP_OP_MINSI, s->max,
                                 lower_index(l, ROWS_AT_FIRST));
  return lower_binary(l, LOOP_OP_MAXSI, rows, lower_index(l, 0));
}

/* The first values: i = 0, the condition (true when absent), the
** initial values, and a buffer of rows per scan output. */
static void loop_inits(Lower *l, LoopState *s, GiltValue **inits)
{
  GiltValue *cond = lower_operand(l, 1);
  inits[0] = lower_index(l, 0);
  inits[1] = cond ? load_scalar(l, cond)
                  : lower_int_constant(l, lower_i1_type(l), 1);
  GiltValue *rows = s->num_scans ? first_rows(l, s) : NULL;
  for (size_t k = 0; k < s->num_carried + s->num_scans; k++)
    inits[2 + k] = k < s->num_carried
                       ? coerce(l, lower_operand(l, 2 + k), s->types[2 + k])
                       : lower_alloc(l, s->types[2 + k], &rows);
}

static GiltStatus lower_loop_op(Lower *l)
{
  size_t results = gilt_op_get_num_results(l->op);
  GiltType *types[results + 1];
  if (result_types(l, types))
    return GILT_FAILURE;
  LoopState s = {.num_carried = gilt_op_get_num_operands(l->op) - 2};
  if (results < s.num_carried)
    return lower_error(l, "has fewer results than loop-carried values");
  s.num_scans = results - s.num_carried;
  size_t n = 2 + results;
  GiltType *wtypes[n];
  GiltValue *inits[n];
  s.types = wtypes;
  s.body = gilt_region_get_first_block(gilt_op_get_region(l->op, 0));
  if (gilt_block_get_num_arguments(s.body) != 2 + s.num_carried)
    return lower_error(l, "the body must take the iteration, the condition "
                          "and the %zu loop-carried values", s.num_carried);
  if (loop_types(l, &s, types))
    return GILT_FAILURE;
  if (!body_of(l, 0))
    return lower_error(l, "the body has arguments of no buffer type");
  if (lower_operand(l, 0))
    s.max = lower_emit(l, LOOP_OP_INDEX_CAST, lower_index_type(l), 1,
                       (GiltValue *[]){load_scalar(l, lower_operand(l, 0))});
  loop_inits(l, &s, inits);
  GiltOp *loop = create_region_op(l, LOOP_OP_WHILE, n, wtypes, n, inits, 2);
  loop_condition(l, loop, &s, n);
  loop_body(l, loop, &s, n);
  return loop_results(l, loop, &s, types);
}

/* ---- Scan ---------------------------------------------------------------------- */

/* Scan(states..., inputs...): body (states..., input slices...) yields
** (states..., output slices...), run `count` times. */
typedef struct ScanState {
  size_t num_states, num_inputs, num_outputs;
  int64_t *in_axes, *in_dirs, *out_axes, *out_dirs; /* normalized */
  GiltValue *count;
  GiltValue **outputs; /* the result buffers the slices go to */
  GiltBlock *body;
} ScanState;

/* The index iteration iv reads or writes along a scanned axis. */
static GiltValue *scan_position(Lower *l, ScanState *s, GiltValue *iv,
                                int64_t reverse)
{
  if (!reverse)
    return iv;
  GiltValue *last = lower_binary(l, LOOP_OP_SUBI, s->count, lower_index(l, 1));
  return lower_binary(l, LOOP_OP_SUBI, last, iv);
}

/* Scan input j's slice of iteration iv, in a new buffer of the type of
** the body's argument. */
static GiltValue *input_slice(Lower *l, ScanState *s, GiltValue *iv,
                              size_t j)
{
  GiltValue *in = lower_operand(l, s->num_states + j);
  GiltValue *arg = gilt_block_get_argument(s->body, s->num_states + j);
  GiltValue *dims[GRAPH_MAX_RANK];
  size_t rank = type_of(in)->shaped.rank;
  for (size_t d = 0, k = 0; d < rank; d++)
    if (d != (size_t)s->in_axes[j])
      dims[k++] = lower_dim(l, in, d);
  GiltValue *slab = lower_alloc(l, type_of(arg), dims);
  GiltValue *position = scan_position(l, s, iv, s->in_dirs[j]);
  Slice slice = {slab, in, position, (size_t)s->in_axes[j], false};
  copy_slice(l, &slice);
  return slice.slice;
}

static void scan_step(Lower *l, GiltValue *iv, GiltValue *const *iter,
                      GiltValue **next, void *user)
{
  ScanState *s = user;
  size_t n = s->num_states;
  GiltValue *args[n + s->num_inputs + 1];
  GiltValue *values[n + s->num_outputs + 1];
  args[n + s->num_inputs] = NULL; /* room for no arguments at all */
  for (size_t k = 0; k < n; k++)
    args[k] = coerce(l, iter[k],
                     type_of(gilt_block_get_argument(s->body, k)));
  for (size_t j = 0; j < s->num_inputs; j++)
    args[n + j] = input_slice(l, s, iv, j);
  GiltOp *yield = splice_body(l, s->body, args, values);
  for (size_t k = 0; k < n; k++)
    next[k] = coerce(l, values[k], type_of(iter[k]));
  for (size_t j = 0; j < s->num_outputs; j++) {
    Slice slice = {values[n + j], s->outputs[j],
                   scan_position(l, s, iv, s->out_dirs[j]),
                   (size_t)s->out_axes[j], true};
    copy_slice(l, &slice);
  }
  drop_yield(l, yield);
}

/* An INTS attribute of `count` entries (0 when absent), each an axis of
** rank[i] dims normalized, or a direction (rank NULL). */
static GiltStatus scan_ints(Lower *l, const char *name, size_t count,
                            const size_t *rank, int64_t *out)
{
  size_t n;
  for (size_t i = 0; i < count; i++)
    out[i] = 0;
  if (graph_attr_ints(l->op, name, out, count, &n) && n != count)
    return lower_error(l, "attribute '%s' has %zu entries, expected %zu",
                       name, n, count);
  for (size_t i = 0; rank && i < count; i++)
    if (!graph_normalize_axis(out[i], (int64_t)rank[i], &out[i]))
      return lower_error(l, "attribute '%s' has an axis out of range", name);
  return GILT_SUCCESS;
}

/* Reads the attributes into s; fails (reported) on a bad one. */
static GiltStatus scan_attrs(Lower *l, ScanState *s, GiltType *const *types)
{
  size_t m = s->num_inputs, k = s->num_outputs;
  size_t in_rank[m + 1], out_rank[k + 1];
  for (size_t j = 0; j < m; j++)
    in_rank[j] = type_of(lower_operand(l, s->num_states + j))->shaped.rank;
  for (size_t j = 0; j < k; j++)
    out_rank[j] = types[s->num_states + j]->shaped.rank;
  if (scan_ints(l, "scan_input_axes", m, in_rank, s->in_axes) ||
      scan_ints(l, "scan_input_directions", m, NULL, s->in_dirs) ||
      scan_ints(l, "scan_output_axes", k, out_rank, s->out_axes) ||
      scan_ints(l, "scan_output_directions", k, NULL, s->out_dirs))
    return GILT_FAILURE;
  for (size_t j = 0; j < k; j++) {
    GiltType *t = types[s->num_states + j];
    for (size_t d = 0; d < t->shaped.rank; d++)
      if (t->shaped.shape[d] == GILT_DYNAMIC && d != (size_t)s->out_axes[j])
        return lower_error(l, "scan output %zu has no static shape", j);
  }
  return GILT_SUCCESS;
}

/* The scan outputs' result buffers, count slices along their axes. */
static void scan_outputs(Lower *l, ScanState *s, GiltType *const *types)
{
  for (size_t j = 0; j < s->num_outputs; j++) {
    GiltType *t = types[s->num_states + j];
    GiltValue *dims[GRAPH_MAX_RANK];
    for (size_t d = 0; d < t->shaped.rank; d++)
      dims[d] = d == (size_t)s->out_axes[j] ? s->count
                                            : lower_index(l, t->shaped.shape[d]);
    s->outputs[j] = lower_alloc(l, t, dims);
  }
}

static GiltStatus lower_scan_op(Lower *l)
{
  size_t results = gilt_op_get_num_results(l->op);
  size_t m = (size_t)graph_attr_int(l->op, "num_scan_inputs", 1);
  GiltType *types[results + 1];
  if (result_types(l, types))
    return GILT_FAILURE;
  ScanState s = {.num_states = gilt_op_get_num_operands(l->op) - m,
                 .num_inputs = m};
  if (results < s.num_states)
    return lower_error(l, "has fewer results than states");
  s.num_outputs = results - s.num_states;
  int64_t in_axes[m + 1], in_dirs[m + 1];
  int64_t out_axes[s.num_outputs + 1], out_dirs[s.num_outputs + 1];
  GiltValue *outputs[s.num_outputs + 1], *inits[s.num_states + 1];
  s.in_axes = in_axes, s.in_dirs = in_dirs;
  s.out_axes = out_axes, s.out_dirs = out_dirs;
  s.outputs = outputs;
  if (scan_attrs(l, &s, types))
    return GILT_FAILURE;
  if (!(s.body = body_of(l, 0)))
    return lower_error(l, "the body has arguments of no buffer type");
  s.count = lower_dim(l, lower_operand(l, s.num_states), (size_t)in_axes[0]);
  scan_outputs(l, &s, types);
  for (size_t k = 0; k < s.num_states; k++)
    inits[k] = coerce(l, lower_operand(l, k), types[k]);
  GiltValue *final[results + 1];
  lower_for_upto(l, s.count, s.num_states,
            inits, final, scan_step, &s);
  for (size_t j = 0; j < s.num_outputs; j++)
    final[s.num_states + j] = outputs[j];
  return lower_replace(l, final);
}

const GraphLoweringRow graph_lower_control[] = {
    {GRAPH_OP_IF, {lower_if_op}},
    {GRAPH_OP_LOOP, {lower_loop_op}},
    {GRAPH_OP_SCAN, {lower_scan_op}},
    {0, {NULL}},
};
