/*
** signature.c - the groups of an op's declared operands and results, and
** the type constraints on them.
**
** An op table declares a list of operands (or results) as groups: single
** values, optional ones (`x?`) and variadic ones (`xs*`), each perhaps
** with a type constraint (`xs*: index`). When at most one group's size is
** unknown, the count tells the groups apart. Otherwise the op carries, as
** MLIR's AttrSizedOperandSegments, a dense i32 array attribute
** (`operandSegmentSizes`, `resultSegmentSizes`) with the size of each
** group, and its row says so by a trait. This file resolves the groups
** (for the verifier and, through gilt_op_get_operand_group, for hooks),
** verifies the segment attribute, and parses, checks and describes the
** type constraints in MLIR's words: `operand #1 ('rhs') must be index, but
** got 'f32'`.
**
** Not here: the counts of lists without segments, attribute kinds and the
** traits that relate several types (same type, same element type), which
** verifier.c checks; reading the rest of a row's strings (context.c).
*/
#include "ir/signature.h"

#include <stdio.h>
#include <string.h>

/* ---- type constraints --------------------------------------------------- */

/* Each kind's spelling in a table and its description in errors (MLIR's,
** where MLIR has the constraint). Containers describe their elements. */
static const struct {
  const char *name, *desc;
  bool container;
} kinds[] = {
    [GILT_TYPE_ANY_KIND] = {"any", "any type", false},
    [GILT_TYPE_IS_INDEX] = {"index", "index", false},
    [GILT_TYPE_IS_INTEGER] = {"integer", "integer", false},
    [GILT_TYPE_IS_SIGNLESS_INTEGER] = {"signless-integer", "signless integer",
                                       false},
    [GILT_TYPE_IS_SIGNLESS_INTEGER_OR_INDEX] = {"signless-integer-or-index",
                                                "signless integer or index",
                                                false},
    [GILT_TYPE_IS_FLOAT] = {"float", "floating-point", false},
    [GILT_TYPE_IS_INT_OR_FLOAT] = {"int-or-float", "integer or floating-point",
                                   false},
    [GILT_TYPE_IS_TENSOR] = {"tensor", "tensor", true},
    [GILT_TYPE_IS_RANKED_TENSOR] = {"ranked-tensor", "ranked tensor", true},
    [GILT_TYPE_IS_MEMREF] = {"memref", "memref", true},
    [GILT_TYPE_IS_VECTOR] = {"vector", "vector", true},
    [GILT_TYPE_IS_SHAPED] = {"shaped", "shaped", true},
};

static GiltTypeConstraintKind parse_kind(const char *s, size_t len)
{
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
    if (strlen(kinds[k].name) == len && !memcmp(kinds[k].name, s, len))
      return (GiltTypeConstraintKind)k;
  GILT_ASSERT(!"unknown type constraint in an op table");
  return GILT_TYPE_ANY_KIND;
}

GiltTypeConstraint gilt_type_constraint_parse(const char *s, size_t len)
{
  const char *lt = memchr(s, '<', len);
  GiltTypeConstraint c = {parse_kind(s, lt ? (size_t)(lt - s) : len),
                          GILT_TYPE_ANY_KIND};
  if (lt) {
    GILT_ASSERT(kinds[c.kind].container && s[len - 1] == '>' &&
                "only containers constrain an element type");
    c.elem = parse_kind(lt + 1, (size_t)(s + len - 1 - (lt + 1)));
    GILT_ASSERT(!kinds[c.elem].container && "an element type is a scalar");
  }
  return c;
}

static bool scalar_holds(GiltTypeConstraintKind k, GiltType *t)
{
  bool integer = t->kind == GILT_TYPE_INTEGER;
  bool signless = integer && t->integer.sign == GILT_SIGNLESS;
  switch (k) {
  case GILT_TYPE_ANY_KIND:
    return true;
  case GILT_TYPE_IS_INDEX:
    return t->kind == GILT_TYPE_INDEX;
  case GILT_TYPE_IS_INTEGER:
    return integer;
  case GILT_TYPE_IS_SIGNLESS_INTEGER:
    return signless;
  case GILT_TYPE_IS_SIGNLESS_INTEGER_OR_INDEX:
    return signless || t->kind == GILT_TYPE_INDEX;
  case GILT_TYPE_IS_FLOAT:
    return t->kind == GILT_TYPE_FLOAT;
  case GILT_TYPE_IS_INT_OR_FLOAT:
    return integer || t->kind == GILT_TYPE_FLOAT;
  default:
    return false;
  }
}

bool gilt_type_constraint_holds(GiltTypeConstraint c, GiltType *t)
{
  bool container;
  switch (c.kind) {
  case GILT_TYPE_IS_TENSOR:
    container = t->kind == GILT_TYPE_TENSOR;
    break;
  case GILT_TYPE_IS_RANKED_TENSOR:
    container = t->kind == GILT_TYPE_TENSOR && t->shaped.ranked;
    break;
  case GILT_TYPE_IS_MEMREF:
    container = t->kind == GILT_TYPE_MEMREF;
    break;
  case GILT_TYPE_IS_VECTOR:
    container = t->kind == GILT_TYPE_VECTOR;
    break;
  case GILT_TYPE_IS_SHAPED:
    container = gilt_type_is_shaped(t);
    break;
  default:
    return scalar_holds(c.kind, t);
  }
  return container && scalar_holds(c.elem, t->shaped.elem);
}

/* "index", "tensor of floating-point values", "memref of any type values". */
static void describe(GiltTypeConstraint c, char *buf, size_t size)
{
  if (kinds[c.kind].container)
    snprintf(buf, size, "%s of %s values", kinds[c.kind].desc,
             kinds[c.elem].desc);
  else
    snprintf(buf, size, "%s", kinds[c.kind].desc);
}

/* ---- groups ------------------------------------------------------------- */

/* One list of an op, operands or results, with its declaration. */
typedef struct ArgList {
  GiltArgKind kind;
  const GiltOpArgSpec *specs;
  size_t num_specs, num_values;
  bool attr_sized;
  const char *what;      /* "operand" */
  const char *size_attr; /* "operandSegmentSizes" */
} ArgList;

static ArgList arg_list(const GiltOp *op, GiltArgKind kind)
{
  const GiltOpInfo *info = op->info;
  unsigned traits = info->def ? info->def->traits : 0;
  if (kind == GILT_ARG_OPERAND)
    return (ArgList){kind,
                     info->operand_specs,
                     info->num_operand_specs,
                     op->num_operands,
                     (traits & GILT_TRAIT_ATTR_SIZED_OPERANDS) != 0,
                     "operand",
                     "operandSegmentSizes"};
  return (ArgList){kind,
                   info->result_specs,
                   info->num_result_specs,
                   op->num_results,
                   (traits & GILT_TRAIT_ATTR_SIZED_RESULTS) != 0,
                   "result",
                   "resultSegmentSizes"};
}

static GiltType *value_type(GiltOp *op, const ArgList *l, size_t i)
{
  return l->kind == GILT_ARG_OPERAND ? op->operands[i].value->type
                                     : gilt_op_result_array(op)[i].type;
}

/* The list's segment attribute if it is a dense i32 array with one entry
** per group, else NULL. */
static GiltAttr *segment_sizes(GiltOp *op, const ArgList *l)
{
  GiltAttr *a = gilt_op_get_attr(op, l->size_attr);
  if (!a || a->kind != GILT_ATTR_DENSE_ARRAY ||
      !gilt_type_is_integer(a->type, 32) ||
      a->type->integer.sign != GILT_SIGNLESS || a->darray.n != l->num_specs)
    return NULL;
  return a;
}

/* Group g from the segment attribute. */
static bool segment_group(GiltOp *op, const ArgList *l, size_t g,
                          size_t *start, size_t *size)
{
  GiltAttr *a = segment_sizes(op, l);
  if (!a)
    return false;
  size_t pos = 0;
  for (size_t k = 0; k <= g; k++) {
    int64_t n = gilt_dense_array_attr_get_int(a, k);
    if (n < 0 || (uint64_t)n > l->num_values - pos)
      return false;
    *start = pos;
    *size = (size_t)n;
    pos += (size_t)n;
  }
  return true;
}

/* Group g from the count alone: every value not taken by the groups of
** one goes to the variadic group, or one to each optional group in
** order (a list has one or the other, gilt_op_info_check_groups). */
static bool counted_group(const ArgList *l, size_t g, size_t *start,
                          size_t *size)
{
  size_t required = 0, optional = 0, variadic = l->num_specs;
  for (size_t k = 0; k < l->num_specs; k++) {
    if (l->specs[k].variadic)
      variadic = k;
    else if (l->specs[k].optional)
      optional++;
    else
      required++;
  }
  if (l->num_values < required)
    return false;
  size_t spare = l->num_values - required;
  if (variadic == l->num_specs && spare > optional)
    return false;
  size_t pos = 0;
  for (size_t k = 0; k <= g; k++) {
    size_t n = 1;
    if (k == variadic || l->specs[k].optional) {
      n = k == variadic ? spare : spare > 0;
      spare -= n;
    }
    *start = pos;
    *size = n;
    pos += n;
  }
  return true;
}

static bool resolve_group(GiltOp *op, const ArgList *l, size_t g,
                          size_t *start, size_t *size)
{
  if (g >= l->num_specs)
    return false;
  return l->attr_sized ? segment_group(op, l, g, start, size)
                       : counted_group(l, g, start, size);
}

static size_t get_group(GiltOp *op, GiltArgKind kind, size_t group,
                        size_t *count)
{
  ArgList l = arg_list(op, kind);
  size_t start, size;
  if (!resolve_group(op, &l, group, &start, &size)) {
    *count = 0;
    return l.num_values;
  }
  *count = size;
  return start;
}

size_t gilt_op_get_operand_group(GiltOp *op, size_t group, size_t *count)
{
  return get_group(op, GILT_ARG_OPERAND, group, count);
}

size_t gilt_op_get_result_group(GiltOp *op, size_t group, size_t *count)
{
  return get_group(op, GILT_ARG_RESULT, group, count);
}

/* ---- registration ------------------------------------------------------- */

static void check_list(const GiltOpArgSpec *specs, size_t n, bool attr_sized)
{
  size_t variadic = 0, optional = 0;
  for (size_t k = 0; k < n; k++) {
    variadic += specs[k].variadic;
    optional += specs[k].optional;
  }
  GILT_ASSERT((attr_sized || variadic == 0 || (variadic == 1 && !optional)) &&
              "groups of unknown size need GILT_TRAIT_ATTR_SIZED_*");
}

void gilt_op_info_check_groups(const GiltOpInfo *info)
{
  unsigned traits = info->def->traits;
  check_list(info->operand_specs, info->num_operand_specs,
             traits & GILT_TRAIT_ATTR_SIZED_OPERANDS);
  check_list(info->result_specs, info->num_result_specs,
             traits & GILT_TRAIT_ATTR_SIZED_RESULTS);
}

/* ---- verification ------------------------------------------------------- */

/* Each group's size against its declaration: MLIR's ODS wording, with the
** group's name. */
static bool check_group_sizes(GiltOp *op, const ArgList *l, GiltAttr *a)
{
  bool ok = true;
  size_t pos = 0;
  for (size_t g = 0; g < l->num_specs; g++) {
    size_t n = (size_t)gilt_dense_array_attr_get_int(a, g);
    const GiltOpArgSpec *s = &l->specs[g];
    if (!s->variadic && (n > 1 || (n == 0 && !s->optional))) {
      gilt_op_emit_error(op,
                         "%s group starting at #%zu ('%s') requires %s "
                         "element, but found %zu",
                         l->what, pos, s->name->str,
                         s->optional ? "0 or 1" : "1", n);
      ok = false;
    }
    pos += n;
  }
  return ok;
}

bool gilt_op_verify_segments(GiltOp *op, GiltArgKind kind)
{
  ArgList l = arg_list(op, kind);
  if (!l.attr_sized)
    return true;
  GiltAttr *a = gilt_op_get_attr(op, l.size_attr);
  if (!a || a->kind != GILT_ATTR_DENSE_ARRAY ||
      !gilt_type_is_integer(a->type, 32) ||
      a->type->integer.sign != GILT_SIGNLESS) {
    gilt_op_emit_error(op, "requires dense i32 array attribute '%s'",
                       l.size_attr);
    return false;
  }
  if (a->darray.n != l.num_specs) {
    gilt_op_emit_error(op,
                       "'%s' attribute for specifying %s segments must have "
                       "%zu elements, but got %zu",
                       l.size_attr, l.what, l.num_specs, a->darray.n);
    return false;
  }
  int64_t total = 0; /* at most n * 2^31: no overflow */
  for (size_t g = 0; g < l.num_specs; g++) {
    int64_t n = gilt_dense_array_attr_get_int(a, g);
    if (n < 0) {
      gilt_op_emit_error(op, "'%s' attribute cannot have negative elements",
                         l.size_attr);
      return false;
    }
    total += n;
  }
  if ((uint64_t)total != l.num_values) {
    gilt_op_emit_error(op,
                       "%s count (%zu) does not match with the total size "
                       "(%lld) specified in attribute '%s'",
                       l.what, l.num_values, (long long)total, l.size_attr);
    return false;
  }
  return check_group_sizes(op, &l, a);
}

static void report_type(GiltOp *op, const ArgList *l, size_t i,
                        const GiltOpArgSpec *s, GiltType *t)
{
  char want[96];
  describe(s->type, want, sizeof want);
  GiltStrBuf got;
  gilt_strbuf_init(&got, op->loc->ctx);
  gilt_type_print(t, gilt_strbuf_callback, &got);
  gilt_op_emit_error(op, "%s #%zu ('%s') must be %s, but got '%s'", l->what,
                     i, s->name->str, want, got.data);
  gilt_strbuf_free(&got);
}

bool gilt_op_verify_arg_types(GiltOp *op, GiltArgKind kind)
{
  ArgList l = arg_list(op, kind);
  bool ok = true;
  for (size_t g = 0; g < l.num_specs; g++) {
    const GiltOpArgSpec *s = &l.specs[g];
    size_t start, size;
    if (s->type.kind == GILT_TYPE_ANY_KIND)
      continue;
    if (!resolve_group(op, &l, g, &start, &size))
      return ok;
    for (size_t i = start; i < start + size; i++) {
      GiltType *t = value_type(op, &l, i);
      if (!gilt_type_constraint_holds(s->type, t)) {
        report_type(op, &l, i, s, t);
        ok = false;
      }
    }
  }
  return ok;
}
