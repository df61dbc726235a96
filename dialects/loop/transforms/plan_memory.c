/*
** plan_memory.c - `loop-plan-memory`: places the temporary buffers of a
** function in one arena whose size is known at compile time. Each
** statically shaped loop.alloc of the function's top-level block that
** loop-buffer-deallocation freed in that same block lives from its alloc
** to its dealloc; buffers whose lifetimes do not overlap share bytes. The
** planned allocs become loop.view ops of the arena at their offsets,
** their deallocs go, and the arena is one loop.alloc at the top of the
** block and one loop.dealloc before its terminator: one runtime call per
** call of the function instead of one per buffer, and a first call that
** touches the arena's pages, not a new page for every buffer.
**
** Requires loop-level IR after loop-buffer-deallocation (the frees give
** the lifetimes) and after every pass that moves ops. Preserves the
** function's behavior: a planned buffer's contents were undefined at its
** alloc, and every use of it and of its views (loop.subview,
** loop.reshape, loop.view) lies between its alloc and its dealloc. A use
** inside a region counts at the op of the top-level block that holds
** it, so the buffer is live over that whole op. A buffer used in any
** other way is left as it is: returned, passed to a call, yielded,
** carried by a loop, freed through a view or outside the block; so are
** sizes only the run knows, alignments above 64 bytes, and the allocs
** inside loop bodies (they are not in the top-level block). A dynamic
** size that is a loop.constant is known: graph-to-loop gives many of its
** scratch buffers such sizes, and the view of their static shape is seen
** with the alloc's type through a loop.reshape.
**
** The placement is greedy by size with first fit (TFLite's arena
** planner, "greedy by size"; XLA's heap simulator does the same over its
** buffer intervals): the buffers, largest first, each take the lowest
** 64-byte-aligned offset that overlaps no buffer placed already whose
** lifetime overlaps its own. Not done: in-place elementwise ops (a
** result taking the buffer of an operand that dies at the op) and
** arenas shared across functions or calls.
**
** Remarks (category "memory"): at each function planned, the arena's
** size, the buffers' sizes summed and how many were planned or left.
** Statistics: num-planned, num-arena-bytes.
*/
#include "dialects/loop/transforms/passes.h"

#include <stdlib.h>

#include "dialects/loop/loop.h"
#include "gilt/remarks.h"
#include "ir/core.h"
#include "ir/support/ptr_map.h"

/* The alignment of every planned buffer, that of loop.alloc's default. */
#define ARENA_ALIGNMENT 64

typedef struct Buffer {
  GiltOp *alloc, *dealloc;
  GiltType *type; /* the static type of the view */
  size_t start, end; /* positions of alloc and dealloc in the block */
  int64_t size, offset;
} Buffer;

typedef struct Plan {
  GiltContext *ctx;
  GiltBlock *block;
  GiltPtrMap position; /* op of the block -> its position */
  GILT_VEC(Buffer) buffers;
  GILT_VEC(GiltValue *) aliases;
  GILT_VEC(Buffer *) placed; /* scratch of place(), by offset */
  size_t num_left;           /* allocs of the block not planned */
} Plan;

static int64_t align_up(int64_t n)
{
  return (n + ARENA_ALIGNMENT - 1) / ARENA_ALIGNMENT * ARENA_ALIGNMENT;
}

/* Whether use u makes a view of the buffer (its operand 0). */
static bool is_view(GiltOperand *u)
{
  return loop_op_is_view(u->owner) && u == &u->owner->operands[0];
}

static size_t position_of(Plan *p, GiltOp *op)
{
  size_t pos = 0;
  gilt_ptr_map_get(&p->position, op, &pos);
  return pos;
}

/* Whether use u of alias number a (0: the buffer itself) keeps the
** buffer inside the block's lifetime; the one loop.dealloc of the buffer
** in the block goes to *dealloc. The position of its top-level op is
** *at. */
static bool use_is_planned(Plan *p, GiltOperand *u, size_t a,
                           GiltOp **dealloc, size_t *at)
{
  GiltOp *anc = gilt_block_find_ancestor_op(p->block, u->owner);
  if (!anc || gilt_op_has_trait(anc, GILT_TRAIT_TERMINATOR))
    return false;
  *at = position_of(p, anc);
  if (loop_op_is(u->owner, LOOP_OP_DEALLOC)) {
    if (a != 0 || anc != u->owner || *dealloc)
      return false;
    *dealloc = u->owner;
    return true;
  }
  return is_view(u) || loop_op_is_buffer_access(u->owner);
}

/* The type of loop.alloc op with its dynamic sizes replaced by the
** constants they are, or NULL when one is not a constant. */
static GiltType *static_type(Plan *p, GiltOp *alloc)
{
  GiltType *t = gilt_value_get_type(gilt_op_get_result(alloc, 0));
  size_t rank = t->shaped.rank, n = 0;
  int64_t shape[rank + 1];
  for (size_t d = 0; d < rank; d++) {
    shape[d] = t->shaped.shape[d];
    if (shape[d] != GILT_DYNAMIC)
      continue;
    if (!loop_constant_int(gilt_op_get_operand(alloc, n++), &shape[d]) ||
        shape[d] < 0)
      return NULL;
  }
  return n ? gilt_memref_type_get(p->ctx, rank, shape, t->shaped.elem, NULL,
                                  NULL)
           : t;
}

/* Fills *b for a loop.alloc of the block that can be planned; false when
** it cannot (see the top of the file). */
static bool plannable(Plan *p, GiltOp *alloc, Buffer *b)
{
  GiltValue *v = gilt_op_get_result(alloc, 0);
  GiltAttr *align = gilt_op_get_attr(alloc, "alignment");
  GiltType *type = static_type(p, alloc);
  size_t bytes;
  if (!type ||
      (align && gilt_integer_attr_get_value(align) > ARENA_ALIGNMENT) ||
      !gilt_shaped_type_get_byte_size(type, &bytes) || !bytes ||
      bytes > INT64_MAX / 2)
    return false;
  GiltOp *dealloc = NULL;
  size_t last = 0, at;
  p->aliases.len = 0;
  gilt_vec_push(p->ctx, &p->aliases, v);
  for (size_t a = 0; a < p->aliases.len; a++)
    for (GiltOperand *u = p->aliases.data[a]->first_use; u; u = u->next_use) {
      if (!use_is_planned(p, u, a, &dealloc, &at))
        return false;
      if (at > last)
        last = at;
      if (is_view(u))
        gilt_vec_push(p->ctx, &p->aliases, gilt_op_get_result(u->owner, 0));
    }
  if (!dealloc || last != position_of(p, dealloc))
    return false;
  *b = (Buffer){.alloc = alloc, .dealloc = dealloc, .type = type,
                .start = position_of(p, alloc), .end = last,
                .size = (int64_t)bytes};
  return true;
}

/* Largest first; among equals, the earliest (a fixed order). */
static int by_size(const void *x, const void *y)
{
  const Buffer *a = x, *b = y;
  if (a->size != b->size)
    return a->size > b->size ? -1 : 1;
  return a->start < b->start ? -1 : a->start > b->start;
}

static int by_offset(const void *x, const void *y)
{
  const Buffer *a = *(Buffer *const *)x, *b = *(Buffer *const *)y;
  return a->offset < b->offset ? -1 : a->offset > b->offset;
}

/* First fit of buffer k among buffers [0, k), placed already, whose
** lifetimes overlap its own. */
static void place(Plan *p, size_t k)
{
  Buffer *b = &p->buffers.data[k];
  p->placed.len = 0;
  for (size_t i = 0; i < k; i++) {
    Buffer *o = &p->buffers.data[i];
    if (o->start <= b->end && b->start <= o->end)
      gilt_vec_push(p->ctx, &p->placed, o);
  }
  if (p->placed.len > 1) /* qsort's array must not be NULL, even empty */
    qsort(p->placed.data, p->placed.len, sizeof *p->placed.data, by_offset);
  int64_t offset = 0;
  for (size_t i = 0; i < p->placed.len; i++) {
    Buffer *o = p->placed.data[i];
    if (offset + b->size <= o->offset)
      break;
    if (align_up(o->offset + o->size) > offset)
      offset = align_up(o->offset + o->size);
  }
  b->offset = offset;
}

static GiltOp *create(Plan *p, const char *name, GiltLocation *loc,
                      size_t n, GiltValue *const *operands, GiltType *result,
                      const GiltNamedAttr *attr)
{
  GiltOpState st = gilt_op_state_get(name, loc);
  st.num_operands = n;
  st.operands = operands;
  st.num_results = result ? 1 : 0;
  st.result_types = &result;
  st.num_attrs = attr ? 1 : 0;
  st.attrs = attr;
  return gilt_op_create(p->ctx, &st);
}

/* View `v` with the type of loop.alloc op and its dynamic sizes: a
** loop.reshape before the op. */
static GiltValue *seen_as(Plan *p, GiltOp *alloc, GiltValue *v)
{
  size_t n = gilt_op_get_num_operands(alloc);
  GiltValue *ops[n + 1];
  ops[0] = v;
  for (size_t i = 0; i < n; i++)
    ops[i + 1] = gilt_op_get_operand(alloc, i);
  GiltType *t = gilt_value_get_type(gilt_op_get_result(alloc, 0));
  GiltOp *reshape = create(p, "loop.reshape", gilt_op_get_location(alloc),
                           n + 1, ops, t, NULL);
  gilt_block_insert_op_before(alloc, reshape);
  return gilt_op_get_result(reshape, 0);
}

/* Makes the arena of `size` bytes at the top of the block, the planned
** buffers views of it, and frees it before the terminator. */
static void rewrite(Plan *p, int64_t size, GiltLocation *loc)
{
  GiltType *i64 = gilt_integer_type_get(p->ctx, 64, GILT_SIGNLESS);
  GiltType *bytes = gilt_memref_type_get(
      p->ctx, 1, &size, gilt_integer_type_get(p->ctx, 8, GILT_SIGNLESS), NULL,
      NULL);
  GiltOp *arena = create(p, "loop.alloc", loc, 0, NULL, bytes, NULL);
  gilt_block_insert_op_before(p->block->first, arena);
  GiltValue *whole = gilt_op_get_result(arena, 0);
  for (size_t i = 0; i < p->buffers.len; i++) {
    Buffer *b = &p->buffers.data[i];
    GiltValue *old = gilt_op_get_result(b->alloc, 0);
    GiltLocation *at = gilt_op_get_location(b->alloc);
    GiltNamedAttr offset = {"offset", gilt_integer_attr_get(i64, b->offset)};
    GiltOp *view = create(p, "loop.view", at, 1, &whole, b->type, &offset);
    gilt_block_insert_op_before(b->alloc, view);
    GiltValue *now = gilt_op_get_result(view, 0);
    if (b->type != gilt_value_get_type(old))
      now = seen_as(p, b->alloc, now);
    gilt_op_destroy(b->dealloc);
    gilt_value_replace_all_uses_with(old, now);
    gilt_op_destroy(b->alloc);
  }
  GiltOp *free_op = create(p, "loop.dealloc", loc, 1, &whole, NULL, NULL);
  gilt_block_insert_op_before(gilt_block_get_terminator(p->block), free_op);
}

static void explain(Plan *p, GiltOp *func, int64_t arena, int64_t total)
{
  GiltRemarkArg args[] = {
      {"arena-bytes", NULL, arena},
      {"buffer-bytes", NULL, total},
      {"planned", NULL, (int64_t)p->buffers.len},
      {"left", NULL, (int64_t)p->num_left},
  };
  gilt_remark(func, "memory", "arena", 4, args,
              "%zu buffers of %lld bytes in all placed in an arena of %lld "
              "bytes; %zu left to loop.alloc",
              p->buffers.len, (long long)total, (long long)arena,
              p->num_left);
}

/* Finds the buffers of the block that can be planned; numbers its ops. */
static void collect(Plan *p)
{
  size_t pos = 0;
  for (GiltOp *op = p->block->first; op; op = op->next)
    gilt_ptr_map_put(&p->position, op, pos++);
  for (GiltOp *op = p->block->first; op; op = op->next) {
    Buffer b;
    if (!loop_op_is(op, LOOP_OP_ALLOC))
      continue;
    if (plannable(p, op, &b))
      gilt_vec_push(p->ctx, &p->buffers, b);
    else
      p->num_left++;
  }
}

static GiltStatus run(GiltPass *pass, GiltOp *func)
{
  Plan p = {.ctx = gilt_pass_get_context(pass)};
  GiltRegion *body = gilt_op_get_region(func, 0);
  p.block = body ? body->first : NULL;
  int64_t arena = 0, total = 0;
  if (p.block && gilt_block_get_terminator(p.block)) {
    gilt_ptr_map_init(&p.position, p.ctx);
    collect(&p);
    gilt_ptr_map_free(&p.position);
  }
  /* One buffer alone gains nothing from an arena. */
  if (p.buffers.len >= 2) {
    qsort(p.buffers.data, p.buffers.len, sizeof *p.buffers.data, by_size);
    for (size_t k = 0; k < p.buffers.len; k++) {
      place(&p, k);
      Buffer *b = &p.buffers.data[k];
      total += b->size;
      if (align_up(b->offset + b->size) > arena)
        arena = align_up(b->offset + b->size);
    }
    explain(&p, func, arena, total);
    rewrite(&p, arena, gilt_op_get_location(func));
  } else {
    p.buffers.len = 0;
    gilt_pass_mark_unchanged(pass);
  }
  gilt_pass_add_statistic(pass, "num-planned",
                          "Number of buffers placed in an arena",
                          (int64_t)p.buffers.len);
  gilt_pass_add_statistic(pass, "num-arena-bytes",
                          "Bytes of the arenas made", arena);
  gilt_vec_free(p.ctx, &p.buffers);
  gilt_vec_free(p.ctx, &p.aliases);
  gilt_vec_free(p.ctx, &p.placed);
  return GILT_SUCCESS;
}

const GiltPassDef gilt_loop_plan_memory_pass = {
    .name = "loop-plan-memory",
    .description = "Place the function's statically shaped temporary "
                   "buffers in one arena sized at compile time, sharing "
                   "bytes between buffers whose lifetimes do not overlap",
    .anchor = "func.func",
    .options = NULL,
    .run = run,
};
