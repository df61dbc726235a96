/*
** pattern_set.c - pattern sets and their index by root op name.
**
** A set is an unordered bag that passes fill (from the ops' canonicalization
** hooks or by hand). A driver indexes it once per run: patterns sorted by
** root name and decreasing benefit, so that finding the candidates for an
** op is one hash lookup, not a scan of every pattern. Matching and applying
** patterns is the drivers' business (greedy_rewriter.c, conversion.c).
*/
#include "ir/rewrite/rewrite.h"

#include <stdlib.h>

#include "ir/context.h"

void gilt_pattern_set_init(GiltPatternSet *set, GiltContext *ctx)
{
  set->ctx = ctx;
  set->patterns.data = NULL;
  set->patterns.len = set->patterns.cap = 0;
}

void gilt_pattern_set_add(GiltPatternSet *set, GiltPattern pattern)
{
  GILT_ASSERT(pattern.match_and_rewrite);
  gilt_vec_push(set->ctx, &set->patterns, pattern);
}

void gilt_pattern_set_free(GiltPatternSet *set)
{
  gilt_vec_free(set->ctx, &set->patterns);
}

void gilt_pattern_set_add_canonicalizations(GiltPatternSet *set)
{
  GiltHashSet *infos = &set->ctx->op_infos;
  for (size_t i = 0; i < infos->cap; i++) {
    const GiltOpInfo *info = infos->slots[i];
    if (info && info->def && info->def->canonicalization_patterns)
      info->def->canonicalization_patterns(set);
  }
}

/* ---- the index ------------------------------------------------------------ */

typedef struct SortEntry {
  GiltIdent *root;
  const GiltPattern *pattern;
  size_t seq;
} SortEntry;

/* Root-less patterns first (a NULL root), then one run per root; within a
** run by decreasing benefit, then in the order they were added. */
static int compare_entries(const void *pa, const void *pb)
{
  const SortEntry *a = pa, *b = pb;
  uintptr_t ra = (uintptr_t)a->root, rb = (uintptr_t)b->root;
  if (ra != rb)
    return ra < rb ? -1 : 1;
  if (a->pattern->benefit != b->pattern->benefit)
    return a->pattern->benefit > b->pattern->benefit ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void gilt_pattern_index_init(GiltPatternIndex *index,
                             const GiltPatternSet *set)
{
  GiltContext *ctx = set->ctx;
  size_t n = set->patterns.len;
  SortEntry *entries = gilt_calloc(ctx, n ? n : 1, sizeof *entries);
  for (size_t i = 0; i < n; i++) {
    const GiltPattern *p = &set->patterns.data[i];
    entries[i].root = p->root ? gilt_ident_get_cstr(ctx, p->root) : NULL;
    entries[i].pattern = p;
    entries[i].seq = i;
  }
  qsort(entries, n, sizeof *entries, compare_entries);

  index->ctx = ctx;
  index->num = n;
  index->num_any = 0;
  index->sorted = gilt_calloc(ctx, n ? n : 1, sizeof *index->sorted);
  index->roots = gilt_calloc(ctx, n ? n : 1, sizeof *index->roots);
  gilt_ptr_map_init(&index->by_root, ctx);
  for (size_t i = 0; i < n; i++) {
    index->sorted[i] = entries[i].pattern;
    index->roots[i] = entries[i].root;
    if (!entries[i].root)
      index->num_any++;
    else if (!gilt_ptr_map_get(&index->by_root, entries[i].root, NULL))
      gilt_ptr_map_put(&index->by_root, entries[i].root, i);
  }
  gilt_free(ctx, entries);
}

void gilt_pattern_index_free(GiltPatternIndex *index)
{
  gilt_free(index->ctx, index->sorted);
  gilt_free(index->ctx, index->roots);
  gilt_ptr_map_free(&index->by_root);
}

void gilt_pattern_index_lookup(const GiltPatternIndex *index, GiltOp *op,
                               GiltPatternCursor *cursor)
{
  cursor->index = index;
  cursor->any = 0;
  cursor->any_end = index->num_any;
  size_t first;
  if (!gilt_ptr_map_get(&index->by_root, op->info->name, &first)) {
    cursor->rooted = cursor->rooted_end = 0;
    return;
  }
  size_t end = first;
  while (end < index->num && index->roots[end] == op->info->name)
    end++;
  cursor->rooted = first;
  cursor->rooted_end = end;
}

const GiltPattern *gilt_pattern_cursor_next(GiltPatternCursor *cursor)
{
  const GiltPatternIndex *x = cursor->index;
  bool have_any = cursor->any < cursor->any_end;
  bool have_rooted = cursor->rooted < cursor->rooted_end;
  if (!have_any && !have_rooted)
    return NULL;
  if (have_rooted &&
      (!have_any || x->sorted[cursor->rooted]->benefit >=
                        x->sorted[cursor->any]->benefit))
    return x->sorted[cursor->rooted++];
  return x->sorted[cursor->any++];
}
