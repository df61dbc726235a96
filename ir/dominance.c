/*
** dominance.c - dominator trees of regions, by Cooper, Harvey and Kennedy.
**
** "A Simple, Fast Dominance Algorithm" (Software Practice & Experience,
** 2001): number the reachable blocks in postorder, then repeatedly set each
** block's immediate dominator to the common ancestor ("intersect") of its
** processed predecessors, in reverse postorder, until nothing changes.
** Afterwards a depth-first walk of the tree gives every block an interval
** [pre, post]; `a` dominates `b` iff a's interval encloses b's, so queries
** cost O(1) however deep the tree is. Blocks are nodes 0..n-1 in region
** order, found from a block pointer through a pointer map.
**
** What this file is not: op-level dominance, post-dominance, or an
** incrementally updated tree.
*/
#include "ir/dominance.h"

#include <string.h>

#include "ir/support/ptr_map.h"

#define NONE UINT32_MAX

struct GiltDomTree {
  GiltContext *ctx;
  uint32_t n;
  GiltBlock **blocks;   /* node i is blocks[i]; the entry is node 0 */
  uint32_t *idom;       /* immediate dominator; NONE if unreachable */
  uint32_t *pre, *post; /* interval in the tree; NONE if unreachable */
  GiltPtrMap index;     /* block -> i */
  /* The two blocks looked up last, most recent first: queries come in runs
  ** about one using block (the verifier asks about each operand of each op
  ** of a block), which then stays cached. */
  const GiltBlock *recent[2];
  uint32_t recent_node[2];
};

/* A graph in compressed rows: node i's edges go to
** adj[start[i] .. start[i + 1]). */
typedef struct Graph {
  uint32_t *start, *adj;
} Graph;

/* Edges as parallel arrays, before they become a Graph. */
typedef struct Edges {
  uint32_t *src, *dst;
  uint32_t len;
} Edges;

/* The node of `b`, or NONE if `b` is not a block of the region. */
static uint32_t node_of(GiltDomTree *dt, const GiltBlock *b)
{
  size_t i;
  if (b == dt->recent[0])
    return dt->recent_node[0];
  if (b == dt->recent[1])
    i = dt->recent_node[1];
  else if (!gilt_ptr_map_get(&dt->index, b, &i))
    return NONE;
  dt->recent[1] = dt->recent[0];
  dt->recent_node[1] = dt->recent_node[0];
  dt->recent[0] = b;
  dt->recent_node[0] = (uint32_t)i;
  return (uint32_t)i;
}

static Graph graph_create(GiltContext *ctx, uint32_t n, const Edges *e)
{
  Graph g;
  g.start = gilt_calloc(ctx, (size_t)n + 1, sizeof *g.start);
  g.adj = gilt_malloc(ctx, (e->len ? e->len : 1) * sizeof *g.adj);
  for (uint32_t i = 0; i < e->len; i++)
    g.start[e->src[i] + 1]++;
  for (uint32_t i = 0; i < n; i++)
    g.start[i + 1] += g.start[i];
  uint32_t *fill = gilt_malloc(ctx, ((size_t)n + 1) * sizeof *fill);
  memcpy(fill, g.start, ((size_t)n + 1) * sizeof *fill);
  for (uint32_t i = 0; i < e->len; i++)
    g.adj[fill[e->src[i]]++] = e->dst[i];
  gilt_free(ctx, fill);
  return g;
}

static void graph_free(GiltContext *ctx, Graph *g)
{
  gilt_free(ctx, g->start);
  gilt_free(ctx, g->adj);
}

/* The CFG's edges: the successors of each block's last op that lie in the
** region (a successor elsewhere is the verifier's error, not an edge). */
static Edges cfg_edges(GiltDomTree *dt)
{
  GiltContext *ctx = dt->ctx;
  size_t cap = 0;
  for (uint32_t i = 0; i < dt->n; i++)
    if (dt->blocks[i]->last)
      cap += dt->blocks[i]->last->num_successors;
  Edges e = {gilt_malloc(ctx, (cap ? cap : 1) * sizeof *e.src),
             gilt_malloc(ctx, (cap ? cap : 1) * sizeof *e.dst), 0};
  for (uint32_t i = 0; i < dt->n; i++) {
    GiltOp *last = dt->blocks[i]->last;
    for (uint32_t k = 0; last && k < last->num_successors; k++) {
      GiltBlock *succ = gilt_op_successor_array(last)[k].block;
      uint32_t j = succ ? node_of(dt, succ) : NONE;
      if (j == NONE)
        continue;
      e.src[e.len] = i;
      e.dst[e.len++] = j;
    }
  }
  return e;
}

/* Depth-first walk from node 0 without recursion (CFGs can be deep).
** Numbers the nodes it reaches in preorder and in postorder (separate
** counters, NONE for the others), lists them in postorder and returns how
** many it reached. */
static uint32_t dfs(GiltContext *ctx, const Graph *g, uint32_t n, uint32_t *pre,
                    uint32_t *post, uint32_t *postorder)
{
  uint32_t *stack = gilt_malloc(ctx, (size_t)n * sizeof *stack);
  uint32_t *next = gilt_malloc(ctx, (size_t)n * sizeof *next);
  uint32_t npre = 0, npost = 0, depth = 0;
  for (uint32_t i = 0; i < n; i++)
    pre[i] = post[i] = NONE;
  pre[0] = npre++;
  next[0] = g->start[0];
  stack[depth++] = 0;
  while (depth) {
    uint32_t v = stack[depth - 1];
    if (next[v] == g->start[v + 1]) {
      post[v] = npost;
      postorder[npost++] = v;
      depth--;
      continue;
    }
    uint32_t w = g->adj[next[v]++];
    if (pre[w] == NONE) {
      pre[w] = npre++;
      next[w] = g->start[w];
      stack[depth++] = w;
    }
  }
  gilt_free(ctx, stack);
  gilt_free(ctx, next);
  return npost;
}

/* The paper's "intersect": walk both fingers up to their common dominator,
** comparing postorder numbers. */
static uint32_t intersect(const uint32_t *idom, const uint32_t *po, uint32_t a,
                          uint32_t b)
{
  while (a != b) {
    while (po[a] < po[b])
      a = idom[a];
    while (po[b] < po[a])
      b = idom[b];
  }
  return a;
}

/* Fixed point over the reachable nodes in reverse postorder; the entry is
** the last in postorder. Unreachable predecessors keep idom NONE and are
** skipped like unprocessed ones. */
static void compute_idoms(GiltDomTree *dt, const Graph *preds,
                          const uint32_t *po, const uint32_t *postorder,
                          uint32_t reached)
{
  for (uint32_t i = 0; i < dt->n; i++)
    dt->idom[i] = NONE;
  dt->idom[0] = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t k = reached - 1; k-- > 0;) {
      uint32_t b = postorder[k], new_idom = NONE;
      for (uint32_t e = preds->start[b]; e < preds->start[b + 1]; e++) {
        uint32_t p = preds->adj[e];
        if (dt->idom[p] == NONE)
          continue;
        new_idom = new_idom == NONE ? p : intersect(dt->idom, po, p, new_idom);
      }
      if (new_idom != dt->idom[b]) {
        dt->idom[b] = new_idom;
        changed = true;
      }
    }
  }
}

/* Gives every reachable node its [pre, post] interval in the tree. */
static void number_tree(GiltDomTree *dt, uint32_t *scratch)
{
  GiltContext *ctx = dt->ctx;
  Edges e = {gilt_malloc(ctx, (size_t)dt->n * sizeof *e.src),
             gilt_malloc(ctx, (size_t)dt->n * sizeof *e.dst), 0};
  for (uint32_t b = 1; b < dt->n; b++) {
    if (dt->idom[b] == NONE)
      continue;
    e.src[e.len] = dt->idom[b];
    e.dst[e.len++] = b;
  }
  Graph kids = graph_create(ctx, dt->n, &e);
  dfs(ctx, &kids, dt->n, dt->pre, dt->post, scratch);
  graph_free(ctx, &kids);
  gilt_free(ctx, e.src);
  gilt_free(ctx, e.dst);
}

/* Computes idom, pre and post from the region's CFG. */
static void build(GiltDomTree *dt)
{
  GiltContext *ctx = dt->ctx;
  Edges e = cfg_edges(dt);
  Graph succs = graph_create(ctx, dt->n, &e);
  Edges rev = {e.dst, e.src, e.len};
  Graph preds = graph_create(ctx, dt->n, &rev);
  uint32_t *po = gilt_malloc(ctx, (size_t)dt->n * sizeof *po);
  uint32_t *postorder = gilt_malloc(ctx, (size_t)dt->n * sizeof *postorder);
  /* dt->pre holds the CFG's preorder until number_tree replaces it. */
  uint32_t reached = dfs(ctx, &succs, dt->n, dt->pre, po, postorder);
  compute_idoms(dt, &preds, po, postorder, reached);
  number_tree(dt, postorder);
  gilt_free(ctx, po);
  gilt_free(ctx, postorder);
  graph_free(ctx, &succs);
  graph_free(ctx, &preds);
  gilt_free(ctx, e.src);
  gilt_free(ctx, e.dst);
}

GiltDomTree *gilt_dom_tree_create(GiltRegion *region)
{
  GiltContext *ctx = region->ctx;
  GiltDomTree *dt = gilt_calloc(ctx, 1, sizeof *dt);
  dt->ctx = ctx;
  gilt_ptr_map_init(&dt->index, ctx);
  size_t n = 0;
  for (GiltBlock *b = region->first; b; b = b->next)
    n++;
  GILT_ASSERT(n < NONE);
  dt->n = (uint32_t)n;
  if (!n)
    return dt;
  dt->blocks = gilt_malloc(ctx, n * sizeof *dt->blocks);
  dt->idom = gilt_malloc(ctx, n * sizeof *dt->idom);
  dt->pre = gilt_malloc(ctx, n * sizeof *dt->pre);
  dt->post = gilt_malloc(ctx, n * sizeof *dt->post);
  n = 0;
  for (GiltBlock *b = region->first; b; b = b->next, n++) {
    dt->blocks[n] = b;
    gilt_ptr_map_put(&dt->index, b, n);
  }
  build(dt);
  return dt;
}

void gilt_dom_tree_destroy(GiltDomTree *dt)
{
  GiltContext *ctx = dt->ctx;
  gilt_ptr_map_free(&dt->index);
  gilt_free(ctx, dt->blocks);
  gilt_free(ctx, dt->idom);
  gilt_free(ctx, dt->pre);
  gilt_free(ctx, dt->post);
  gilt_free(ctx, dt);
}

static uint32_t node_in_region(GiltDomTree *dt, const GiltBlock *b)
{
  uint32_t i = node_of(dt, b);
  GILT_ASSERT(i != NONE && "block is not in the dominator tree's region");
  return i;
}

bool gilt_dom_tree_is_reachable(GiltDomTree *dt, GiltBlock *block)
{
  return dt->pre[node_in_region(dt, block)] != NONE;
}

bool gilt_dom_tree_dominates(GiltDomTree *dt, GiltBlock *a, GiltBlock *b)
{
  uint32_t ia = node_in_region(dt, a), ib = node_in_region(dt, b);
  if (dt->pre[ib] == NONE)
    return true;
  if (dt->pre[ia] == NONE)
    return false;
  return dt->pre[ia] <= dt->pre[ib] && dt->post[ib] <= dt->post[ia];
}
