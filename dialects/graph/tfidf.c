/*
** tfidf.c - the checks and type inference of graph.tf_idf_vectorizer
** (ONNX TfIdfVectorizer-9) over integer n-gram pools.
**
** The pool is laid out like a CSR matrix: ngram_counts[k] is where the
** (k+1)-grams start in pool_int64s (the last level runs to its end), so
** level k holds (end - start) / (k + 1) n-grams, and ngram_indexes gives
** each n-gram of the pool, in pool order, its output column. The result is
** f32 [max(ngram_indexes) + 1], or [N, max(ngram_indexes) + 1] for a
** batch of N rows. The checks are those of the ONNX specification and of
** ONNX Runtime's kernel, so that a model one accepts the other does too.
**
** Not here: string inputs and pool_strings, which gilt's tensors cannot
** hold (the verifier refuses them by name), and the counting itself.
*/
#include "dialects/graph/graph.h"

#include <string.h>

/* Attribute `name` when present and of `kind`; else reports (naming it as
** `what`) and returns NULL. */
static GiltAttr *attr_of(const GraphOpView *v, const char *name,
                         GiltAttrKind kind, const char *what)
{
  GiltAttr *a = gilt_dictionary_attr_lookup(v->attrs, name);
  if (!a)
    graph_error(v, "requires attribute '%s'", name);
  else if (a->kind != kind)
    graph_error(v, "attribute '%s' must be %s", name, what);
  return a && a->kind == kind ? a : NULL;
}

/* An INTS attribute: an array whose entries are all integers. */
static GiltAttr *int_list(const GraphOpView *v, const char *name)
{
  GiltAttr *a = attr_of(v, name, GILT_ATTR_ARRAY, "a list of integers");
  for (size_t i = 0; a && i < a->array.n; i++)
    if (a->array.elems[i]->kind != GILT_ATTR_INTEGER) {
      graph_error(v, "attribute '%s' must be a list of integers", name);
      return NULL;
    }
  return a;
}

static int64_t entry(GiltAttr *list, size_t i)
{
  return list->array.elems[i]->i;
}

/* The gram lengths, the skip count and the mode. */
static GiltStatus check_scalars(const GraphOpView *v, size_t levels)
{
  GiltAttr *lo = attr_of(v, "min_gram_length", GILT_ATTR_INTEGER,
                         "an integer");
  GiltAttr *hi = attr_of(v, "max_gram_length", GILT_ATTR_INTEGER,
                         "an integer");
  GiltAttr *skip = attr_of(v, "max_skip_count", GILT_ATTR_INTEGER,
                           "an integer");
  GiltAttr *mode = attr_of(v, "mode", GILT_ATTR_STRING, "a string");
  if (!lo || !hi || !skip || !mode)
    return GILT_FAILURE;
  if (lo->i < 1)
    return graph_error(v, "attribute 'min_gram_length' (%lld) must be at "
                       "least 1", (long long)lo->i);
  if (lo->i > hi->i)
    return graph_error(v, "attribute 'min_gram_length' (%lld) exceeds "
                       "'max_gram_length' (%lld)", (long long)lo->i,
                       (long long)hi->i);
  if ((uint64_t)hi->i > levels)
    return graph_error(v, "attribute 'max_gram_length' (%lld) exceeds the "
                       "%zu n-gram lengths 'ngram_counts' describes",
                       (long long)hi->i, levels);
  if (skip->i < 0)
    return graph_error(v, "attribute 'max_skip_count' (%lld) must not be "
                       "negative", (long long)skip->i);
  if (strcmp(mode->str.data, "TF") && strcmp(mode->str.data, "IDF") &&
      strcmp(mode->str.data, "TFIDF"))
    return graph_error(v, "attribute 'mode' (\"%s\") must be \"TF\", "
                       "\"IDF\" or \"TFIDF\"", mode->str.data);
  return GILT_SUCCESS;
}

/* How many n-grams the pool holds, after checking that ngram_counts cuts
** it into whole n-grams; -1 after an error. */
static int64_t pool_ngrams(const GraphOpView *v, GiltAttr *counts,
                           size_t pool_len)
{
  if (counts->array.n == 0) {
    graph_error(v, "attribute 'ngram_counts' must not be empty");
    return -1;
  }
  int64_t total = 0;
  for (size_t k = 0; k < counts->array.n; k++) {
    int64_t start = entry(counts, k);
    if (start < 0 || (uint64_t)start > pool_len) {
      graph_error(v, "attribute 'ngram_counts' entry %zu (%lld) is out of "
                  "range of 'pool_int64s' (%zu items)", k, (long long)start,
                  pool_len);
      return -1;
    }
    int64_t end = k + 1 < counts->array.n ? entry(counts, k + 1)
                                          : (int64_t)pool_len;
    if (end < start) {
      graph_error(v, "attribute 'ngram_counts' is not non-decreasing: "
                  "entry %zu (%lld) follows %lld", k + 1, (long long)end,
                  (long long)start);
      return -1;
    }
    if ((end - start) % (int64_t)(k + 1)) {
      graph_error(v, "attribute 'ngram_counts' gives the %zu-grams %lld "
                  "items of 'pool_int64s', not a multiple of %zu", k + 1,
                  (long long)(end - start), k + 1);
      return -1;
    }
    total += (end - start) / (int64_t)(k + 1);
  }
  return total;
}

/* The output width, max(ngram_indexes) + 1; -1 after an error. */
static int64_t output_width(const GraphOpView *v, GiltAttr *indexes,
                            int64_t ngrams)
{
  if ((uint64_t)ngrams != indexes->array.n) {
    graph_error(v, "attribute 'ngram_indexes' has %zu entries but "
                "'pool_int64s' holds %lld n-grams", indexes->array.n,
                (long long)ngrams);
    return -1;
  }
  if (indexes->array.n == 0) {
    graph_error(v, "attribute 'ngram_indexes' must not be empty");
    return -1;
  }
  int64_t max = 0;
  for (size_t i = 0; i < indexes->array.n; i++) {
    int64_t x = entry(indexes, i);
    if (x < 0 || x == INT64_MAX) {
      graph_error(v, "attribute 'ngram_indexes' entry %zu (%lld) is not a "
                  "valid output column", i, (long long)x);
      return -1;
    }
    max = x > max ? x : max;
  }
  return max + 1;
}

/* Optional weights: one number per n-gram. */
static GiltStatus check_weights(const GraphOpView *v, size_t ngrams)
{
  GiltAttr *w = gilt_dictionary_attr_lookup(v->attrs, "weights");
  if (!w)
    return GILT_SUCCESS;
  bool numbers = w->kind == GILT_ATTR_ARRAY;
  for (size_t i = 0; numbers && i < w->array.n; i++)
    numbers = w->array.elems[i]->kind == GILT_ATTR_FLOAT ||
              w->array.elems[i]->kind == GILT_ATTR_INTEGER;
  if (!numbers)
    return graph_error(v, "attribute 'weights' must be a list of floats");
  if (w->array.n != ngrams)
    return graph_error(v, "attribute 'weights' has %zu entries but "
                       "'ngram_indexes' has %zu", w->array.n, ngrams);
  return GILT_SUCCESS;
}

/* X: i32 or i64, [C] or [N, C]. */
static GiltStatus check_input(const GraphOpView *v, GraphShape *x)
{
  /* A `none` X gets the message below, which names the types X may
  ** have, rather than graph_check_operands' one. */
  if (graph_has_operand(v, 0) && graph_check_operands(v))
    return GILT_FAILURE;
  GiltType *elem = graph_operand_elem(v, 0); /* NULL for a `none` X */
  if (!elem || elem->kind != GILT_TYPE_INTEGER ||
      elem->integer.sign != GILT_SIGNLESS ||
      (elem->integer.width != 32 && elem->integer.width != 64))
    return graph_error(v, "operand 'X' must be an i32 or i64 tensor (ONNX "
                       "int32 or int64; strings are not supported)");
  graph_operand_shape(v, 0, x);
  if (x->ranked && x->rank != 1 && x->rank != 2)
    return graph_error(v, "operand 'X' must be 1-D [C] or 2-D [N, C], got "
                       "rank %zu", x->rank);
  return GILT_SUCCESS;
}

GiltStatus graph_infer_tf_idf_vectorizer(const GraphOpView *v,
                                         GiltType **types)
{
  GraphShape x;
  if (check_input(v, &x))
    return GILT_FAILURE;
  if (gilt_dictionary_attr_lookup(v->attrs, "pool_strings"))
    return graph_error(v, "attribute 'pool_strings' is not supported: gilt "
                       "has no string tensors; use 'pool_int64s'");
  GiltAttr *pool = int_list(v, "pool_int64s");
  GiltAttr *counts = pool ? int_list(v, "ngram_counts") : NULL;
  GiltAttr *indexes = counts ? int_list(v, "ngram_indexes") : NULL;
  int64_t ngrams = indexes ? pool_ngrams(v, counts, pool->array.n) : -1;
  if (ngrams < 0 || check_scalars(v, counts->array.n))
    return GILT_FAILURE;
  int64_t width = output_width(v, indexes, ngrams);
  if (width < 0 || check_weights(v, indexes->array.n))
    return GILT_FAILURE;
  /* An unranked X gives an unranked result: its rank may be 1 or 2. */
  GraphShape y = {.ranked = x.ranked};
  if (x.ranked && x.rank == 2)
    y.dims[y.rank++] = x.dims[0];
  y.dims[y.rank++] = width;
  types[0] = graph_tensor_type(v->ctx, &y,
                               gilt_float_type_get(v->ctx, GILT_F32));
  return GILT_SUCCESS;
}
