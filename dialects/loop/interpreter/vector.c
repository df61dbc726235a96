/*
** vector.c - the interpreter's vector ops: loads and stores of
** consecutive elements along a buffer's last dimension (masked or not),
** masks, broadcast, extract, insert, shuffles and reductions. A vector value is n
** consecutive cells, one per lane; the lane-by-lane arithmetic is in
** scalar.c and cast.c.
**
** A masked access touches only the lanes whose mask bit is set, and only
** those are checked against the buffer's bounds: the tail of a vectorized
** loop may point past the end with its lanes off.
*/
#include "dialects/loop/interpreter/interpreter.h"

#include <string.h>

/* The offset of lane 0 of an access of the lanes [lo, hi) at the indices
** (cells idx) of memref m, and the stride between lanes; false after
** reporting when one of those lanes is outside. */
static bool lanes_address(Cell *f, const Instr *in, uint32_t m,
                          const uint32_t *idx, int64_t lo, int64_t hi,
                          int64_t *off, int64_t *stride)
{
  uint32_t rank = in->n;
  int64_t o = DESC_OFFSET(f, m);
  if (rank == 0 && hi > 1) /* a buffer of one element */
    return interp_out_of_bounds(f, in, m, idx, rank, hi);
  for (uint32_t d = 0; d < rank; d++) {
    int64_t i = f[idx[d]].i, size = DESC_SIZE(f, m, d);
    bool bad = d + 1 == rank ? i + lo < 0 || i > size - hi
                             : (uint64_t)i >= (uint64_t)size;
    if (bad)
      return interp_out_of_bounds(f, in, m, idx, rank, hi);
    o += i * DESC_STRIDE(f, m, rank, d);
  }
  *off = o;
  *stride = rank ? DESC_STRIDE(f, m, rank, rank - 1) : 1;
  return true;
}

static bool vector_load_f32(Cell *f, const Instr *in, Interp *it)
{
  int64_t off, stride, lanes = in->imm;
  if (!interp_buffer_live(it, in->op, DESC_BASE(f, in->a)))
    return false;
  if (!lanes_address(f, in, in->a, in->list, 0, lanes, &off, &stride))
    return false;
  const float *p = (const float *)DESC_BASE(f, in->a) + off;
  Cell *r = &f[in->dst];
  if (stride == 1)
    for (int64_t l = 0; l < lanes; l++)
      r[l] = interp_cell_f(p[l]);
  else
    for (int64_t l = 0; l < lanes; l++)
      r[l] = interp_cell_f(p[l * stride]);
  return true;
}

static bool vector_load_any(Cell *f, const Instr *in, Interp *it)
{
  int64_t off, stride, lanes = in->imm;
  if (!interp_buffer_live(it, in->op, DESC_BASE(f, in->a)))
    return false;
  if (!lanes_address(f, in, in->a, in->list, 0, lanes, &off, &stride))
    return false;
  const char *p = DESC_BASE(f, in->a);
  for (int64_t l = 0; l < lanes; l++)
    f[in->dst + l] = interp_elem_read(in->elem, p + (off + l * stride) * in->elem.bytes);
  return true;
}

static bool vector_store_f32(Cell *f, const Instr *in, Interp *it)
{
  int64_t off, stride, lanes = in->imm;
  if (!interp_buffer_live(it, in->op, DESC_BASE(f, in->b)))
    return false;
  if (!lanes_address(f, in, in->b, in->list, 0, lanes, &off, &stride))
    return false;
  float *p = (float *)DESC_BASE(f, in->b) + off;
  const Cell *v = &f[in->a];
  if (stride == 1)
    for (int64_t l = 0; l < lanes; l++)
      p[l] = v[l].f;
  else
    for (int64_t l = 0; l < lanes; l++)
      p[l * stride] = v[l].f;
  return true;
}

static bool vector_store_any(Cell *f, const Instr *in, Interp *it)
{
  int64_t off, stride, lanes = in->imm;
  if (!interp_buffer_live(it, in->op, DESC_BASE(f, in->b)))
    return false;
  if (!lanes_address(f, in, in->b, in->list, 0, lanes, &off, &stride))
    return false;
  char *p = DESC_BASE(f, in->b);
  for (int64_t l = 0; l < lanes; l++)
    interp_elem_write(in->elem, f[in->a + l], p + (off + l * stride) * in->elem.bytes);
  return true;
}

/* The lowest and one past the highest set lane of the mask at cell m;
** false when none is set. */
static bool mask_range(const Cell *f, uint32_t m, int64_t lanes, int64_t *lo,
                       int64_t *hi)
{
  *lo = 0;
  while (*lo < lanes && !f[m + *lo].i)
    ++*lo;
  *hi = lanes;
  while (*hi > *lo && !f[m + *hi - 1].i)
    --*hi;
  return *lo < *hi;
}

/* masked_load: a the mask, b the passthru, c the memref. */
/* The result's cells are its own (compile.c gives every value fresh
** ones), so the lanes go straight there. */
static bool masked_load(Cell *f, const Instr *in, Interp *it)
{
  int64_t off = 0, stride = 0, lanes = in->imm, lo, hi;
  if (!interp_buffer_live(it, in->op, DESC_BASE(f, in->c)))
    return false;
  if (mask_range(f, in->a, lanes, &lo, &hi) &&
      !lanes_address(f, in, in->c, in->list, lo, hi, &off, &stride))
    return false;
  memcpy(&f[in->dst], &f[in->b], (size_t)lanes * sizeof(Cell));
  const char *p = DESC_BASE(f, in->c);
  for (int64_t l = lo; l < hi; l++)
    if (f[in->a + l].i)
      f[in->dst + l] = interp_elem_read(in->elem,
                                        p + (off + l * stride) * in->elem.bytes);
  return true;
}

/* masked_store: a the mask, b the value, c the memref. */
static bool masked_store(Cell *f, const Instr *in, Interp *it)
{
  int64_t off, stride, lanes = in->imm, lo, hi;
  if (!interp_buffer_live(it, in->op, DESC_BASE(f, in->c)))
    return false;
  if (!mask_range(f, in->a, lanes, &lo, &hi))
    return true;
  if (!lanes_address(f, in, in->c, in->list, lo, hi, &off, &stride))
    return false;
  char *p = DESC_BASE(f, in->c);
  for (int64_t l = lo; l < hi; l++)
    if (f[in->a + l].i)
      interp_elem_write(in->elem, f[in->b + l],
                        p + (off + l * stride) * in->elem.bytes);
  return true;
}

static bool create_mask(Cell *f, const Instr *in, Interp *it)
{
  (void)it;
  int64_t size = f[in->a].i;
  for (uint32_t l = 0; l < in->n; l++)
    f[in->dst + l].i = (int64_t)l < size;
  return true;
}

static bool broadcast(Cell *f, const Instr *in, Interp *it)
{
  (void)it;
  Cell v = f[in->a];
  for (uint32_t l = 0; l < in->n; l++)
    f[in->dst + l] = v;
  return true;
}

static bool position_error(const Instr *in, int64_t pos, uint32_t lanes)
{
  gilt_op_emit_error(in->op, "position %lld is outside a vector of %u lanes",
                     (long long)pos, lanes);
  return false;
}

/* extract: a the vector, b the position, n the lanes. */
static bool extract(Cell *f, const Instr *in, Interp *it)
{
  (void)it;
  int64_t pos = f[in->b].i;
  if (pos < 0 || pos >= (int64_t)in->n)
    return position_error(in, pos, in->n);
  f[in->dst] = f[in->a + pos];
  return true;
}

/* insert: a the element, b the vector, c the position. */
static bool insert(Cell *f, const Instr *in, Interp *it)
{
  (void)it;
  int64_t pos = f[in->c].i;
  if (pos < 0 || pos >= (int64_t)in->n)
    return position_error(in, pos, in->n);
  Cell v = f[in->a];
  memmove(&f[in->dst], &f[in->b], in->n * sizeof(Cell));
  f[in->dst + pos] = v;
  return true;
}

/* shuffle: lane i of the result is lane list[i] of a ++ b (imm lanes
** each). */
static bool shuffle(Cell *f, const Instr *in, Interp *it)
{
  (void)it;
  uint32_t lanes = (uint32_t)in->imm;
  for (uint32_t i = 0; i < in->n; i++) {
    uint32_t k = in->list[i];
    f[in->dst + i] = k < lanes ? f[in->a + k] : f[in->b + k - lanes];
  }
  return true;
}

/* ---- reductions ------------------------------------------------------------------- */

/* The kinds in the order of loop.c's lists: floats first, then integers
** (numbered from REDUCE_INT). */
enum { R_ADD, R_MUL, R_MINIMUMF, R_MAXIMUMF };
enum { R_IADD, R_IMUL, R_MINSI, R_MAXSI, R_MINUI, R_MAXUI, R_AND, R_OR, R_XOR };

/* Lane by lane, from lane 0, rounding to the element type each step. */
static bool reduce_float(Cell *f, const Instr *in, Interp *it)
{
  (void)it;
  const Cell *v = &f[in->a];
  bool small = in->elem.cls == ELEM_SMALL;
  float acc = v[0].f;
  for (uint32_t l = 1; l < in->n; l++) {
    float x = v[l].f;
    switch (in->imm) {
    case R_ADD: acc = acc + x; break;
    case R_MUL: acc = acc * x; break;
    case R_MINIMUMF: acc = MINIMUM(acc, x); break;
    default: acc = MAXIMUM(acc, x); break;
    }
    if (small)
      acc = interp_round_small(in->elem.fkind, acc);
  }
  f[in->dst] = interp_cell_f(acc);
  return true;
}

static bool reduce_double(Cell *f, const Instr *in, Interp *it)
{
  (void)it;
  const Cell *v = &f[in->a];
  double acc = v[0].d;
  for (uint32_t l = 1; l < in->n; l++) {
    double x = v[l].d;
    switch (in->imm) {
    case R_ADD: acc = acc + x; break;
    case R_MUL: acc = acc * x; break;
    case R_MINIMUMF: acc = MINIMUM(acc, x); break;
    default: acc = MAXIMUM(acc, x); break;
    }
  }
  f[in->dst].d = acc;
  return true;
}

static bool reduce_int(Cell *f, const Instr *in, Interp *it)
{
  (void)it;
  const Cell *v = &f[in->a];
  unsigned w = in->elem.width;
  int64_t acc = v[0].i;
  for (uint32_t l = 1; l < in->n; l++) {
    int64_t x = v[l].i;
    switch (in->imm) {
    case R_IADD: loop_int_addi(acc, x, w, &acc); break;
    case R_IMUL: loop_int_muli(acc, x, w, &acc); break;
    case R_MINSI: loop_int_minsi(x, acc, w, &acc); break;
    case R_MAXSI: loop_int_maxsi(x, acc, w, &acc); break;
    case R_MINUI: loop_int_minui(x, acc, w, &acc); break;
    case R_MAXUI: loop_int_maxui(x, acc, w, &acc); break;
    case R_AND: loop_int_andi(acc, x, w, &acc); break;
    case R_OR: loop_int_ori(acc, x, w, &acc); break;
    default: loop_int_xori(acc, x, w, &acc); break;
    }
  }
  f[in->dst].i = acc;
  return true;
}

bool interp_select_vector(LoopOpId id, Instr *in)
{
  bool f32 = in->elem.cls == ELEM_F32;
  switch (id) {
  case LOOP_OP_VECTOR_LOAD:
    in->fn = f32 ? vector_load_f32 : vector_load_any;
    return true;
  case LOOP_OP_VECTOR_STORE:
    in->fn = f32 ? vector_store_f32 : vector_store_any;
    return true;
  case LOOP_OP_MASKED_LOAD: in->fn = masked_load; return true;
  case LOOP_OP_MASKED_STORE: in->fn = masked_store; return true;
  case LOOP_OP_CREATE_MASK: in->fn = create_mask; return true;
  case LOOP_OP_BROADCAST: in->fn = broadcast; return true;
  case LOOP_OP_EXTRACT: in->fn = extract; return true;
  case LOOP_OP_INSERT: in->fn = insert; return true;
  case LOOP_OP_SHUFFLE: in->fn = shuffle; return true;
  case LOOP_OP_REDUCTION:
    in->fn = in->elem.cls == ELEM_F64                               ? reduce_double
             : in->elem.cls == ELEM_SINT || in->elem.cls == ELEM_UINT ? reduce_int
                                                                    : reduce_float;
    return true;
  default: return false;
  }
}
