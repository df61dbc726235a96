/*
** col2im.c - lowering of Col2Im-18 (PyTorch's fold): the columns of
** sliding blocks summed back into an image of any number of spatial
** dimensions.
**
** ONNX Runtime scatters each column element into the image; here each
** image element gathers instead, so the nest is parallel and writes each
** element once: for every offset b inside the block (in the order the
** scatter adds them), the block position l that puts b over the element,
** when there is one: p + pad_begin - b * dilation must be a multiple of
** the stride, the quotient a valid position. image_shape and block_shape
** are read at run time; their length (the spatial rank) must be static.
*/
#include "transforms/graph_to_loop/indexing.h"

enum { MAX_SPATIAL = GRAPH_MAX_RANK - 2 };

typedef struct Col2Im {
  GiltValue *in, *out;
  size_t r;
  GiltValue *block[MAX_SPATIAL];   /* block sizes */
  GiltValue *blocks[MAX_SPATIAL];  /* block positions per dimension */
  GiltValue *block_count;          /* the product of the block sizes */
  int64_t dilations[MAX_SPATIAL], pads[2 * MAX_SPATIAL],
      strides[MAX_SPATIAL];
  GiltValue *const *ivs;           /* n, c, the image element */
} Col2Im;

static GiltValue *and2(Lower *l, GiltValue *a, GiltValue *b)
{
  return lower_binary(l, LOOP_OP_ANDI, a, b);
}

/* Adds the column element of block offset bi (flattened, last dimension
** fastest) when a block position covers the image element with it. */
static void gather_offset(Lower *l, GiltValue *bi, GiltValue *const *acc,
                          GiltValue **next, void *user)
{
  Col2Im *c = user;
  GiltValue *ok = lower_int_constant(l, lower_i1_type(l), 1);
  GiltValue *pos = lower_index(l, 0), *rest = bi;
  GiltValue *lpos[MAX_SPATIAL];
  for (size_t k = c->r; k-- > 0;) {
    GiltValue *b = ix_rem(l, rest, c->block[k]);
    rest = ix_div(l, rest, c->block[k]);
    GiltValue *padded =
        lower_plus(l, c->ivs[2 + k], lower_index(l, c->pads[k]));
    GiltValue *offset = lower_times(l, b, lower_index(l, c->dilations[k]));
    GiltValue *q = lower_minus(l, padded, offset);
    GiltValue *stride = lower_index(l, c->strides[k]);
    lpos[k] = lower_binary(l, LOOP_OP_FLOORDIVSI, q, stride);
    ok = and2(l, ok, lower_cmp(l, "sge", q, lower_index(l, 0)));
    GiltValue *phase = ix_rem(l, q, stride);
    ok = and2(l, ok, lower_cmp(l, "eq", phase, lower_index(l, 0)));
    ok = and2(l, ok, lower_cmp(l, "slt", lpos[k], c->blocks[k]));
  }
  for (size_t k = 0; k < c->r; k++)
    pos = lower_plus(l, lower_times(l, pos, c->blocks[k]), lpos[k]);
  GiltValue *zero = lower_index(l, 0);
  GiltValue *column = lower_times(l, c->ivs[1], c->block_count);
  GiltValue *at[3] = {c->ivs[0], lower_plus(l, column, bi)};
  at[2] = lower_select(l, ok, pos, zero);
  GiltValue *v = lower_load(l, c->in, at);
  next[0] = lower_select(l, ok, lower_plus(l, acc[0], v), acc[0]);
}

static void image_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Col2Im *c = user;
  c->ivs = ivs;
  GiltValue *init = lower_constant(l, lower_result_elem(l, 0), 0), *sum;
  lower_for_upto(l, c->block_count, 1, &init,
            &sum, gather_offset, c);
  lower_store(l, sum, c->out, ivs);
}

/* Entry k of a 1-D integer operand, as index. */
static GiltValue *entry(Lower *l, size_t operand, size_t k)
{
  GiltValue *at = lower_index(l, (int64_t)k);
  return lower_convert(l, lower_load(l, lower_operand(l, operand), &at),
                       lower_index_type(l));
}

static GiltStatus lower_col2im(Lower *l)
{
  Col2Im c = {.in = lower_operand(l, 0)};
  int64_t r = gilt_value_get_type(lower_operand(l, 1))->shaped.shape[0];
  if (r == GILT_DYNAMIC || r < 1 || r > MAX_SPATIAL)
    return lower_error(l, "operand 'image_shape' must have a static length");
  c.r = (size_t)r;
  lower_window_attr(l, "dilations", c.r, 1, c.dilations);
  lower_window_attr(l, "strides", c.r, 1, c.strides);
  lower_window_attr(l, "pads", 2 * c.r, 0, c.pads);
  GiltValue *dims[GRAPH_MAX_RANK];
  c.block_count = lower_index(l, 1);
  for (size_t k = 0; k < c.r; k++) {
    GiltValue *image = entry(l, 1, k);
    c.block[k] = entry(l, 2, k);
    lower_assert(l, lower_cmp(l, "sgt", c.block[k], lower_index(l, 0)),
                 "the block shape must be positive");
    lower_assert(l, lower_cmp(l, "sge", image, lower_index(l, 0)),
                 "the image shape must not be negative");
    c.block_count = ix_mul_size(l, c.block_count, c.block[k]);
    GiltValue *dilation = lower_index(l, c.dilations[k]);
    GiltValue *last = lower_minus(l, c.block[k], lower_index(l, 1));
    GiltValue *span_less_one = lower_times(l, dilation, last);
    GiltValue *span = lower_plus(l, span_less_one, lower_index(l, 1));
    GiltValue *padded =
        lower_plus(l, image, lower_index(l, c.pads[k] + c.pads[c.r + k]));
    GiltValue *room = lower_minus(l, padded, span);
    GiltValue *steps = ix_div(l, room, lower_index(l, c.strides[k]));
    c.blocks[k] = lower_plus(l, steps, lower_index(l, 1));
    dims[2 + k] = image;
  }
  dims[0] = lower_dim(l, c.in, 0);
  GiltValue *channels = lower_dim(l, c.in, 1);
  lower_assert(l, lower_cmp(l, "eq", ix_rem(l, channels, c.block_count),
                            lower_index(l, 0)),
               "the input's dimension 1 is not a multiple of the block size");
  GiltValue *num_blocks = ix_product_size(l, c.blocks, 0, c.r);
  lower_assert(l, lower_cmp(l, "eq", lower_dim(l, c.in, 2), num_blocks),
               "the input's dimension 2 is not the number of blocks");
  dims[1] = ix_div(l, channels, c.block_count);
  c.out = lower_alloc_result(l, 0, dims);
  lower_parallel(l, c.r + 2, dims, image_body, &c);
  return lower_replace(l, &c.out);
}

const GraphLoweringRow graph_lower_col2im[] = {
    {GRAPH_OP_COL2_IM, {lower_col2im}},
    {0, {NULL}},
};
