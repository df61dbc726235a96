/*
** eval.c - scalar semantics of the elementwise graph ops, for constant
** folding: one function per op kind, all with the same signature, so the
** folder (fold_hook.c) is a single loop over any of them.
**
** Values travel as doubles; `integer` says the operands are integers,
** where division truncates toward zero (as ONNX Runtime does) and a
** division by zero yields NAN, which the folder takes as "do not fold".
** Booleans are 0 and 1. Not here: ops whose semantics need attributes
** (LeakyRelu's alpha, ...), which do not fold.
*/
#include "dialects/graph/graph.h"

#include <math.h>

#define EXACT_INT_LIMIT 9007199254740992.0 /* 2^53 */

static bool bits_exact(double a, double b)
{
  return fabs(a) < EXACT_INT_LIMIT && fabs(b) < EXACT_INT_LIMIT;
}

#define EVAL(name, expr)                                                      \
  double graph_eval_##name(double a, double b, bool integer)                  \
  {                                                                           \
    (void)a;                                                                  \
    (void)b;                                                                  \
    (void)integer;                                                            \
    return (expr);                                                            \
  }

EVAL(add, a + b)
EVAL(sub, a - b)
EVAL(mul, a * b)
EVAL(div, integer ? (b == 0 ? NAN : trunc(a / b)) : a / b)
EVAL(pow, pow(a, b))
EVAL(min, a < b || isnan(a) ? a : b)
EVAL(max, a > b || isnan(a) ? a : b)
EVAL(and, (a != 0) && (b != 0))
EVAL(or, (a != 0) || (b != 0))
EVAL(xor, (a != 0) != (b != 0))
EVAL(equal, a == b)
EVAL(less, a < b)
EVAL(greater, a > b)
EVAL(less_or_equal, a <= b)
EVAL(greater_or_equal, a >= b)
EVAL(not, a == 0)
EVAL(abs, fabs(a))
EVAL(neg, -a)
EVAL(sign, a > 0 ? 1.0 : a < 0 ? -1.0 : a)
EVAL(exp, exp(a))
EVAL(log, log(a))
EVAL(sqrt, sqrt(a))
EVAL(reciprocal, 1.0 / a)
EVAL(floor, floor(a))
EVAL(ceil, ceil(a))
EVAL(round, nearbyint(a)) /* half to even in the default rounding mode */
EVAL(erf, erf(a))
EVAL(sin, sin(a))
EVAL(cos, cos(a))
EVAL(tan, tan(a))
EVAL(asin, asin(a))
EVAL(acos, acos(a))
EVAL(atan, atan(a))
EVAL(sinh, sinh(a))
EVAL(cosh, cosh(a))
EVAL(asinh, asinh(a))
EVAL(acosh, acosh(a))
EVAL(atanh, atanh(a))
EVAL(is_nan, isnan(a) != 0)
EVAL(relu, a > 0 ? a : 0.0)
EVAL(sigmoid, 1.0 / (1.0 + exp(-a)))
EVAL(hard_swish, a * fmax(0.0, fmin(1.0, a / 6.0 + 0.5)))
EVAL(softplus, log1p(exp(a)))
EVAL(softsign, a / (1.0 + fabs(a)))
EVAL(tanh, tanh(a))
EVAL(mish, a * tanh(log1p(exp(a))))
EVAL(gelu, 0.5 * a * (1.0 + erf(a * 0.70710678118654752440))) /* approximate = "none" */
/* Bitwise ops on integers as two's complement int64, which the folder
** wraps back to the element's width (unsigned ones included); a value
** beyond 2^53 did not survive the trip through double, so no fold. */
EVAL(bitwise_and, bits_exact(a, b) ? (double)((int64_t)a & (int64_t)b) : NAN)
EVAL(bitwise_or, bits_exact(a, b) ? (double)((int64_t)a | (int64_t)b) : NAN)
EVAL(bitwise_xor, bits_exact(a, b) ? (double)((int64_t)a ^ (int64_t)b) : NAN)
EVAL(bitwise_not, bits_exact(a, 0) ? (double)~(int64_t)a : NAN)
EVAL(identity, a)

/* The evaluators whose result, computed in double from float operands
** and rounded once to f32 or f64, is the correctly rounded result of the
** element type's own arithmetic: the basic operations IEEE 754 rounds
** exactly (double has more than twice f32's precision, so the double
** rounding is harmless) and those that only select, compare or truncate.
** The transcendental ones (exp, tanh, erf, ...) may differ from the
** element type's libm in the last place, so only the interpreter folds
** them (graph-fold-constants), and compile-time and run-time results agree. */
bool graph_eval_is_exact(GraphEvalFn fn)
{
  static const GraphEvalFn exact[] = {
      graph_eval_add, graph_eval_sub, graph_eval_mul, graph_eval_div,
      graph_eval_min, graph_eval_max, graph_eval_and, graph_eval_or,
      graph_eval_xor, graph_eval_equal, graph_eval_less, graph_eval_greater,
      graph_eval_less_or_equal, graph_eval_greater_or_equal, graph_eval_not,
      graph_eval_abs, graph_eval_neg, graph_eval_sign, graph_eval_sqrt,
      graph_eval_reciprocal, graph_eval_floor, graph_eval_ceil,
      graph_eval_round, graph_eval_is_nan, graph_eval_relu,
      graph_eval_bitwise_and, graph_eval_bitwise_or, graph_eval_bitwise_xor,
      graph_eval_bitwise_not, graph_eval_identity};
  for (size_t i = 0; i < sizeof exact / sizeof *exact; i++)
    if (exact[i] == fn)
      return true;
  return false;
}
