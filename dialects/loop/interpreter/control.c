/*
** control.c - the interpreter's control flow: loop.for, loop.parallel,
** loop.if, loop.while, func.call and loop.assert (launches: gpu.c).
**
** Each handler runs the sub-programs compile.c made of its op's regions
** in a C loop and moves the loop-carried values between cells itself; a
** terminator is no instruction. loop.parallel runs its iterations one
** after another, in row-major order of the induction variables (any
** order is correct for IR that keeps the op's promise).
*/
#include "dialects/loop/interpreter/interpreter.h"

#include <string.h>

static bool bad_step(const Instr *in, int64_t step)
{
  gilt_op_emit_error(in->op, "step must be positive, got %lld",
                     (long long)step);
  return false;
}

/* a, b, c: the lower bound, upper bound and step. The results share the
** cells of the body's loop-carried arguments (compile.c), so the last
** values are where the results are read. */
bool interp_for(Cell *f, const Instr *in, Interp *it)
{
  const InterpFor *loop = in->aux;
  int64_t lower = f[in->a].i, upper = f[in->b].i, step = f[in->c].i;
  if (step <= 0)
    return bad_step(in, step);
  interp_moves_apply(f, &loop->init);
  for (int64_t iv = lower; iv < upper;) {
    f[loop->iv].i = iv;
    if (!interp_run(f, &loop->body, it))
      return false;
    interp_moves_apply(f, &loop->next);
    if (__builtin_add_overflow(iv, step, &iv))
      break;
  }
  return true;
}

/* Runs the dimensions from d inward. */
static bool parallel_dim(Cell *f, const Instr *in, Interp *it, uint32_t d)
{
  const InterpParallel *p = in->aux;
  int64_t lower = f[p->lower[d]].i, upper = f[p->upper[d]].i;
  int64_t step = f[p->step[d]].i;
  for (int64_t iv = lower; iv < upper;) {
    f[p->ivs[d]].i = iv;
    bool ok = d + 1 == p->dims ? interp_run(f, &p->body, it)
                               : parallel_dim(f, in, it, d + 1);
    if (!ok)
      return false;
    if (__builtin_add_overflow(iv, step, &iv))
      break;
  }
  return true;
}

bool interp_parallel(Cell *f, const Instr *in, Interp *it)
{
  const InterpParallel *p = in->aux;
  for (uint32_t d = 0; d < p->dims; d++)
    if (f[p->step[d]].i <= 0)
      return bad_step(in, f[p->step[d]].i);
  return parallel_dim(f, in, it, 0);
}

/* a: the condition. */
bool interp_if(Cell *f, const Instr *in, Interp *it)
{
  const InterpIf *branch = in->aux;
  bool taken = f[in->a].i != 0;
  if (!interp_run(f, taken ? &branch->then_body : &branch->else_body, it))
    return false;
  interp_moves_apply(f, taken ? &branch->then_out : &branch->else_out);
  return true;
}

/* The condition's values go to the body's arguments, which are also the
** results' cells: when the condition fails they are the results. */
bool interp_while(Cell *f, const Instr *in, Interp *it)
{
  const InterpWhile *loop = in->aux;
  interp_moves_apply(f, &loop->init);
  for (;;) {
    if (!interp_run(f, &loop->before, it))
      return false;
    interp_moves_apply(f, &loop->pass);
    if (!f[loop->cond].i)
      return true;
    if (!interp_run(f, &loop->after, it))
      return false;
    interp_moves_apply(f, &loop->next);
  }
}

/* list: the operands' cells (n of them), then the results' (imm). The
** argument and result cells are on the heap: with vectors of thousands
** of lanes and calls nested a thousand deep, the C stack would not do. */
bool interp_call_op(Cell *f, const Instr *in, Interp *it)
{
  InterpCallee *callee = (InterpCallee *)in->aux;
  if (!callee->fn && !(callee->fn = interp_function_get(it, callee->func)))
    return false;
  Cell *args = gilt_malloc(it->ctx, (in->n + (size_t)in->imm + 1) * sizeof(Cell));
  Cell *results = args + in->n;
  for (uint32_t i = 0; i < in->n; i++)
    args[i] = f[in->list[i]];
  bool ok = interp_call(it, callee->fn, in->op, args, results);
  for (int32_t i = 0; ok && i < in->imm; i++)
    f[in->list[in->n + i]] = results[i];
  gilt_free(it->ctx, args);
  return ok;
}

/* a: the condition; aux: the message. */
bool interp_assert(Cell *f, const Instr *in, Interp *it)
{
  (void)it;
  if (f[in->a].i)
    return true;
  gilt_op_emit_error(in->op, "%s", (const char *)in->aux);
  return false;
}
