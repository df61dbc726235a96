/*
** memory.c - the interpreter's buffers: allocation and release, element
** loads and stores, and the ops that make descriptors (dim, subview,
** reshape, view, get_global) or copy through them.
**
** Every access is checked against the descriptor's sizes and reported at
** the op with the offending indices. Buffers come from the context's
** allocator without its abort on failure, so that an absurd size is an
** error of the run. A loop.global's elements are copied into a buffer of
** the call the first time it is read: a store into it cannot change the
** module.
**
** New buffers are filled with 0xFF bytes rather than zeros: loop.alloc's
** contents are undefined, compiled code does not clear them, and a
** lowering that reads before it writes should see NaN or -1, not a
** plausible 0. A buffer loop.dealloc frees stays in the map of
** allocations, marked, and its block stays allocated until the call
** ends: no later buffer can then take its address, so every use through
** a stale descriptor (as in MLIR, undefined) is reported at its op rather
** than reading another buffer. The price is memory: what a run frees is
** returned at its end. A buffer of shared memory (space 3) is the
** block's (gpu.c): the first of its threads to allocate it makes it, the
** others get the same, and the block's end retires it.
*/
#include "dialects/loop/interpreter/interpreter.h"

#include <string.h>

#include "gpu/gpu.h"
#include "ir/context.h"
#include "ir/support/float16.h"

/* ---- elements ---------------------------------------------------------------- */

Cell interp_elem_read(InterpElem e, const char *p)
{
  Cell c = {0};
  switch (e.cls) {
  case ELEM_F32: /* into a zeroed cell: see interp_cell_f */
    memcpy(&c.f, p, 4);
    return c;
  case ELEM_F64:
    memcpy(&c.d, p, 8);
    return c;
  case ELEM_SMALL: {
    uint16_t h = 0;
    memcpy(&h, p, e.bytes);
    c.f = e.fkind == GILT_F16    ? gilt_float_from_f16(h)
          : e.fkind == GILT_BF16 ? gilt_float_from_bf16(h)
                                 : (float)gilt_float_bits_to_double(e.fkind, h);
    return c;
  }
  default:
    break;
  }
  int8_t i8;
  int16_t i16;
  int32_t i32;
  int64_t v;
  switch (e.bytes) {
  case 1: memcpy(&i8, p, 1), v = i8; break;
  case 2: memcpy(&i16, p, 2), v = i16; break;
  case 4: memcpy(&i32, p, 4), v = i32; break;
  default: memcpy(&v, p, 8); break;
  }
  c.i = loop_int_cell((uint64_t)v, e.width);
  return c;
}

void interp_elem_write(InterpElem e, Cell c, char *p)
{
  switch (e.cls) {
  case ELEM_F32:
    memcpy(p, &c.f, 4);
    return;
  case ELEM_F64:
    memcpy(p, &c.d, 8);
    return;
  case ELEM_SMALL: {
    uint16_t h = e.fkind == GILT_F16    ? gilt_f16_from_float(c.f)
                 : e.fkind == GILT_BF16 ? gilt_bf16_from_float(c.f)
                 : (uint16_t)gilt_float_bits_from_double(e.fkind, c.f, false);
    memcpy(p, &h, e.bytes);
    return;
  }
  default:
    break;
  }
  /* Storage extends iN to its bytes: with the sign, or with zeros for ui. */
  uint64_t v = e.cls == ELEM_UINT ? loop_int_zx(c.i, e.width) : c.u;
  int8_t i8 = (int8_t)v;
  int16_t i16 = (int16_t)v;
  int32_t i32 = (int32_t)v;
  switch (e.bytes) {
  case 1: memcpy(p, &i8, 1); break;
  case 2: memcpy(p, &i16, 2); break;
  case 4: memcpy(p, &i32, 4); break;
  default: memcpy(p, &v, 8); break;
  }
}

/* ---- allocation ---------------------------------------------------------------- */

/* Marks, in the map of allocations, the buffers of globals, which
** loop.dealloc must not free, and the buffers it freed (blocks from an
** allocator are aligned to at least 4 bytes: the two low bits are free). */
#define GLOBAL_MARK ((size_t)1)
#define FREED_MARK ((size_t)2)

char *interp_buffer_alloc(Interp *it, GiltOp *op, int64_t bytes, int64_t align)
{
  GiltContext *ctx = it->ctx;
  char *raw = NULL;
  if (bytes >= 0 && bytes <= INT64_MAX / 2)
    raw = ctx->realloc_fn(ctx->realloc_user, NULL, (size_t)(bytes + align));
  if (!raw) {
    gilt_op_emit_error(op, "cannot allocate %lld bytes", (long long)bytes);
    return NULL;
  }
  char *data = raw + (align - (int64_t)((uintptr_t)raw % (uintptr_t)align));
  memset(data, 0xFF, (size_t)bytes);
  gilt_ptr_map_put(&it->allocations, data, (size_t)(uintptr_t)raw);
  return data;
}

void interp_free_all(Interp *it)
{
  GiltContext *ctx = it->ctx;
  for (size_t i = 0; i < it->allocations.cap; i++)
    if (it->allocations.keys[i])
      ctx->realloc_fn(ctx->realloc_user,
                      (void *)(uintptr_t)(it->allocations.vals[i] &
                                          ~(GLOBAL_MARK | FREED_MARK)),
                      0);
  gilt_ptr_map_free(&it->allocations);
}

void interp_buffer_retire(Interp *it, char *data)
{
  size_t raw;
  if (gilt_ptr_map_get(&it->allocations, data, &raw)) {
    gilt_ptr_map_put(&it->allocations, data, raw | FREED_MARK);
    it->num_freed++;
  }
}

bool interp_buffer_freed(Interp *it, GiltOp *op, const char *base)
{
  size_t raw;
  if (!gilt_ptr_map_get(&it->allocations, base, &raw) || !(raw & FREED_MARK))
    return false;
  gilt_op_emit_error(op, "use of a buffer after loop.dealloc");
  return true;
}

/* Row-major strides and the element count of the sizes of descriptor m;
** false when the count overflows. */
static bool set_row_major(Cell *f, uint32_t m, uint32_t rank, int64_t *count)
{
  int64_t n = 1;
  for (uint32_t d = rank; d-- > 0;) {
    DESC_STRIDE(f, m, rank, d) = n;
    if (__builtin_mul_overflow(n, DESC_SIZE(f, m, d), &n))
      return false;
  }
  *count = n;
  return true;
}

/* Sizes of a descriptor from a type's shape, the dynamic ones from the
** cells dyn (one per `?`); false after reporting a negative one. */
static bool set_sizes(Cell *f, const Instr *in, uint32_t m, uint32_t rank,
                      const int64_t *shape, const uint32_t *dyn)
{
  for (uint32_t d = 0; d < rank; d++) {
    int64_t s = shape[d] == GILT_DYNAMIC ? f[*dyn++].i : shape[d];
    if (s < 0) {
      gilt_op_emit_error(in->op, "size %lld of dimension %u is negative",
                         (long long)s, d);
      return false;
    }
    DESC_SIZE(f, m, d) = s;
  }
  return true;
}

/* alloc: aux is the result's shape, list its dynamic sizes, imm the
** alignment. */
static bool op_alloc(Cell *f, const Instr *in, Interp *it)
{
  int64_t count, bytes;
  if (!set_sizes(f, in, in->dst, in->n, in->aux, in->list))
    return false;
  if (!set_row_major(f, in->dst, in->n, &count) ||
      __builtin_mul_overflow(count, (int64_t)in->elem.bytes, &bytes)) {
    gilt_op_emit_error(in->op, "the buffer's size overflows");
    return false;
  }
  char *data = interp_buffer_alloc(it, in->op, bytes, in->imm);
  DESC_BASE(f, in->dst) = data;
  DESC_OFFSET(f, in->dst) = 0;
  return data != NULL;
}

/* alloc of shared memory: the block's buffer for this op, made by the
** first thread to come (in `shared`, keyed by the instruction). */
static bool op_alloc_shared(Cell *f, const Instr *in, Interp *it)
{
  size_t data;
  if (!gilt_ptr_map_get(&it->shared, in, &data)) {
    if (!op_alloc(f, in, it))
      return false;
    gilt_ptr_map_put(&it->shared, in, (size_t)(uintptr_t)DESC_BASE(f, in->dst));
    return true;
  }
  int64_t count; /* the shape is static: the same sizes, no overflow */
  set_sizes(f, in, in->dst, in->n, in->aux, in->list);
  set_row_major(f, in->dst, in->n, &count);
  DESC_BASE(f, in->dst) = (char *)(uintptr_t)data;
  DESC_OFFSET(f, in->dst) = 0;
  return true;
}

/* dealloc of shared memory: nothing; the block's end retires it. */
static bool op_dealloc_shared(Cell *f, const Instr *in, Interp *it)
{
  (void)f, (void)in, (void)it;
  return true;
}

/* Marks the buffer freed; its block is released with the others at the
** end of the call (see the top of the file). A view at an offset cannot
** come here: the verifier refuses a loop.subview's (its type has a
** layout) and a loop.view's (by its defining op). */
static bool op_dealloc(Cell *f, const Instr *in, Interp *it)
{
  size_t raw;
  char *base = DESC_BASE(f, in->a);
  if (!interp_buffer_live(it, in->op, base))
    return false;
  if (!gilt_ptr_map_get(&it->allocations, base, &raw) || (raw & GLOBAL_MARK)) {
    gilt_op_emit_error(in->op, "frees a buffer that is not allocated "
                               "(an argument or a global)");
    return false;
  }
  gilt_ptr_map_put(&it->allocations, base, raw | FREED_MARK);
  it->num_freed++;
  return true;
}

/* ---- loads and stores ------------------------------------------------------------ */

bool interp_out_of_bounds(Cell *f, const Instr *in, uint32_t m,
                          const uint32_t *idx, uint32_t rank, int64_t lanes)
{
  char text[512];
  size_t len = 0;
  for (uint32_t d = 0; d < rank && len < sizeof text - 64; d++)
    len += (size_t)snprintf(text + len, sizeof text - len, "%s%lld",
                            d ? ", " : "", (long long)f[idx[d]].i);
  len += (size_t)snprintf(text + len, sizeof text - len, "] outside [");
  for (uint32_t d = 0; d < rank && len < sizeof text - 64; d++)
    len += (size_t)snprintf(text + len, sizeof text - len, "%s%lld",
                            d ? ", " : "", (long long)DESC_SIZE(f, m, d));
  if (lanes > 1)
    gilt_op_emit_error(in->op, "accesses %lld elements from [%s]", (long long)lanes,
                       text);
  else
    gilt_op_emit_error(in->op, "accesses [%s]", text);
  return false;
}

#define ELEMENT(f, m, off, T) ((T *)DESC_BASE(f, m) + (off))

static bool load_f32(Cell *f, const Instr *in, Interp *it)
{
  int64_t off = 0;
  if (!interp_buffer_live(it, in->op, DESC_BASE(f, in->a)))
    return false;
  if (!interp_address(f, in, in->a, in->list, in->n, 1, &off))
    return false;
  float v;
  memcpy(&v, ELEMENT(f, in->a, off, float), 4);
  f[in->dst] = interp_cell_f(v);
  return true;
}

static bool load_8(Cell *f, const Instr *in, Interp *it)
{
  int64_t off = 0;
  if (!interp_buffer_live(it, in->op, DESC_BASE(f, in->a)))
    return false;
  if (!interp_address(f, in, in->a, in->list, in->n, 1, &off))
    return false;
  memcpy(&f[in->dst], ELEMENT(f, in->a, off, Cell), 8);
  return true;
}

static bool load_any(Cell *f, const Instr *in, Interp *it)
{
  int64_t off = 0;
  if (!interp_buffer_live(it, in->op, DESC_BASE(f, in->a)))
    return false;
  if (!interp_address(f, in, in->a, in->list, in->n, 1, &off))
    return false;
  f[in->dst] = interp_elem_read(in->elem, DESC_BASE(f, in->a) + off * in->elem.bytes);
  return true;
}

/* A prefetch reads nothing; its element must lie in a live buffer, as a
** load's, so that the interpreter catches a prefetch of the wrong place. */
static bool op_prefetch(Cell *f, const Instr *in, Interp *it)
{
  int64_t off = 0;
  return interp_buffer_live(it, in->op, DESC_BASE(f, in->a)) &&
         interp_address(f, in, in->a, in->list, in->n, 1, &off);
}

static bool store_f32(Cell *f, const Instr *in, Interp *it)
{
  int64_t off = 0;
  if (!interp_buffer_live(it, in->op, DESC_BASE(f, in->b)))
    return false;
  if (!interp_address(f, in, in->b, in->list, in->n, 1, &off))
    return false;
  memcpy(ELEMENT(f, in->b, off, float), &f[in->a].f, 4);
  return true;
}

static bool store_8(Cell *f, const Instr *in, Interp *it)
{
  int64_t off = 0;
  if (!interp_buffer_live(it, in->op, DESC_BASE(f, in->b)))
    return false;
  if (!interp_address(f, in, in->b, in->list, in->n, 1, &off))
    return false;
  memcpy(ELEMENT(f, in->b, off, Cell), &f[in->a], 8);
  return true;
}

static bool store_any(Cell *f, const Instr *in, Interp *it)
{
  int64_t off = 0;
  if (!interp_buffer_live(it, in->op, DESC_BASE(f, in->b)))
    return false;
  if (!interp_address(f, in, in->b, in->list, in->n, 1, &off))
    return false;
  interp_elem_write(in->elem, f[in->a], DESC_BASE(f, in->b) + off * in->elem.bytes);
  return true;
}

/* ---- descriptors --------------------------------------------------------------- */

static bool op_dim(Cell *f, const Instr *in, Interp *it)
{
  (void)it;
  int64_t d = f[in->b].i;
  if (d < 0 || d >= (int64_t)in->n) {
    gilt_op_emit_error(in->op, "dimension %lld of a buffer of rank %u",
                       (long long)d, in->n);
    return false;
  }
  f[in->dst].i = DESC_SIZE(f, in->a, d);
  return true;
}

/* Whether descriptor m (of type aux) is what its type's static sizes,
** strides and offset say. */
static bool matches_type(Cell *f, const Instr *in, uint32_t m, GiltType *t)
{
  uint32_t rank = (uint32_t)t->shaped.rank;
  int64_t strides[rank + 1], offset;
  loop_memref_strides(t, strides, &offset);
  bool ok = offset == GILT_DYNAMIC || offset == DESC_OFFSET(f, m);
  for (uint32_t d = 0; d < rank; d++) {
    int64_t size = t->shaped.shape[d];
    ok = ok && (size == GILT_DYNAMIC || size == DESC_SIZE(f, m, d)) &&
         (strides[d] == GILT_DYNAMIC || strides[d] == DESC_STRIDE(f, m, rank, d));
  }
  if (!ok)
    gilt_op_emit_error(in->op, "the result's type does not describe the "
                               "buffer it makes");
  return ok;
}

/* Whether the window of n elements from o, step apart, lies in [0, size):
** its last element o + (n - 1) * step, computed without overflow, is
** below size. An empty window may start at size; one that is not, not. */
static bool window_fits(int64_t o, int64_t n, int64_t step, int64_t size)
{
  int64_t span, last;
  if (o < 0 || n < 0 || step < 1 || o > size)
    return false;
  if (n == 0)
    return true;
  return o < size && !__builtin_mul_overflow(n - 1, step, &span) &&
         !__builtin_add_overflow(o, span, &last) && last < size;
}

/* subview: list holds the offsets, sizes and strides; aux the result
** type. The source's descriptor is valid, so o * stride (o < size) stays
** inside its buffer; the new strides, stride * step, need not when the
** window has one element, and are checked. */
static bool op_subview(Cell *f, const Instr *in, Interp *it)
{
  (void)it;
  uint32_t rank = in->n, s = in->a, r = in->dst;
  int64_t offset = DESC_OFFSET(f, s);
  for (uint32_t d = 0; d < rank; d++) {
    int64_t o = f[in->list[d]].i, n = f[in->list[rank + d]].i;
    int64_t step = f[in->list[2 * rank + d]].i, size = DESC_SIZE(f, s, d);
    int64_t stride = DESC_STRIDE(f, s, rank, d), o_stride;
    if (!window_fits(o, n, step, size)) {
      gilt_op_emit_error(in->op, "window of dimension %u (offset %lld, size "
                                 "%lld, stride %lld) is outside size %lld",
                         d, (long long)o, (long long)n, (long long)step,
                         (long long)size);
      return false;
    }
    if (__builtin_mul_overflow(stride, step, &DESC_STRIDE(f, r, rank, d)) ||
        __builtin_mul_overflow(o, stride, &o_stride) ||
        __builtin_add_overflow(offset, o_stride, &offset)) {
      gilt_op_emit_error(in->op, "the stride of dimension %u overflows", d);
      return false;
    }
  }
  for (uint32_t d = 0; d < rank; d++)
    DESC_SIZE(f, r, d) = f[in->list[rank + d]].i;
  DESC_BASE(f, r) = DESC_BASE(f, s);
  DESC_OFFSET(f, r) = offset;
  return matches_type(f, in, r, (GiltType *)in->aux);
}

/* The element count of descriptor m of rank: 0 when a size is, whatever
** the others (an allocation of sizes 2^40, 2^40, 0 is valid); false when
** it overflows. */
static bool count_elements(Cell *f, uint32_t m, uint32_t rank, int64_t *count)
{
  *count = 1;
  for (uint32_t d = 0; d < rank; d++)
    if (DESC_SIZE(f, m, d) == 0) {
      *count = 0;
      return true;
    }
  for (uint32_t d = 0; d < rank; d++)
    if (__builtin_mul_overflow(*count, DESC_SIZE(f, m, d), count))
      return false;
  return true;
}

/* Whether descriptor m of rank, of `count` elements, is dense and
** row-major. */
static bool is_contiguous(Cell *f, uint32_t m, uint32_t rank, int64_t count)
{
  int64_t expect = 1;
  if (count == 0)
    return true;
  for (uint32_t d = rank; d-- > 0;) {
    if (DESC_SIZE(f, m, d) != 1 && DESC_STRIDE(f, m, rank, d) != expect)
      return false;
    expect *= DESC_SIZE(f, m, d);
  }
  return true;
}

/* reshape: imm is the source's rank, aux the result type, list its
** dynamic sizes. */
static bool op_reshape(Cell *f, const Instr *in, Interp *it)
{
  (void)it;
  uint32_t src_rank = (uint32_t)in->imm;
  int64_t have, want = 0;
  if (!count_elements(f, in->a, src_rank, &have)) {
    gilt_op_emit_error(in->op, "the buffer's element count overflows");
    return false;
  }
  if (!is_contiguous(f, in->a, src_rank, have)) {
    gilt_op_emit_error(in->op, "reshapes a buffer that is not contiguous");
    return false;
  }
  char *base = DESC_BASE(f, in->a);
  int64_t offset = DESC_OFFSET(f, in->a);
  GiltType *t = (GiltType *)in->aux;
  if (!set_sizes(f, in, in->dst, in->n, t->shaped.shape, in->list))
    return false;
  if (!set_row_major(f, in->dst, in->n, &want) || want != have) {
    gilt_op_emit_error(in->op, "cannot view %lld elements as %lld",
                       (long long)have, (long long)want);
    return false;
  }
  DESC_BASE(f, in->dst) = base;
  DESC_OFFSET(f, in->dst) = offset;
  return true;
}

/* view: aux is the result type. The view's base is the byte it starts
** at, as compiled code has it, so that its descriptor is what its type
** says (offset 0); the price is that a use after the source is freed is
** not caught through it (it is not in the map of allocations). */
static bool op_view(Cell *f, const Instr *in, Interp *it)
{
  if (!interp_buffer_live(it, in->op, DESC_BASE(f, in->a)))
    return false;
  GiltType *t = (GiltType *)in->aux;
  int64_t count;
  for (uint32_t d = 0; d < in->n; d++)
    DESC_SIZE(f, in->dst, d) = t->shaped.shape[d];
  set_row_major(f, in->dst, in->n, &count);
  int64_t offset =
      gilt_integer_attr_get_value(gilt_op_get_attr(in->op, "offset"));
  DESC_BASE(f, in->dst) = DESC_BASE(f, in->a) + DESC_OFFSET(f, in->a) + offset;
  DESC_OFFSET(f, in->dst) = 0;
  return true;
}

/* copy: element by element, in row-major order of the source. */
static bool op_copy(Cell *f, const Instr *in, Interp *it)
{
  uint32_t rank = in->n, s = in->a, t = in->b;
  if (!interp_buffer_live(it, in->op, DESC_BASE(f, s)) ||
      !interp_buffer_live(it, in->op, DESC_BASE(f, t)))
    return false;
  int64_t count;
  for (uint32_t d = 0; d < rank; d++) {
    if (DESC_SIZE(f, s, d) != DESC_SIZE(f, t, d)) {
      gilt_op_emit_error(in->op, "copies dimension %u of size %lld into "
                                 "one of size %lld",
                         d, (long long)DESC_SIZE(f, s, d),
                         (long long)DESC_SIZE(f, t, d));
      return false;
    }
  }
  if (!count_elements(f, s, rank, &count)) {
    gilt_op_emit_error(in->op, "the buffer's element count overflows");
    return false;
  }
  int64_t idx[rank + 1];
  memset(idx, 0, sizeof idx);
  size_t bytes = in->elem.bytes;
  for (int64_t k = 0; k < count; k++) {
    int64_t from = DESC_OFFSET(f, s), to = DESC_OFFSET(f, t);
    for (uint32_t d = 0; d < rank; d++) {
      from += idx[d] * DESC_STRIDE(f, s, rank, d);
      to += idx[d] * DESC_STRIDE(f, t, rank, d);
    }
    memmove(DESC_BASE(f, t) + to * (int64_t)bytes,
            DESC_BASE(f, s) + from * (int64_t)bytes, bytes);
    for (uint32_t d = rank; d-- > 0;)
      if (++idx[d] < DESC_SIZE(f, s, d))
        break;
      else
        idx[d] = 0;
  }
  return true;
}

/* The elements of a loop.global in a new buffer; splats are expanded. */
static char *materialize(Interp *it, GiltOp *global)
{
  GiltType *t = gilt_type_attr_get_value(gilt_op_get_attr(global, "type"));
  GiltAttr *value = gilt_op_get_attr(global, "value");
  size_t elem = gilt_type_get_storage_size(t->shaped.elem), nbytes;
  int64_t count = gilt_shaped_type_get_num_elements(t);
  const char *src = gilt_dense_attr_get_data(value, &nbytes);
  char *data = interp_buffer_alloc(it, global, count * (int64_t)elem, 64);
  if (!data)
    return NULL;
  size_t raw;
  gilt_ptr_map_get(&it->allocations, data, &raw);
  gilt_ptr_map_put(&it->allocations, data, raw | GLOBAL_MARK);
  gilt_vec_push(it->ctx, &it->global_data, data);
  if (nbytes == (size_t)count * elem)
    memcpy(data, src, nbytes);
  else
    for (int64_t i = 0; i < count; i++)
      memcpy(data + i * (int64_t)elem, src, elem);
  return data;
}

/* get_global: aux is the loop.global. */
static bool op_get_global(Cell *f, const Instr *in, Interp *it)
{
  GiltOp *global = (GiltOp *)in->aux;
  size_t index;
  char *data;
  if (gilt_ptr_map_get(&it->globals, global, &index)) {
    data = it->global_data.data[index];
  } else {
    if (!(data = materialize(it, global)))
      return false;
    gilt_ptr_map_put(&it->globals, global, it->global_data.len - 1);
  }
  GiltType *t = gilt_type_attr_get_value(gilt_op_get_attr(global, "type"));
  int64_t count;
  for (uint32_t d = 0; d < in->n; d++)
    DESC_SIZE(f, in->dst, d) = t->shaped.shape[d];
  set_row_major(f, in->dst, in->n, &count);
  DESC_BASE(f, in->dst) = data;
  DESC_OFFSET(f, in->dst) = 0;
  return true;
}

static bool is_shared(GiltValue *buffer)
{
  return gpu_memory_space(gilt_value_get_type(buffer)) == GPU_SPACE_SHARED;
}

bool interp_select_memory(LoopOpId id, Instr *in)
{
  InterpElem e = in->elem;
  bool f32 = e.cls == ELEM_F32, eight = e.bytes == 8 && e.cls != ELEM_SMALL;
  switch (id) {
  case LOOP_OP_ALLOC:
    in->fn = is_shared(gilt_op_get_result(in->op, 0)) ? op_alloc_shared
                                                      : op_alloc;
    return true;
  case LOOP_OP_DEALLOC:
    in->fn = is_shared(gilt_op_get_operand(in->op, 0)) ? op_dealloc_shared
                                                       : op_dealloc;
    return true;
  case LOOP_OP_LOAD:
    in->fn = f32 ? load_f32 : eight ? load_8 : load_any;
    return true;
  case LOOP_OP_STORE:
    in->fn = f32 ? store_f32 : eight ? store_8 : store_any;
    return true;
  case LOOP_OP_PREFETCH: in->fn = op_prefetch; return true;
  case LOOP_OP_DIM: in->fn = op_dim; return true;
  case LOOP_OP_SUBVIEW: in->fn = op_subview; return true;
  case LOOP_OP_RESHAPE: in->fn = op_reshape; return true;
  case LOOP_OP_VIEW: in->fn = op_view; return true;
  case LOOP_OP_COPY: in->fn = op_copy; return true;
  case LOOP_OP_GET_GLOBAL: in->fn = op_get_global; return true;
  default: return false;
  }
}
