/*
** call_like.c - the call-like interface (gilt/interfaces.h): ops that call
** a callable by symbol, MLIR's CallOpInterface, and the checks every such
** op shares.
**
** A call names its callee with a symbol reference and passes a range of
** its operands as arguments; resolving the reference finds the callable
** (callable.c), whose function type the call must match. The verifier's
** messages are MLIR's (CallOp::verifySymbolUses), written once for
** func.call and whatever call op a later level adds. Most call ops keep
** the callee in a `callee` attribute and pass all their operands:
** gilt_call_like_callee_attr_methods implements that shape.
**
** Not here: calls through function values (no op has them yet), and
** inlining (transforms/inline.c).
*/
#include "gilt/interfaces.h"

#include "ir/interfaces/type_pair.h"
#include "ir/op_def.h"
#include "ir/symbol_table.h"

const GiltInterface gilt_call_like_interface = {"call-like"};

/* ---- the `callee` attribute shape --------------------------------------- */

static GiltAttr *callee_attr(GiltOp *op)
{
  GiltAttr *a = gilt_op_get_attr(op, "callee");
  return a && a->kind == GILT_ATTR_SYMBOL_REF ? a : NULL;
}

static void set_callee_attr(GiltOp *op, GiltAttr *callee)
{
  gilt_op_set_attr(op, "callee", callee);
}

static size_t all_operands(GiltOp *op, size_t *first)
{
  *first = 0;
  return op->num_operands;
}

const GiltCallLikeMethods gilt_call_like_callee_attr_methods = {
    callee_attr, set_callee_attr, all_operands};

/* ---- queries --------------------------------------------------------------- */

static const GiltCallLikeMethods *methods_of(GiltOp *op)
{
  return gilt_op_get_interface(op, &gilt_call_like_interface);
}

GiltAttr *gilt_call_like_get_callee(GiltOp *call)
{
  const GiltCallLikeMethods *m = methods_of(call);
  return m ? m->get_callee(call) : NULL;
}

GiltStatus gilt_call_like_set_callee(GiltOp *call, GiltAttr *callee)
{
  const GiltCallLikeMethods *m = methods_of(call);
  if (!m || !callee || callee->kind != GILT_ATTR_SYMBOL_REF)
    return GILT_FAILURE;
  m->set_callee(call, callee);
  return GILT_SUCCESS;
}

size_t gilt_call_like_get_num_args(GiltOp *call)
{
  const GiltCallLikeMethods *m = methods_of(call);
  size_t first;
  return m ? m->get_arg_operands(call, &first) : 0;
}

GiltValue *gilt_call_like_get_arg(GiltOp *call, size_t i)
{
  const GiltCallLikeMethods *m = methods_of(call);
  size_t first;
  if (!m || i >= m->get_arg_operands(call, &first))
    return NULL;
  return call->operands[first + i].value;
}

GiltOp *gilt_call_like_resolve_callee(GiltOp *call)
{
  GiltAttr *ref = gilt_call_like_get_callee(call);
  GiltOp *callee = ref ? gilt_symbol_lookup_nearest(call, ref) : NULL;
  return callee && gilt_op_get_interface(callee, &gilt_callable_interface)
             ? callee
             : NULL;
}

/* ---- verification ---------------------------------------------------------- */

/* `'i32', 'f32'` into sb. */
static void append_quoted_type(GiltStrBuf *sb, GiltType *t, bool first)
{
  gilt_strbuf_append(sb, first ? "'" : ", '", first ? 1 : 3);
  gilt_type_print(t, gilt_strbuf_callback, sb);
  gilt_strbuf_append(sb, "'", 1);
}

/* The error with MLIR's two notes listing both sides' result types. */
static GiltStatus report_result_mismatch(GiltOp *op, GiltType *fnty,
                                         size_t index)
{
  GiltContext *ctx = op->loc->ctx;
  GiltStrBuf mine, theirs;
  gilt_strbuf_init(&mine, ctx);
  gilt_strbuf_init(&theirs, ctx);
  for (size_t i = 0; i < op->num_results; i++)
    append_quoted_type(&mine, gilt_op_result_array(op)[i].type, i == 0);
  for (size_t i = 0; i < fnty->func.num_results; i++)
    append_quoted_type(&theirs, fnty->func.types[fnty->func.num_inputs + i],
                       i == 0);
  GiltDiagnostic *d = gilt_diag_create(
      ctx, GILT_SEVERITY_ERROR, op->loc,
      "'%s' op result type mismatch at index %zu", op->info->name->str,
      index);
  gilt_diag_add_note(d, op->loc, "      op result types: %s", mine.data);
  gilt_diag_add_note(d, op->loc, "function result types: %s", theirs.data);
  gilt_diag_emit(d);
  gilt_strbuf_free(&mine);
  gilt_strbuf_free(&theirs);
  return GILT_FAILURE;
}

static GiltStatus verify_types(GiltOp *op, GiltType *fnty)
{
  size_t nin = fnty->func.num_inputs, nres = fnty->func.num_results;
  size_t nargs = gilt_call_like_get_num_args(op);
  if (nargs != nin)
    return gilt_op_emit_error(op, "incorrect number of operands for callee");
  for (size_t i = 0; i < nin; i++) {
    GiltType *got = gilt_call_like_get_arg(op, i)->type;
    if (got == fnty->func.types[i])
      continue;
    GiltTypePair tp;
    gilt_type_pair_init(&tp, op->loc->ctx, fnty->func.types[i], got);
    gilt_op_emit_error(op,
                       "operand type mismatch: expected operand type '%s', "
                       "but provided '%s' for operand number %zu",
                       tp.first.data, tp.second.data, i);
    gilt_type_pair_free(&tp);
    return GILT_FAILURE;
  }
  if (op->num_results != nres)
    return gilt_op_emit_error(op, "incorrect number of results for callee");
  for (size_t i = 0; i < nres; i++)
    if (gilt_op_result_array(op)[i].type != fnty->func.types[nin + i])
      return report_result_mismatch(op, fnty, i);
  return GILT_SUCCESS;
}

GiltStatus gilt_call_like_verify(GiltOp *call)
{
  GiltAttr *callee = gilt_call_like_get_callee(call);
  if (!callee || callee->symref.n != 1)
    return gilt_op_emit_error(call, "attribute 'callee' failed to satisfy "
                                    "constraint: flat symbol reference "
                                    "attribute");
  GiltOp *fn = gilt_call_like_resolve_callee(call);
  GiltType *fnty = fn ? gilt_callable_get_type(fn) : NULL;
  if (!fnty)
    return gilt_op_emit_error(call,
                              "'%s' does not reference a valid function",
                              callee->symref.names[0]->str);
  return verify_types(call, fnty);
}
