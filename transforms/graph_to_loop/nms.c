/*
** nms.c - lowering of NonMaxSuppression: greedy selection per batch and
** class, in the exact order of the ONNX reference (descending score, the
** smaller box index first among equal scores), with its IoU test.
**
** The number of selected boxes is only known at run time, so the
** selection goes into a worst-case scratch buffer (batches x classes x
** boxes rows), counted as it goes; the result is then allocated with that
** count and copied. Instead of sorting, each step scans for the best box
** not yet taken (O(boxes^2) per class, as a direct reference should be):
** a `taken` flag per box, set too for boxes at or below score_threshold.
** A result whose row count the model fixed statically is checked against
** the count at run time.
*/
#include "transforms/graph_to_loop/lowering.h"

typedef struct Nms {
  GiltValue *boxes, *scores, *scratch, *taken;
  GiltValue *max_out, *iou, *score_threshold; /* threshold NULL: none */
  GiltValue *num_boxes, *num_classes;
  bool center;        /* center_point_box: [x, y, w, h] */
  GiltValue *b, *c;   /* the batch and class being selected */
  GiltValue *start;   /* the first scratch row of this class */
  GiltValue *best;    /* the candidate of this step */
  GiltValue *row;     /* the scratch row it goes to when selected */
} Nms;

static GiltValue *and2(Lower *l, GiltValue *a, GiltValue *b)
{
  return lower_binary(l, LOOP_OP_ANDI, a, b);
}

/* ---- the IoU test ------------------------------------------------------ */

/* The extent [lo, hi] of box i of the batch along axis d (0 or 1). */
static void box_extent(Lower *l, Nms *n, GiltValue *box, size_t d,
                       GiltValue **lo, GiltValue **hi)
{
  GiltValue *at[3] = {n->b, box, lower_index(l, (int64_t)d)};
  GiltValue *p = lower_load(l, n->boxes, at);
  at[2] = lower_index(l, (int64_t)d + 2);
  GiltValue *q = lower_load(l, n->boxes, at);
  if (n->center) {
    GiltValue *half = lower_binary(l, LOOP_OP_DIVF, q,
                                   lower_constant(l, gilt_value_get_type(q), 2));
    *lo = lower_minus(l, p, half);
    *hi = lower_plus(l, p, half);
    return;
  }
  GiltValue *swap = lower_cmp(l, "ogt", p, q);
  *lo = lower_select(l, swap, q, p);
  *hi = lower_select(l, swap, p, q);
}

/* Whether box i suppresses box j: every extent positive and their IoU
** above the threshold, as the reference's suppress_by_iou. */
static GiltValue *suppresses(Lower *l, Nms *n, GiltValue *i, GiltValue *j)
{
  GiltValue *ok = lower_int_constant(l, lower_i1_type(l), 1);
  GiltValue *inter = NULL, *area_i = NULL, *area_j = NULL;
  for (size_t d = 0; d < 2; d++) {
    GiltValue *ilo, *ihi, *jlo, *jhi;
    box_extent(l, n, i, d, &ilo, &ihi);
    box_extent(l, n, j, d, &jlo, &jhi);
    GiltValue *lo = lower_binary(l, LOOP_OP_MAXIMUMF, ilo, jlo);
    GiltValue *hi = lower_binary(l, LOOP_OP_MINIMUMF, ihi, jhi);
    ok = and2(l, ok, lower_cmp(l, "ogt", hi, lo));
    GiltValue *side = lower_minus(l, hi, lo);
    GiltValue *si = lower_minus(l, ihi, ilo), *sj = lower_minus(l, jhi, jlo);
    inter = inter ? lower_times(l, inter, side) : side;
    area_i = area_i ? lower_times(l, area_i, si) : si;
    area_j = area_j ? lower_times(l, area_j, sj) : sj;
  }
  GiltValue *zero = lower_constant(l, gilt_value_get_type(inter), 0);
  GiltValue *uni = lower_minus(l, lower_plus(l, area_i, area_j), inter);
  ok = and2(l, ok, lower_cmp(l, "ogt", inter, zero));
  ok = and2(l, ok, lower_cmp(l, "ogt", area_i, zero));
  ok = and2(l, ok, lower_cmp(l, "ogt", area_j, zero));
  ok = and2(l, ok, lower_cmp(l, "ogt", uni, zero));
  GiltValue *iou = lower_binary(l, LOOP_OP_DIVF, inter, uni);
  return and2(l, ok, lower_cmp(l, "ogt", iou, n->iou));
}

/* ---- one class --------------------------------------------------------- */

static GiltValue *score(Lower *l, Nms *n, GiltValue *box)
{
  GiltValue *at[3] = {n->b, n->c, box};
  return lower_load(l, n->scores, at);
}

/* taken[j] starts set for boxes the score threshold rules out. */
static void init_taken(Lower *l, GiltValue *const *ivs, void *user)
{
  Nms *n = user;
  GiltValue *out = lower_int_constant(l, lower_i1_type(l), 0);
  if (n->score_threshold)
    out = lower_cmp(l, "ule", score(l, n, ivs[0]), n->score_threshold);
  lower_store(l, out, n->taken, ivs);
}

/* Keeps the best box not taken: the first of the highest score. */
static void find_best(Lower *l, GiltValue *j, GiltValue *const *acc,
                      GiltValue **next, void *user)
{
  Nms *n = user;
  GiltValue *s = score(l, n, j);
  GiltValue *taken = lower_load(l, n->taken, &j);
  GiltValue *free_box =
      lower_cmp(l, "eq", taken, lower_int_constant(l, lower_i1_type(l), 0));
  GiltValue *none_yet = lower_cmp(l, "slt", acc[0], lower_index(l, 0));
  GiltValue *higher = lower_cmp(l, "ogt", s, acc[1]);
  GiltValue *better = lower_binary(l, LOOP_OP_ORI, none_yet, higher);
  better = and2(l, free_box, better);
  next[0] = lower_select(l, better, j, acc[0]);
  next[1] = lower_select(l, better, s, acc[1]);
}

/* Clears `keep` when selected row r of this class suppresses the best. */
static void check_selected(Lower *l, GiltValue *r, GiltValue *const *keep,
                           GiltValue **next, void *user)
{
  Nms *n = user;
  GiltValue *at[2] = {r, lower_index(l, 2)};
  GiltValue *box = lower_convert(l, lower_load(l, n->scratch, at),
                                 lower_index_type(l));
  GiltValue *one = lower_int_constant(l, lower_i1_type(l), 1);
  next[0] = and2(l, keep[0],
                 lower_binary(l, LOOP_OP_XORI,
                              suppresses(l, n, n->best, box), one));
}

static void append_row(Lower *l, GiltValue *const *ivs, void *user)
{
  (void)ivs;
  Nms *n = user;
  GiltValue *vals[3] = {n->b, n->c, n->best};
  GiltType *i64 = lower_i64_type(l);
  for (int64_t k = 0; k < 3; k++) {
    GiltValue *at[2] = {n->row, lower_index(l, k)};
    lower_store(l, lower_convert(l, vals[k], i64), n->scratch, at);
  }
}

/* One step: takes the best remaining box and selects it unless the
** class is full or a selected box suppresses it. */
static void select_step(Lower *l, GiltValue *iv, GiltValue *const *count,
                        GiltValue **next, void *user)
{
  (void)iv;
  Nms *n = user;
  GiltValue *inits[2] = {lower_index(l, -1)};
  inits[1] = lower_constant(l, lower_operand_elem(l, 1), 0);
  GiltValue *found[2];
  lower_for_upto(l, n->num_boxes, 2, inits,
            found, find_best, n);
  GiltValue *valid = lower_cmp(l, "sge", found[0], lower_index(l, 0));
  n->best = lower_select(l, valid, found[0], lower_index(l, 0));
  lower_store(l, lower_int_constant(l, lower_i1_type(l), 1), n->taken,
              &n->best); /* all are taken when none is valid */
  GiltValue *under = lower_cmp(l, "slt", lower_minus(l, count[0], n->start),
                               n->max_out);
  GiltValue *keep = and2(l, valid, under);
  lower_for(l, n->start, count[0], lower_index(l, 1), 1, &keep, &keep,
            check_selected, n);
  n->row = count[0];
  lower_if(l, keep, append_row, NULL, n);
  next[0] = lower_select(l, keep, lower_plus(l, count[0], lower_index(l, 1)),
                         count[0]);
}

static void class_loop(Lower *l, GiltValue *c, GiltValue *const *count,
                       GiltValue **next, void *user)
{
  Nms *n = user;
  n->c = c;
  n->start = count[0];
  lower_parallel(l, 1, &n->num_boxes, init_taken, n);
  lower_for_upto(l, n->num_boxes, 1, count,
            next, select_step, n);
}

static void batch_loop(Lower *l, GiltValue *b, GiltValue *const *count,
                       GiltValue **next, void *user)
{
  Nms *n = user;
  n->b = b;
  lower_for_upto(l, n->num_classes, 1, count,
            next, class_loop, n);
}

/* ---- the op ------------------------------------------------------------------ */

typedef struct Copy {
  GiltValue *from, *to;
} Copy;

static void copy_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Copy *c = user;
  lower_store(l, lower_load(l, c->from, ivs), c->to, ivs);
}

/* The optional scalar operands, with the reference's defaults: no boxes
** per class, IoU threshold 0, no score threshold. */
static void read_limits(Lower *l, Nms *n)
{
  GiltType *t = lower_operand_elem(l, 0);
  n->max_out = lower_operand(l, 2)
                   ? lower_scalar_operand(l, 2, lower_index_type(l))
                   : lower_index(l, 0);
  n->iou = lower_operand(l, 3) ? lower_scalar_operand(l, 3, t)
                               : lower_constant(l, t, 0);
  n->score_threshold =
      lower_operand(l, 4) ? lower_scalar_operand(l, 4, t) : NULL;
}

/* A row count the model fixed must be the one selected. */
static void check_static_count(Lower *l, GiltValue *count)
{
  static const char msg[] = "NonMaxSuppression selected another number of "
                            "boxes than its result's static size";
  int64_t fixed = lower_result_type(l, 0)->shaped.shape[0];
  if (fixed == GILT_DYNAMIC)
    return;
  GiltValue *same = lower_cmp(l, "eq", count, lower_index(l, fixed));
  lower_emit_attr(l, LOOP_OP_ASSERT, NULL, 1, &same, "message",
                  gilt_string_attr_get(l->ctx, msg, sizeof msg - 1));
}

static GiltStatus lower_nms(Lower *l)
{
  Nms n = {.boxes = lower_operand(l, 0), .scores = lower_operand(l, 1)};
  n.center = graph_attr_int(l->op, "center_point_box", 0) != 0;
  read_limits(l, &n);
  n.num_boxes = lower_dim(l, n.boxes, 1);
  n.num_classes = lower_dim(l, n.scores, 1);
  GiltValue *batches = lower_dim(l, n.boxes, 0);
  GiltValue *rows = lower_times(
      l, lower_times(l, batches, n.num_classes), n.num_boxes);
  GiltType *i64 = lower_i64_type(l);
  int64_t scratch_shape[2] = {GILT_DYNAMIC, 3}, taken_shape = GILT_DYNAMIC;
  GiltValue *scratch_sizes[2] = {rows, NULL};
  n.scratch = lower_alloc(
      l, gilt_memref_type_get(l->ctx, 2, scratch_shape, i64, NULL, NULL),
      scratch_sizes);
  n.taken = lower_alloc(l, gilt_memref_type_get(l->ctx, 1, &taken_shape,
                                                lower_i1_type(l), NULL, NULL),
                        &n.num_boxes);
  GiltValue *zero = lower_index(l, 0), *count;
  lower_for(l, zero, batches, lower_index(l, 1), 1, &zero, &count, batch_loop,
            &n);

  check_static_count(l, count);
  GiltValue *dims[2] = {count, lower_index(l, 3)};
  Copy copy = {n.scratch, lower_alloc_result(l, 0, dims)};
  lower_parallel(l, 2, dims, copy_body, &copy);
  lower_emit(l, LOOP_OP_DEALLOC, NULL, 1, &n.scratch);
  lower_emit(l, LOOP_OP_DEALLOC, NULL, 1, &n.taken);
  return lower_replace(l, &copy.to);
}

const GraphLoweringRow graph_lower_detection[] = {
    {GRAPH_OP_NON_MAX_SUPPRESSION, {lower_nms}},
    {0, {NULL}},
};
