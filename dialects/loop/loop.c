/*
** loop.c - the loop dialect's op table, its registration, the type
** helpers its files share, and the verifiers of its ops. The custom
** textual forms are in assembly.c, the folders in fold.c, the semantics
** in the interpreter (dialects/loop/interpreter/).
**
** The verifiers check what the signature strings of loop.def cannot say:
** which element types an op accepts, that indices match a buffer's rank,
** that regions have the block arguments and yield the values their op
** promises. They report the first problem, naming the operand at fault.
*/
#include "dialects/loop/loop.h"

#include <string.h>

#include "dialects/loop/int_semantics.h"
#include "gilt/register.h"
#include "ir/asm/asm.h"
#include "ir/core.h"

const GiltMemoryEffectsMethods loop_recursive_effects = {.recursive = true};
const GiltLoopLikeMethods loop_loop_like = {0};

const GiltOpDef loop_ops[LOOP_NUM_OPS] = {
#define GILT_OP GILT_OP_AS_ROW
#include "dialects/loop/loop.def"
#undef GILT_OP
};

/* Folding produces integer, float or splat attributes of the result type. */
static GiltOp *materialize_constant(GiltBuilder *b, GiltAttr *value,
                                    GiltType *type, GiltLocation *loc)
{
  if (gilt_attr_get_type(value) != type)
    return NULL;
  GiltNamedAttr attr = {"value", value};
  GiltOpState st = gilt_op_state_get("loop.constant", loc);
  st.num_results = 1;
  st.result_types = &type;
  st.num_attrs = 1;
  st.attrs = &attr;
  return gilt_builder_create_op(b, &st);
}

const GiltDialectDef gilt_loop_dialect = {
    .name = "loop",
    GILT_DIALECT_OPS(loop_ops),
    .materialize_constant = materialize_constant,
};

void gilt_register_loop_dialect(GiltContext *ctx)
{
  gilt_register_func_dialect(ctx); /* loop functions are func.func */
  gilt_context_register_dialect(ctx, &gilt_loop_dialect);
}

/* ---- types ---------------------------------------------------------------- */

GiltType *loop_element_type(GiltType *t)
{
  return t->kind == GILT_TYPE_VECTOR ? t->shaped.elem : t;
}

bool loop_constant_int(GiltValue *v, int64_t *out)
{
  GiltOp *def = gilt_value_get_defining_op(v);
  GiltAttr *value =
      loop_op_is(def, LOOP_OP_CONSTANT) ? gilt_op_get_attr(def, "value") : NULL;
  if (!value || value->kind != GILT_ATTR_INTEGER)
    return false;
  *out = gilt_integer_attr_get_value(value);
  return true;
}

int64_t loop_static_trips(GiltValue *lb, GiltValue *ub, GiltValue *step)
{
  int64_t lo, hi, st;
  if (!loop_constant_int(lb, &lo) || !loop_constant_int(ub, &hi) ||
      !loop_constant_int(step, &st) || st <= 0)
    return -1;
  if (hi <= lo)
    return 0;
  uint64_t span = (uint64_t)hi - (uint64_t)lo;
  uint64_t trips = span / (uint64_t)st + (span % (uint64_t)st != 0);
  return trips > INT64_MAX ? -1 : (int64_t)trips;
}

int64_t loop_parallel_static_iterations(GiltOp *par)
{
  size_t rank = gilt_op_get_num_operands(par) / 3;
  int64_t total = 1;
  for (size_t d = 0; d < rank && total >= 0; d++) {
    int64_t t = loop_static_trips(gilt_op_get_operand(par, d),
                                  gilt_op_get_operand(par, rank + d),
                                  gilt_op_get_operand(par, 2 * rank + d));
    total = t < 0 || (t > 0 && total > INT64_MAX / t) ? -1 : total * t;
  }
  return total;
}

bool loop_is_int_like(GiltType *t)
{
  GiltType *e = loop_element_type(t);
  return e->kind == GILT_TYPE_INTEGER || e->kind == GILT_TYPE_INDEX;
}

bool loop_is_float_like(GiltType *t)
{
  return loop_element_type(t)->kind == GILT_TYPE_FLOAT;
}

GiltType *loop_bool_like(GiltType *t)
{
  GiltType *i1 = gilt_integer_type_get(t->ctx, 1, GILT_SIGNLESS);
  if (t->kind != GILT_TYPE_VECTOR)
    return i1;
  return gilt_vector_type_get(t->ctx, t->shaped.rank, t->shaped.shape, i1);
}

void loop_memref_strides(GiltType *memref, int64_t *strides, int64_t *offset)
{
  GiltAttr *layout = memref->shaped.layout;
  size_t rank = memref->shaped.rank;
  if (layout && layout->kind == GILT_ATTR_STRIDED_LAYOUT) {
    memcpy(strides, layout->strided.strides, rank * sizeof *strides);
    *offset = layout->strided.offset;
    return;
  }
  int64_t stride = 1;
  for (size_t i = rank; i-- > 0;) {
    strides[i] = stride;
    int64_t dim = memref->shaped.shape[i];
    stride = dim == GILT_DYNAMIC || stride == GILT_DYNAMIC
                 ? GILT_DYNAMIC
                 : stride * dim;
  }
  *offset = 0;
}

bool loop_memref_is_contiguous(GiltType *memref)
{
  GiltAttr *layout = memref->shaped.layout;
  if (!layout)
    return true;
  if (layout->kind != GILT_ATTR_STRIDED_LAYOUT || layout->strided.offset != 0)
    return false;
  int64_t expect = 1;
  for (size_t i = memref->shaped.rank; i-- > 0;) {
    if (layout->strided.strides[i] != expect)
      return false;
    int64_t dim = memref->shaped.shape[i];
    if (dim == GILT_DYNAMIC)
      return i == 0;
    expect *= dim;
  }
  return true;
}

/* ---- shared checks ---------------------------------------------------------- */

static GiltType *operand_type(GiltOp *op, size_t i)
{
  return gilt_value_get_type(gilt_op_get_operand(op, i));
}

static GiltType *result_type(GiltOp *op, size_t i)
{
  return gilt_value_get_type(gilt_op_get_result(op, i));
}

static bool is_scalar_or_vector(GiltType *t)
{
  if (t->kind == GILT_TYPE_VECTOR)
    return t->shaped.rank == 1;
  return t->kind == GILT_TYPE_INTEGER || t->kind == GILT_TYPE_INDEX ||
         t->kind == GILT_TYPE_FLOAT;
}

/* The number of lanes of a vector, 0 for a scalar. */
static int64_t lanes(GiltType *t)
{
  return t->kind == GILT_TYPE_VECTOR ? t->shaped.shape[0] : 0;
}

/* Whether the vectors among op's operands and results have at most
** LOOP_MAX_LANES lanes; reports the first that has more. */
static GiltStatus check_lanes(GiltOp *op)
{
  size_t n = gilt_op_get_num_operands(op), m = gilt_op_get_num_results(op);
  for (size_t i = 0; i < n + m; i++) {
    GiltType *t = i < n ? operand_type(op, i) : result_type(op, i - n);
    if (t->kind == GILT_TYPE_VECTOR && t->shaped.rank == 1 &&
        lanes(t) > LOOP_MAX_LANES)
      return gilt_op_emit_error(op, "%s %zu has %lld lanes; vectors have at "
                                    "most %d",
                                i < n ? "operand" : "result", i < n ? i : i - n,
                                (long long)lanes(t), LOOP_MAX_LANES);
  }
  return GILT_SUCCESS;
}

GiltStatus loop_verify_int_like(GiltOp *op)
{
  if (check_lanes(op))
    return GILT_FAILURE;
  GiltType *t = result_type(op, 0);
  if (!is_scalar_or_vector(t) || !loop_is_int_like(t))
    return gilt_op_emit_error(op, "works on integers or indices (or a "
                                  "one-dimensional vector of them)");
  return GILT_SUCCESS;
}

GiltStatus loop_verify_float_like(GiltOp *op)
{
  if (check_lanes(op))
    return GILT_FAILURE;
  GiltType *t = result_type(op, 0);
  if (!is_scalar_or_vector(t) || !loop_is_float_like(t))
    return gilt_op_emit_error(op, "works on floats (or a one-dimensional "
                                  "vector of them)");
  return GILT_SUCCESS;
}

/* What each cast accepts, by the kinds of its input and output elements
** and how their widths compare. */
static bool cast_is_valid(LoopOpId id, GiltType *in, GiltType *out)
{
  unsigned wi = gilt_type_get_bit_width(in);
  unsigned wo = gilt_type_get_bit_width(out);
  bool ii = in->kind == GILT_TYPE_INTEGER, io = out->kind == GILT_TYPE_INTEGER;
  bool fi = in->kind == GILT_TYPE_FLOAT, fo = out->kind == GILT_TYPE_FLOAT;
  switch (id) {
  case LOOP_OP_EXTSI:
  case LOOP_OP_EXTUI:
    return ii && io && wo > wi;
  case LOOP_OP_TRUNCI:
    return ii && io && wo < wi;
  case LOOP_OP_SITOFP:
  case LOOP_OP_UITOFP:
    return ii && fo;
  case LOOP_OP_FPTOSI:
  case LOOP_OP_FPTOUI:
    return fi && io;
  case LOOP_OP_EXTF:
    return fi && fo && wo > wi;
  case LOOP_OP_TRUNCF:
    return fi && fo && wo < wi;
  case LOOP_OP_INDEX_CAST:
    return (ii && out->kind == GILT_TYPE_INDEX) ||
           (in->kind == GILT_TYPE_INDEX && io);
  case LOOP_OP_BITCAST:
    return (ii || fi) && (io || fo) && wi == wo;
  default:
    return false;
  }
}

GiltStatus loop_verify_cast(GiltOp *op)
{
  if (check_lanes(op))
    return GILT_FAILURE;
  GiltType *in = operand_type(op, 0), *out = result_type(op, 0);
  if (!is_scalar_or_vector(in) || !is_scalar_or_vector(out) ||
      lanes(in) != lanes(out))
    return gilt_op_emit_error(op, "converts a scalar, or a vector lane by "
                                  "lane into one of as many lanes");
  if (!cast_is_valid(loop_op_id(op), loop_element_type(in),
                     loop_element_type(out)))
    return gilt_op_emit_error(op, "cannot convert these element types");
  return GILT_SUCCESS;
}

GiltStatus loop_verify_constant(GiltOp *op)
{
  GiltAttr *value = gilt_op_get_attr(op, "value");
  GiltType *t = result_type(op, 0);
  if (check_lanes(op))
    return GILT_FAILURE;
  if (gilt_attr_get_type(value) != t)
    return gilt_op_emit_error(op, "'value' must have the result type");
  bool scalar = value->kind == GILT_ATTR_INTEGER || value->kind == GILT_ATTR_FLOAT;
  bool vector = t->kind == GILT_TYPE_VECTOR &&
                value->kind == GILT_ATTR_DENSE_ELEMENTS;
  if (!scalar && !vector)
    return gilt_op_emit_error(op, "'value' must be an integer, a float or "
                                  "dense elements of a vector");
  return GILT_SUCCESS;
}

static const char *const float_predicates[] = {
    "oeq", "one", "olt", "ole", "ogt", "oge", "ord",
    "ueq", "une", "ult", "ule", "ugt", "uge", "uno"};

static bool is_one_of(const char *s, const char *const *list, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp(s, list[i]) == 0)
      return true;
  return false;
}

GiltStatus loop_verify_compare(GiltOp *op)
{
  GiltType *t = operand_type(op, 0);
  bool is_int = loop_op_is(op, LOOP_OP_CMPI);
  if (check_lanes(op))
    return GILT_FAILURE;
  if (operand_type(op, 1) != t || !is_scalar_or_vector(t) ||
      (is_int ? !loop_is_int_like(t) : !loop_is_float_like(t)))
    return gilt_op_emit_error(op, "compares two %s of one type",
                              is_int ? "integers or indices" : "floats");
  if (result_type(op, 0) != loop_bool_like(t))
    return gilt_op_emit_error(op, "result must be i1 (a vector of i1 for "
                                  "vectors)");
  const char *pred =
      gilt_string_attr_get_value(gilt_op_get_attr(op, "predicate"), NULL);
  bool ok = is_int ? loop_int_predicate(pred) >= 0
                   : is_one_of(pred, float_predicates, 14);
  if (!ok)
    return gilt_op_emit_error(op, "unknown predicate '%s'", pred);
  return GILT_SUCCESS;
}

GiltStatus loop_verify_select(GiltOp *op)
{
  if (check_lanes(op))
    return GILT_FAILURE;
  GiltType *t = result_type(op, 0);
  if (operand_type(op, 1) != t || operand_type(op, 2) != t)
    return gilt_op_emit_error(op, "both values must have the result type");
  GiltType *c = operand_type(op, 0);
  if (c != gilt_integer_type_get(gilt_op_get_context(op), 1, GILT_SIGNLESS) &&
      c != loop_bool_like(t))
    return gilt_op_emit_error(op, "condition must be i1, or a vector of i1 "
                                  "as wide as the values");
  return GILT_SUCCESS;
}

/* ---- buffers ---------------------------------------------------------------- */

static size_t count_dynamic(GiltType *t)
{
  size_t n = 0;
  for (size_t i = 0; i < t->shaped.rank; i++)
    n += t->shaped.shape[i] == GILT_DYNAMIC;
  return n;
}

/* What loop.alloc and loop.view make buffers of. */
static bool is_buffer_element(GiltType *t)
{
  return is_scalar_or_vector(t) && t->kind != GILT_TYPE_VECTOR &&
         (t->kind != GILT_TYPE_INTEGER || gilt_type_get_bit_width(t) <= 64);
}

bool loop_op_is_buffer_access(GiltOp *op)
{
  switch (loop_op_id(op)) {
  case LOOP_OP_LOAD:
  case LOOP_OP_STORE:
  case LOOP_OP_PREFETCH:
  case LOOP_OP_VECTOR_LOAD:
  case LOOP_OP_VECTOR_STORE:
  case LOOP_OP_MASKED_LOAD:
  case LOOP_OP_MASKED_STORE:
  case LOOP_OP_DIM:
  case LOOP_OP_COPY:
    return true;
  default:
    return false;
  }
}

bool loop_op_is_view(GiltOp *op)
{
  LoopOpId id = loop_op_id(op);
  return id == LOOP_OP_SUBVIEW || id == LOOP_OP_RESHAPE || id == LOOP_OP_VIEW;
}

GiltStatus loop_verify_alloc(GiltOp *op)
{
  GiltType *t = result_type(op, 0);
  if (t->shaped.layout)
    return gilt_op_emit_error(op, "allocates buffers of the identity layout");
  if (!is_buffer_element(t->shaped.elem))
    return gilt_op_emit_error(op, "allocates buffers of integers (up to 64 "
                                  "bits), indices or floats");
  if (gilt_op_get_num_operands(op) != count_dynamic(t))
    return gilt_op_emit_error(op, "needs one size per dynamic dimension "
                                  "(%zu), got %zu",
                              count_dynamic(t), gilt_op_get_num_operands(op));
  GiltAttr *a = gilt_op_get_attr(op, "alignment");
  int64_t align = a ? gilt_integer_attr_get_value(a) : 64;
  if (align <= 0 || (align & (align - 1)) || align > LOOP_MAX_ALIGNMENT)
    return gilt_op_emit_error(op, "alignment %lld is not a power of two up "
                                  "to %d",
                              (long long)align, LOOP_MAX_ALIGNMENT);
  return GILT_SUCCESS;
}

/* A view would free its parent, or a block that is not one: one with a
** layout says so by its type; a loop.view (of the identity layout, at
** some offset of its source), also through reshapes of it, by its
** defining op. */
GiltStatus loop_verify_dealloc(GiltOp *op)
{
  GiltType *t = operand_type(op, 0);
  if (t->shaped.layout && !loop_memref_is_contiguous(t))
    return gilt_op_emit_error(op, "frees a whole buffer, not a view of one "
                                  "(the buffer has a layout)");
  GiltOp *def = gilt_value_get_defining_op(gilt_op_get_operand(op, 0));
  while (def && loop_op_is(def, LOOP_OP_RESHAPE))
    def = gilt_value_get_defining_op(gilt_op_get_operand(def, 0));
  if (def && loop_op_is(def, LOOP_OP_VIEW))
    return gilt_op_emit_error(op, "frees a loop.view, which lies in another "
                                  "buffer: free that buffer");
  return GILT_SUCCESS;
}

/* Operand `first` is a memref followed by one index per dimension. */
static GiltStatus check_indices(GiltOp *op, size_t memref_operand)
{
  GiltType *m = operand_type(op, memref_operand);
  size_t num = gilt_op_get_num_operands(op) - memref_operand - 1;
  if (num != m->shaped.rank)
    return gilt_op_emit_error(op, "needs %zu indices for a buffer of rank "
                                  "%zu, got %zu",
                              m->shaped.rank, m->shaped.rank, num);
  return GILT_SUCCESS;
}

GiltStatus loop_verify_load(GiltOp *op)
{
  if (result_type(op, 0) != operand_type(op, 0)->shaped.elem)
    return gilt_op_emit_error(op, "result must be the buffer's element type");
  return check_indices(op, 0);
}

GiltStatus loop_verify_store(GiltOp *op)
{
  if (operand_type(op, 0) != operand_type(op, 1)->shaped.elem)
    return gilt_op_emit_error(op, "value must be the buffer's element type");
  return check_indices(op, 1);
}

GiltStatus loop_verify_prefetch(GiltOp *op)
{
  int64_t locality =
      gilt_integer_attr_get_value(gilt_op_get_attr(op, "locality"));
  if (locality < 0 || locality > 3)
    return gilt_op_emit_error(op, "locality must be 0 to 3, got %lld",
                              (long long)locality);
  return check_indices(op, 0);
}

/* Only a constant index is known here; the interpreter checks others. */
GiltStatus loop_verify_dim(GiltOp *op)
{
  size_t rank = operand_type(op, 0)->shaped.rank;
  if (rank == 0)
    return gilt_op_emit_error(op, "a buffer of rank 0 has no dimensions");
  int64_t i; /* a constant of another kind: loop.constant's verifier says */
  if (!loop_constant_int(gilt_op_get_operand(op, 1), &i))
    return GILT_SUCCESS;
  if (i < 0 || (uint64_t)i >= rank)
    return gilt_op_emit_error(op, "dimension %lld of a buffer of rank %zu",
                              (long long)i, rank);
  return GILT_SUCCESS;
}

GiltStatus loop_verify_subview(GiltOp *op)
{
  GiltType *src = operand_type(op, 0), *res = result_type(op, 0);
  size_t rank = src->shaped.rank;
  for (size_t g = 1; g <= 3; g++) {
    size_t n;
    gilt_op_get_operand_group(op, g, &n);
    if (n != rank)
      return gilt_op_emit_error(op, "needs %zu %s, got %zu", rank,
                                g == 1 ? "offsets" : g == 2 ? "sizes" : "strides",
                                n);
  }
  if (res->shaped.rank != rank || res->shaped.elem != src->shaped.elem)
    return gilt_op_emit_error(op, "result must have the source's rank and "
                                  "element type");
  return GILT_SUCCESS;
}

GiltStatus loop_verify_reshape(GiltOp *op)
{
  GiltType *src = operand_type(op, 0), *res = result_type(op, 0);
  if (res->shaped.elem != src->shaped.elem)
    return gilt_op_emit_error(op, "result must have the source's element "
                                  "type");
  if (!loop_memref_is_contiguous(src) || res->shaped.layout)
    return gilt_op_emit_error(op, "reshapes contiguous buffers only");
  if (gilt_op_get_num_operands(op) - 1 != count_dynamic(res))
    return gilt_op_emit_error(op, "needs one size per dynamic dimension of "
                                  "the result");
  int64_t a = gilt_shaped_type_get_num_elements(src);
  int64_t b = gilt_shaped_type_get_num_elements(res);
  if (a >= 0 && b >= 0 && a != b)
    return gilt_op_emit_error(op, "cannot view %lld elements as %lld",
                              (long long)a, (long long)b);
  return GILT_SUCCESS;
}

/* The source is a whole buffer of bytes, as loop-plan-memory's arena:
** a view of one at an offset would need that offset added, which a
** constant attribute cannot carry. */
GiltStatus loop_verify_view(GiltOp *op)
{
  GiltType *src = operand_type(op, 0), *res = result_type(op, 0);
  GiltType *byte = src->shaped.elem;
  if (src->shaped.rank != 1 || src->shaped.layout ||
      !gilt_shaped_type_has_static_shape(src) ||
      byte->kind != GILT_TYPE_INTEGER || gilt_type_get_bit_width(byte) != 8)
    return gilt_op_emit_error(op, "views a statically sized buffer of bytes "
                                  "(memref<Nxi8>)");
  size_t bytes;
  if (!gilt_shaped_type_get_byte_size(res, &bytes) || res->shaped.layout ||
      !is_buffer_element(res->shaped.elem))
    return gilt_op_emit_error(op, "result must be a static shape of the "
                                  "identity layout, of integers (up to 64 "
                                  "bits), indices or floats");
  int64_t offset = gilt_integer_attr_get_value(gilt_op_get_attr(op, "offset"));
  int64_t elem = (int64_t)gilt_type_get_storage_size(res->shaped.elem);
  if (offset < 0)
    return gilt_op_emit_error(op, "offset %lld is negative", (long long)offset);
  if (offset % elem)
    return gilt_op_emit_error(op, "offset %lld is not a multiple of the "
                                  "element's %lld bytes",
                              (long long)offset, (long long)elem);
  if (bytes > (uint64_t)src->shaped.shape[0] ||
      offset > src->shaped.shape[0] - (int64_t)bytes)
    return gilt_op_emit_error(op, "%zu bytes at offset %lld lie outside the "
                                  "source's %lld",
                              bytes, (long long)offset,
                              (long long)src->shaped.shape[0]);
  return GILT_SUCCESS;
}

GiltStatus loop_verify_copy(GiltOp *op)
{
  GiltType *a = operand_type(op, 0), *b = operand_type(op, 1);
  if (a->shaped.elem != b->shaped.elem || a->shaped.rank != b->shaped.rank)
    return gilt_op_emit_error(op, "source and target must have one element "
                                  "type and rank");
  for (size_t i = 0; i < a->shaped.rank; i++) {
    int64_t x = a->shaped.shape[i], y = b->shaped.shape[i];
    if (x != GILT_DYNAMIC && y != GILT_DYNAMIC && x != y)
      return gilt_op_emit_error(op, "source and target differ in "
                                    "dimension %zu",
                                i);
  }
  return GILT_SUCCESS;
}

GiltStatus loop_verify_global(GiltOp *op)
{
  GiltType *t = gilt_type_attr_get_value(gilt_op_get_attr(op, "type"));
  GiltAttr *value = gilt_op_get_attr(op, "value");
  if (t->kind != GILT_TYPE_MEMREF || !gilt_shaped_type_has_static_shape(t) ||
      t->shaped.layout)
    return gilt_op_emit_error(op, "'type' must be a statically shaped "
                                  "memref of the identity layout");
  GiltType *vt = gilt_attr_get_type(value);
  if (vt->shaped.elem != t->shaped.elem ||
      gilt_shaped_type_get_num_elements(vt) !=
          gilt_shaped_type_get_num_elements(t))
    return gilt_op_emit_error(op, "'value' must have the buffer's elements");
  return GILT_SUCCESS;
}

GiltType *loop_global_type(GiltOp *global)
{
  if (!global || !loop_op_is(global, LOOP_OP_GLOBAL))
    return NULL;
  GiltAttr *type = gilt_op_get_attr(global, "type");
  if (!type || gilt_attr_get_kind(type) != GILT_ATTR_TYPE)
    return NULL;
  GiltType *t = gilt_type_attr_get_value(type);
  return t->kind == GILT_TYPE_MEMREF ? t : NULL;
}

GiltStatus loop_verify_get_global(GiltOp *op)
{
  GiltOp *module = op;
  while (gilt_op_get_parent_op(module))
    module = gilt_op_get_parent_op(module);
  GiltAttr *name = gilt_op_get_attr(op, "name");
  GiltType *t = loop_global_type(
      gilt_symbol_table_lookup(module, gilt_symbol_ref_attr_get_root(name)));
  if (!t)
    return gilt_op_emit_error(op, "'%s' is not a valid loop.global",
                              gilt_symbol_ref_attr_get_root(name));
  if (t != result_type(op, 0))
    return gilt_op_emit_error(op, "result must be the global's type");
  return GILT_SUCCESS;
}

/* ---- vectors ------------------------------------------------------------------ */

static bool is_vector_of(GiltType *t, GiltType *elem)
{
  return t->kind == GILT_TYPE_VECTOR && t->shaped.rank == 1 &&
         t->shaped.elem == elem;
}

GiltStatus loop_verify_vector_access(GiltOp *op)
{
  if (check_lanes(op))
    return GILT_FAILURE;
  LoopOpId id = loop_op_id(op);
  bool masked = id == LOOP_OP_MASKED_LOAD || id == LOOP_OP_MASKED_STORE;
  size_t memref = masked ? 2 : id == LOOP_OP_VECTOR_STORE ? 1 : 0;
  GiltType *elem = operand_type(op, memref)->shaped.elem;
  GiltType *v = id == LOOP_OP_VECTOR_LOAD || id == LOOP_OP_MASKED_LOAD
                    ? result_type(op, 0)
                    : operand_type(op, masked ? 1 : 0);
  if (!is_vector_of(v, elem))
    return gilt_op_emit_error(op, "the vector must be one-dimensional, of "
                                  "the buffer's element type");
  if (masked) {
    GiltType *i1 = gilt_integer_type_get(gilt_op_get_context(op), 1, GILT_SIGNLESS);
    if (!is_vector_of(operand_type(op, 0), i1) ||
        lanes(operand_type(op, 0)) != lanes(v))
      return gilt_op_emit_error(op, "the mask must be a vector of i1 as "
                                    "wide as the value");
    if (id == LOOP_OP_MASKED_LOAD && operand_type(op, 1) != v)
      return gilt_op_emit_error(op, "passthru must have the result type");
  }
  return check_indices(op, memref);
}

GiltStatus loop_verify_create_mask(GiltOp *op)
{
  if (check_lanes(op))
    return GILT_FAILURE;
  if (!is_vector_of(result_type(op, 0),
                    gilt_integer_type_get(gilt_op_get_context(op), 1, GILT_SIGNLESS)))
    return gilt_op_emit_error(op, "result must be a vector of i1");
  return GILT_SUCCESS;
}

GiltStatus loop_verify_broadcast(GiltOp *op)
{
  if (check_lanes(op))
    return GILT_FAILURE;
  if (!is_vector_of(result_type(op, 0), operand_type(op, 0)))
    return gilt_op_emit_error(op, "result must be a vector of the source's "
                                  "type");
  return GILT_SUCCESS;
}

GiltStatus loop_verify_extract(GiltOp *op)
{
  if (check_lanes(op))
    return GILT_FAILURE;
  if (!is_vector_of(operand_type(op, 0), result_type(op, 0)))
    return gilt_op_emit_error(op, "result must be the vector's element type");
  return GILT_SUCCESS;
}

GiltStatus loop_verify_insert(GiltOp *op)
{
  if (check_lanes(op))
    return GILT_FAILURE;
  GiltType *v = operand_type(op, 1);
  if (!is_vector_of(v, operand_type(op, 0)) || result_type(op, 0) != v)
    return gilt_op_emit_error(op, "inserts an element into a vector of its "
                                  "type");
  return GILT_SUCCESS;
}

GiltStatus loop_verify_shuffle(GiltOp *op)
{
  if (check_lanes(op))
    return GILT_FAILURE;
  GiltType *v = operand_type(op, 0), *r = result_type(op, 0);
  if (operand_type(op, 1) != v || r->shaped.elem != v->shaped.elem)
    return gilt_op_emit_error(op, "shuffles two vectors of one type into a "
                                  "vector of their element type");
  GiltAttr *mask = gilt_op_get_attr(op, "mask");
  if (gilt_attr_get_kind(mask) != GILT_ATTR_DENSE_ARRAY ||
      gilt_dense_array_attr_get_size(mask) != (size_t)lanes(r))
    return gilt_op_emit_error(op, "'mask' must be an array<i32: ...> of one "
                                  "lane index per result lane");
  for (size_t i = 0; i < (size_t)lanes(r); i++) {
    int64_t lane = gilt_dense_array_attr_get_int(mask, i);
    if (lane < 0 || lane >= 2 * lanes(v))
      return gilt_op_emit_error(op, "mask entry %zu (%lld) is not a lane of "
                                    "the two operands, [0, %lld)",
                                i, (long long)lane, (long long)(2 * lanes(v)));
  }
  return GILT_SUCCESS;
}

GiltStatus loop_verify_reduction(GiltOp *op)
{
  static const char *const float_kinds[] = {"add", "mul", "minimumf",
                                            "maximumf"};
  static const char *const int_kinds[] = {"add",   "mul",   "minsi",
                                          "maxsi", "minui", "maxui",
                                          "and",   "or",    "xor"};
  GiltType *elem = result_type(op, 0);
  if (check_lanes(op))
    return GILT_FAILURE;
  if (!is_vector_of(operand_type(op, 0), elem))
    return gilt_op_emit_error(op, "result must be the vector's element type");
  const char *kind =
      gilt_string_attr_get_value(gilt_op_get_attr(op, "kind"), NULL);
  bool ok = elem->kind == GILT_TYPE_FLOAT ? is_one_of(kind, float_kinds, 4)
                                          : is_one_of(kind, int_kinds, 9);
  if (!ok)
    return gilt_op_emit_error(op, "unknown reduction '%s' for this element "
                                  "type",
                              kind);
  return GILT_SUCCESS;
}

/* ---- control flow --------------------------------------------------------------- */

/* The single block of region i, NULL when the region is empty. */
static GiltBlock *body(GiltOp *op, size_t i)
{
  return gilt_region_get_first_block(gilt_op_get_region(op, i));
}

/* Whether region i of op, when it has a block, ends in the loop op `want`
** (not another terminator: func.return, or a loop.yield where the
** interpreter and the lowering expect a loop.condition); reports at op
** when not. */
static GiltStatus check_terminator(GiltOp *op, size_t i, LoopOpId want,
                                   const char *region)
{
  GiltBlock *b = body(op, i);
  if (!b || loop_op_is(gilt_block_get_terminator(b), want))
    return GILT_SUCCESS;
  return gilt_op_emit_error(op, "%s region must end in %s", region,
                            loop_ops[want].name);
}

/* Which region of its parent op holds op. */
static size_t region_index(GiltOp *op)
{
  GiltOp *parent = gilt_op_get_parent_op(op);
  GiltRegion *r = gilt_block_get_parent(gilt_op_get_block(op));
  size_t i = 0;
  while (gilt_op_get_region(parent, i) != r)
    i++;
  return i;
}

/* The types of op's results (results) or operands, into types. */
static void collect_types(GiltOp *op, bool results, GiltType **types)
{
  size_t n = results ? gilt_op_get_num_results(op) : gilt_op_get_num_operands(op);
  for (size_t i = 0; i < n; i++)
    types[i] = results ? result_type(op, i) : operand_type(op, i);
}

/* Whether the block's arguments, from `first`, have the n types. */
static bool args_match(GiltBlock *b, size_t first, GiltType *const *types,
                       size_t n)
{
  if (gilt_block_get_num_arguments(b) != first + n)
    return false;
  for (size_t i = 0; i < n; i++)
    if (gilt_value_get_type(gilt_block_get_argument(b, first + i)) !=
        types[i])
      return false;
  return true;
}

GiltStatus loop_verify_for(GiltOp *op)
{
  size_t num_inits = gilt_op_get_num_operands(op) - 3;
  if (num_inits != gilt_op_get_num_results(op))
    return gilt_op_emit_error(op, "needs one init per result");
  for (size_t i = 0; i < num_inits; i++)
    if (operand_type(op, 3 + i) != result_type(op, i))
      return gilt_op_emit_error(op, "init %zu must have result %zu's type",
                                i, i);
  GiltBlock *b = body(op, 0);
  GiltType *types[num_inits + 1];
  collect_types(op, true, types);
  if (!b || gilt_block_get_num_arguments(b) != 1 + num_inits ||
      gilt_value_get_type(gilt_block_get_argument(b, 0)) !=
          gilt_index_type_get(gilt_op_get_context(op)) ||
      !args_match(b, 1, types, num_inits))
    return gilt_op_emit_error(op, "body needs an index argument, then one "
                                  "argument per result, of its type");
  return check_terminator(op, 0, LOOP_OP_YIELD, "body");
}

GiltStatus loop_verify_parallel(GiltOp *op)
{
  size_t n[3];
  for (size_t g = 0; g < 3; g++)
    gilt_op_get_operand_group(op, g, &n[g]);
  if (n[0] == 0 || n[0] != n[1] || n[0] != n[2])
    return gilt_op_emit_error(op, "needs as many lower bounds, upper bounds "
                                  "and steps, at least one");
  GiltBlock *b = body(op, 0);
  GiltType *index = gilt_index_type_get(gilt_op_get_context(op));
  if (!b || gilt_block_get_num_arguments(b) != n[0])
    return gilt_op_emit_error(op, "body needs one index argument per "
                                  "dimension");
  for (size_t i = 0; i < n[0]; i++)
    if (gilt_value_get_type(gilt_block_get_argument(b, i)) != index)
      return gilt_op_emit_error(op, "body arguments must be indices");
  return check_terminator(op, 0, LOOP_OP_YIELD, "body");
}

GiltStatus loop_verify_if(GiltOp *op)
{
  if (operand_type(op, 0) != gilt_integer_type_get(gilt_op_get_context(op), 1, GILT_SIGNLESS))
    return gilt_op_emit_error(op, "condition must be i1");
  if (!body(op, 0))
    return gilt_op_emit_error(op, "needs a then region");
  if (!body(op, 1) && gilt_op_get_num_results(op) > 0)
    return gilt_op_emit_error(op, "with results needs an else region");
  for (size_t r = 0; r < 2; r++)
    if (body(op, r) && gilt_block_get_num_arguments(body(op, r)) != 0)
      return gilt_op_emit_error(op, "regions take no arguments");
  if (check_terminator(op, 0, LOOP_OP_YIELD, "then"))
    return GILT_FAILURE;
  return check_terminator(op, 1, LOOP_OP_YIELD, "else");
}

GiltStatus loop_verify_while(GiltOp *op)
{
  GiltBlock *before = body(op, 0), *after = body(op, 1);
  size_t n = gilt_op_get_num_operands(op), m = gilt_op_get_num_results(op);
  if (!before || !after)
    return gilt_op_emit_error(op, "needs a condition and a body region");
  GiltType *inits[n + 1], *results[m + 1];
  collect_types(op, false, inits);
  collect_types(op, true, results);
  if (!args_match(before, 0, inits, n))
    return gilt_op_emit_error(op, "condition region takes the inits' types");
  if (!args_match(after, 0, results, m))
    return gilt_op_emit_error(op, "body region takes the results' types");
  if (check_terminator(op, 0, LOOP_OP_CONDITION, "condition"))
    return GILT_FAILURE;
  return check_terminator(op, 1, LOOP_OP_YIELD, "body");
}

GiltStatus loop_verify_condition(GiltOp *op)
{
  GiltOp *parent = gilt_op_get_parent_op(op);
  if (!loop_op_is(parent, LOOP_OP_WHILE) || region_index(op) != 0)
    return gilt_op_emit_error(op, "must end the condition region of a "
                                  "loop.while");
  size_t n = gilt_op_get_num_results(parent);
  if (gilt_op_get_num_operands(op) != 1 + n)
    return gilt_op_emit_error(op, "passes one value per result of the "
                                  "loop.while");
  for (size_t i = 0; i < n; i++)
    if (operand_type(op, 1 + i) != result_type(parent, i))
      return gilt_op_emit_error(op, "value %zu must have result %zu's type",
                                i, i);
  return GILT_SUCCESS;
}

GiltStatus loop_verify_yield(GiltOp *op)
{
  GiltOp *parent = gilt_op_get_parent_op(op);
  LoopOpId id = parent ? loop_op_id(parent) : LOOP_NUM_OPS;
  size_t n = 0;
  bool results = true;
  switch (id) {
  case LOOP_OP_FOR:
  case LOOP_OP_IF:
    n = gilt_op_get_num_results(parent);
    break;
  case LOOP_OP_PARALLEL:
    break;
  case LOOP_OP_WHILE: /* the next values of the inits */
    if (region_index(op) != 1)
      return gilt_op_emit_error(op, "must end the body region of a "
                                    "loop.while (the condition region ends "
                                    "in loop.condition)");
    n = gilt_op_get_num_operands(parent);
    results = false;
    break;
  default:
    return gilt_op_emit_error(op, "must end a loop.for, loop.parallel, "
                                  "loop.if or loop.while body");
  }
  if (gilt_op_get_num_operands(op) != n)
    return gilt_op_emit_error(op, "yields %zu values, its op expects %zu",
                              gilt_op_get_num_operands(op), n);
  GiltType *want[n + 1];
  if (n)
    collect_types(parent, results, want);
  for (size_t i = 0; i < n; i++)
    if (operand_type(op, i) != want[i])
      return gilt_op_emit_error(op, "value %zu has the wrong type", i);
  return GILT_SUCCESS;
}

GiltStatus loop_verify_profile(GiltOp *op)
{
  GiltType *i64 = gilt_integer_type_get(gilt_op_get_context(op), 64,
                                        GILT_SIGNLESS);
  GiltType *t = gilt_op_get_num_results(op) ? gilt_value_get_type(
                                                  gilt_op_get_result(op, 0))
                                            : operand_type(op, 0);
  if (t != i64)
    return gilt_op_emit_error(op, "start must be i64");
  return GILT_SUCCESS;
}

GiltStatus loop_verify_assert(GiltOp *op)
{
  if (operand_type(op, 0) != gilt_integer_type_get(gilt_op_get_context(op), 1, GILT_SIGNLESS))
    return gilt_op_emit_error(op, "condition must be i1");
  return GILT_SUCCESS;
}
