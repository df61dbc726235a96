/*
** pass_manager.c - running a pipeline on an op.
**
** The pipeline tree is walked in order. A pass runs on the op its pipeline
** runs on; a nested pipeline `X(...)` runs, op by op, on every op named X
** directly in the current op's regions (collected before any of them runs,
** so a pass may not add or erase its siblings). At the top level, a nested
** pipeline whose anchor is the root op's own name runs on the root itself,
** which is how MLIR's `builtin.module(...)` reads. After each pass that did
** not declare the IR unchanged, the op it ran on is verified (when
** enabled); a failing pass or verification stops the run. A debug build
** (GILT_DEBUG) trusts no such declaration, as MLIR's expensive pass
** verification: it verifies after every pass, and fails a pass that
** declared the IR unchanged yet changed the op's printed form. Everything
** optional around a pass (IR printing, timing and statistics reports, the
** crash reproducer) is pass_instrumentation.c's. This is a sequential
** driver: there is no multi-threading and no analysis caching.
*/
#include "ir/pass/pass_manager.h"

#include <string.h>
#include <time.h>

GiltPassManager *gilt_pass_manager_create(GiltContext *ctx)
{
  GiltPassManager *pm = gilt_calloc(ctx, 1, sizeof *pm);
  pm->ctx = ctx;
  pm->pipeline = gilt_pipeline_create(ctx, NULL, 0);
  pm->verify = true;
  gilt_instrumentation_init(&pm->instr, ctx);
  return pm;
}

void gilt_pass_manager_destroy(GiltPassManager *pm)
{
  if (!pm)
    return;
  gilt_instrumentation_free(&pm->instr);
  gilt_pipeline_destroy(pm->pipeline);
  gilt_free(pm->ctx, pm);
}

GiltStatus gilt_pass_manager_add_pipeline(GiltPassManager *pm,
                                          const char *pipeline)
{
  return gilt_pipeline_parse(pm->pipeline, pipeline);
}

void gilt_pass_manager_print_pipeline(GiltPassManager *pm,
                                      GiltStringCallback cb, void *user)
{
  GiltStrBuf sb;
  gilt_strbuf_init(&sb, pm->ctx);
  gilt_pipeline_print(pm->pipeline, &sb);
  cb(sb.data ? sb.data : "", sb.len, user);
  gilt_strbuf_free(&sb);
}

void gilt_pass_manager_enable_verifier(GiltPassManager *pm, bool on)
{
  pm->verify = on;
}

/* ---- running ------------------------------------------------------------ */

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static GiltStatus run_pipeline(GiltPassManager *pm, GiltPipeline *pl,
                               GiltOp *op, bool top);

static void hash_text(const char *text, size_t len, void *user)
{
  uint32_t *h = user;
  *h = gilt_hash_bytes(*h, text, len);
}

/* A hash of op's generic form with locations: what a pass that declares
** the IR unchanged must leave alone. Generic and assume_verified, so that
** it prints whatever the pass left, valid or not. */
static uint32_t fingerprint(GiltOp *op)
{
  GiltPrintFlags flags = {
      .generic = true, .debug_info = true, .assume_verified = true};
  uint32_t h = GILT_HASH_SEED;
  gilt_op_print(op, &flags, hash_text, &h);
  return h;
}

static GiltStatus run_pass(GiltPassManager *pm, GiltPass *pass, GiltOp *op)
{
  size_t errors = gilt_context_get_error_count(pm->ctx);
  gilt_instrumentation_before_pass(&pm->instr, pass, op);
  pass->unchanged = false;
  uint32_t before = GILT_DEBUG ? fingerprint(op) : 0;
  gilt_reproducer_arm(&pm->instr.reproducer);
  double start = now();
  GiltStatus status = pass->def->run(pass, op);
  pass->seconds += now() - start;
  if (GILT_DEBUG && status == GILT_SUCCESS && pass->unchanged &&
      fingerprint(op) != before) {
    gilt_emit_error(gilt_op_get_location(op),
                    "pass '%s' declared the IR unchanged but changed it",
                    pass->def->name);
    status = GILT_FAILURE;
  }
  /* A pass that produced broken IR may crash the verifier: keep the
  ** reproducer armed through it. */
  if (status == GILT_SUCCESS && pm->verify &&
      (GILT_DEBUG || !pass->unchanged))
    status = gilt_op_verify(op);
  gilt_reproducer_disarm(&pm->instr.reproducer);
  if (status != GILT_SUCCESS &&
      gilt_context_get_error_count(pm->ctx) == errors)
    gilt_emit_error(gilt_op_get_location(op), "pass '%s' failed",
                    pass->def->name);
  gilt_instrumentation_after_pass(&pm->instr, pass, op, status);
  return status;
}

typedef GILT_VEC(GiltOp *) OpVec;

/* The ops named `name` directly in op's regions, in order. */
static void collect_children(GiltOp *op, const char *name, OpVec *out)
{
  for (size_t r = 0; r < gilt_op_get_num_regions(op); r++) {
    GiltRegion *region = gilt_op_get_region(op, r);
    for (GiltBlock *b = gilt_region_get_first_block(region); b;
         b = gilt_block_get_next(b))
      for (GiltOp *child = gilt_block_get_first_op(b); child;
           child = gilt_op_get_next(child))
        if (strcmp(gilt_op_get_name(child), name) == 0)
          gilt_vec_push(gilt_op_get_context(op), out, child);
  }
}

static GiltStatus run_nested(GiltPassManager *pm, GiltPipeline *nest,
                             GiltOp *op, bool top)
{
  double start = now();
  GiltStatus status = GILT_SUCCESS;
  if (top && strcmp(gilt_op_get_name(op), nest->anchor) == 0) {
    status = run_pipeline(pm, nest, op, false);
  } else {
    OpVec children = {0};
    collect_children(op, nest->anchor, &children);
    for (size_t i = 0; i < children.len && status == GILT_SUCCESS; i++)
      status = run_pipeline(pm, nest, children.data[i], false);
    gilt_vec_free(pm->ctx, &children);
  }
  nest->seconds += now() - start;
  return status;
}

static GiltStatus run_pipeline(GiltPassManager *pm, GiltPipeline *pl,
                               GiltOp *op, bool top)
{
  for (size_t i = 0; i < pl->entries.len; i++) {
    GiltPipelineEntry *e = &pl->entries.data[i];
    GiltStatus status = e->pass ? run_pass(pm, e->pass, op)
                                : run_nested(pm, e->nested, op, top);
    if (status != GILT_SUCCESS)
      return status;
  }
  return GILT_SUCCESS;
}

GiltStatus gilt_pass_manager_run(GiltPassManager *pm, GiltOp *op)
{
  GILT_ASSERT(!pm->running && "pass manager run re-entered");
  pm->running = true;
  pm->instr.root = op;
  gilt_pipeline_reset_counters(pm->pipeline);
  double start = now();
  GiltStatus status = run_pipeline(pm, pm->pipeline, op, true);
  pm->instr.total_seconds = now() - start;
  gilt_instrumentation_report(&pm->instr, pm->pipeline);
  pm->instr.root = NULL;
  pm->running = false;
  return status;
}
