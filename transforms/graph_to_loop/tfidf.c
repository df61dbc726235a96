/*
** tfidf.c - lowering of TfIdfVectorizer over integer pools: n-gram counts
** per row, weighted by mode (TF, IDF, TFIDF) as ONNX Runtime's kernel and
** the ONNX reference compute them.
**
** ONNX Runtime walks a trie of the pool from every start position and
** skip distance; here each pool n-gram is matched on its own, which counts
** the same: for skip distance d (1 to max_skip_count + 1) and every start
** s, the n-gram matches when the tokens at s, s + d, ... s + (n - 1) d lie
** in the row and equal its own. Unigrams count at distance 1 only (they
** do not depend on it), and n runs from min_gram_length to
** max_gram_length. Each pool level (the n-grams of one length) becomes a
** loop.global of its tokens and one of their output columns, and one loop
** nest over them; the weights, when given, a global indexed by output
** column (as both implementations index them). Each row is counted in
** parallel with the others. dialects/graph/tfidf.c has checked the
** attributes; string pools never get here.
*/
#include "transforms/graph_to_loop/lowering.h"

#include <string.h>

typedef struct TfIdf {
  GiltValue *x, *out;
  GiltValue *row;     /* the row counted: index into X's first dimension */
  GiltValue *tokens;  /* [ngrams, n] of the level */
  GiltValue *columns; /* [ngrams] */
  GiltValue *length;  /* of X's rows */
  int64_t n;          /* the level's n-gram length */
  int64_t max_skip;   /* max_skip_count */
  GiltValue *g;       /* the n-gram counted */
  GiltValue *d;       /* the skip distance */
} TfIdf;

static int64_t entry(GiltAttr *list, size_t i)
{
  return list->array.elems[i]->i;
}

/* A loop.global of `count` i64 values of this shape. */
static GiltValue *int_table(Lower *l, size_t rank, const int64_t *shape,
                            const int64_t *data, size_t count)
{
  GiltType *t =
      gilt_tensor_type_get(l->ctx, rank, shape, lower_i64_type(l), NULL);
  return lower_global(l, gilt_dense_elements_attr_get(t, data,
                                                      count * sizeof *data));
}

/* Token k of row `row` of X (1-D X has one row). */
static GiltValue *token(Lower *l, TfIdf *t, GiltValue *k)
{
  GiltValue *at[2] = {t->row, k};
  bool batched = gilt_value_get_type(t->x)->shaped.rank == 2;
  return lower_convert(l, lower_load(l, t->x, batched ? at : at + 1),
                       lower_i64_type(l));
}

/* Adds 1 when the n-gram matches at start s with the distance. */
static void match_at(Lower *l, GiltValue *s, GiltValue *const *count,
                     GiltValue **next, void *user)
{
  TfIdf *t = user;
  GiltValue *all = lower_int_constant(l, lower_i1_type(l), 1);
  for (int64_t k = 0; k < t->n; k++) {
    GiltValue *pos = lower_plus(l, s, lower_times(l, lower_index(l, k), t->d));
    GiltValue *at[2] = {t->g, lower_index(l, k)};
    GiltValue *seen = token(l, t, pos);
    GiltValue *same = lower_cmp(l, "eq", seen, lower_load(l, t->tokens, at));
    all = lower_binary(l, LOOP_OP_ANDI, all, same);
  }
  next[0] = lower_select(l, all, lower_plus(l, count[0], lower_index(l, 1)),
                         count[0]);
}

/* The matches at skip distance d: starts s with s + (n - 1) d in the row. */
static void count_distance(Lower *l, GiltValue *d, GiltValue *const *count,
                           GiltValue **next, void *user)
{
  TfIdf *t = user;
  t->d = d;
  GiltValue *starts =
      lower_minus(l, t->length, lower_times(l, lower_index(l, t->n - 1), d));
  lower_for_upto(l, starts, 1, count, next,
            match_at, t);
}

static void count_ngram(Lower *l, GiltValue *g, GiltValue *const *iter,
                        GiltValue **next, void *user)
{
  (void)iter;
  (void)next;
  TfIdf *t = user;
  t->g = g;
  GiltValue *zero = lower_index(l, 0), *count;
  GiltValue *last_distance = lower_index(l, t->n == 1 ? 1 : t->max_skip + 1);
  GiltValue *first = lower_index(l, 1);
  GiltValue *past_last = lower_plus(l, last_distance, lower_index(l, 1));
  lower_for(l, first, past_last, lower_index(l, 1), 1, &zero, &count,
            count_distance, t);
  GiltValue *at[2] = {t->row,
                      lower_convert(l, lower_load(l, t->columns, &g),
                                    lower_index_type(l))};
  bool batched = gilt_value_get_type(t->out)->shaped.rank == 2;
  GiltValue *const *out_at = batched ? at : at + 1;
  GiltValue *before = lower_load(l, t->out, out_at);
  GiltValue *sum =
      lower_plus(l, before, lower_convert(l, count, lower_result_elem(l, 0)));
  lower_store(l, sum, t->out, out_at);
}

/* Emits the tables of the level of n-grams pool[begin, end) and the loop
** counting them in this row. `first` is the number of the level's first
** n-gram among all of the pool's, for its column. */
static void count_level(Lower *l, TfIdf *t, int64_t n, size_t begin,
                        size_t end, size_t first)
{
  GiltAttr *pool = gilt_op_get_attr(l->op, "pool_int64s");
  GiltAttr *indexes = gilt_op_get_attr(l->op, "ngram_indexes");
  int64_t ngrams = (int64_t)(end - begin) / n;
  if (ngrams == 0)
    return;
  int64_t *data = gilt_malloc(l->ctx, (end - begin) * sizeof *data);
  for (size_t i = begin; i < end; i++)
    data[i - begin] = entry(pool, i);
  int64_t shape[2] = {ngrams, n};
  t->tokens = int_table(l, 2, shape, data, end - begin);
  for (int64_t g = 0; g < ngrams; g++)
    data[g] = entry(indexes, first + (size_t)g);
  t->columns = int_table(l, 1, shape, data, (size_t)ngrams);
  gilt_free(l->ctx, data);
  t->n = n;
  GiltValue *upper = lower_index(l, ngrams);
  lower_for_upto(l, upper, 0, NULL, NULL, count_ngram, t);
}

static void count_row(Lower *l, GiltValue *const *ivs, void *user)
{
  TfIdf *t = user;
  t->row = ivs[0];
  GiltAttr *counts = gilt_op_get_attr(l->op, "ngram_counts");
  size_t pool_size = gilt_op_get_attr(l->op, "pool_int64s")->array.n;
  int64_t lo = graph_attr_int(l->op, "min_gram_length", 1);
  int64_t hi = graph_attr_int(l->op, "max_gram_length", 1);
  size_t first = 0;
  for (size_t k = 0; k < counts->array.n; k++) {
    int64_t n = (int64_t)k + 1;
    size_t begin = (size_t)entry(counts, k);
    size_t end = k + 1 < counts->array.n ? (size_t)entry(counts, k + 1)
                                         : pool_size;
    if (n >= lo && n <= hi)
      count_level(l, t, n, begin, end, first);
    first += (end - begin) / (size_t)n;
  }
}

/* ---- weighting ---------------------------------------------------------- */

typedef struct Weigh {
  GiltValue *out, *weights; /* weights NULL: all 1 */
  bool idf;                 /* IDF: presence, not count */
} Weigh;

static void weigh_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Weigh *w = user;
  GiltValue *f = lower_load(l, w->out, ivs);
  GiltType *t = gilt_value_get_type(f);
  size_t rank = gilt_value_get_type(w->out)->shaped.rank;
  GiltValue *weight = lower_constant(l, t, 1);
  if (w->weights)
    weight = lower_load(l, w->weights, &ivs[rank - 1]);
  GiltValue *v = lower_times(l, f, weight);
  if (w->idf) {
    GiltValue *present = lower_cmp(l, "ogt", f, lower_constant(l, t, 0));
    v = lower_select(l, present, weight, lower_constant(l, t, 0));
  }
  lower_store(l, v, w->out, ivs);
}

/* The weights as a global of the output's width, NULL when absent. */
static GiltValue *weights_table(Lower *l, int64_t width)
{
  GiltAttr *w = gilt_op_get_attr(l->op, "weights");
  if (!w)
    return NULL;
  float *data = gilt_malloc(l->ctx, (size_t)width * sizeof *data);
  for (int64_t i = 0; i < width; i++) {
    GiltAttr *e = w->array.elems[i];
    data[i] = e->kind == GILT_ATTR_FLOAT ? (float)e->f : (float)e->i;
  }
  GiltType *t = gilt_tensor_type_get(l->ctx, 1, &width,
                                     gilt_float_type_get(l->ctx, GILT_F32), NULL);
  GiltValue *table = lower_global(
      l, gilt_dense_elements_attr_get(t, data, (size_t)width * sizeof *data));
  gilt_free(l->ctx, data);
  return table;
}

/* ---- the op ---------------------------------------------------------------- */

static GiltStatus lower_tf_idf(Lower *l)
{
  TfIdf t = {.x = lower_operand(l, 0)};
  GiltType *rt = lower_result_type(l, 0);
  size_t rank = rt->shaped.rank;
  int64_t width = rt->shaped.shape[rank - 1];
  GiltAttr *w = gilt_op_get_attr(l->op, "weights");
  if (w && w->array.n < (size_t)width)
    return lower_error(l, "attribute 'weights' has %zu entries, fewer than "
                          "the %lld output columns it is indexed by",
                       w->array.n, (long long)width);
  const char *mode = graph_attr_string(l->op, "mode", "TF");
  t.max_skip = graph_attr_int(l->op, "max_skip_count", 0);
  t.length = lower_dim(l, t.x, rank - 1);
  GiltValue *dims[2] = {rank == 2 ? lower_dim(l, t.x, 0) : NULL};
  dims[1] = lower_index(l, width);
  t.out = lower_alloc_result(l, 0, rank == 2 ? dims : dims + 1);
  lower_fill(l, t.out, lower_constant(l, rt->shaped.elem, 0));
  GiltValue *rows = rank == 2 ? dims[0] : lower_index(l, 1);
  lower_parallel(l, 1, &rows, count_row, &t);
  if (strcmp(mode, "TF") != 0) {
    Weigh weigh = {t.out, weights_table(l, width), strcmp(mode, "IDF") == 0};
    lower_parallel(l, rank, rank == 2 ? dims : dims + 1, weigh_body, &weigh);
  }
  return lower_replace(l, &t.out);
}

const GraphLoweringRow graph_lower_text[] = {
    {GRAPH_OP_TF_IDF_VECTORIZER, {lower_tf_idf}},
    {0, {NULL}},
};
