/*
** signal_window.c - lowering of the window functions HannWindow, HammingWindow
** and BlackmanWindow: a result of `size` elements (loaded at run time),
** each a sum of cosines of 2 pi n / N, N the size when periodic, size - 1
** when symmetric. Computed in f64 and rounded once to the output type.
*/
#include "transforms/graph_to_loop/indexing.h"

#define PI 3.14159265358979323846

/* The window a0 - a1 cos(x) + a2 cos(2x). */
typedef struct Window {
  double a0, a1, a2;
  GiltValue *denominator; /* f64 */
} Window;

static GiltValue *window_element(Lower *l, GiltValue *const *ivs, void *user)
{
  Window *w = user;
  GiltType *f64 = lower_f64_type(l);
  GiltValue *n =
      lower_emit(l, LOOP_OP_INDEX_CAST, lower_i64_type(l), 1, &ivs[0]);
  GiltValue *turns = lower_convert(l, n, f64);
  GiltValue *angle =
      lower_binary(l, LOOP_OP_MULF, turns, lower_constant(l, f64, 2 * PI));
  GiltValue *x = lower_binary(l, LOOP_OP_DIVF, angle, w->denominator);
  GiltValue *two_x = lower_binary(l, LOOP_OP_ADDF, x, x);
  GiltValue *a0 = lower_constant(l, f64, w->a0);
  GiltValue *a1 = lower_constant(l, f64, w->a1);
  GiltValue *first = lower_binary(l, LOOP_OP_MULF, a1,
                                  lower_unary(l, LOOP_OP_COS, x));
  GiltValue *v = lower_binary(l, LOOP_OP_SUBF, a0, first);
  if (w->a2 != 0) {
    GiltValue *a2 = lower_constant(l, f64, w->a2);
    GiltValue *second = lower_binary(l, LOOP_OP_MULF, a2,
                                     lower_unary(l, LOOP_OP_COS, two_x));
    v = lower_binary(l, LOOP_OP_ADDF, v, second);
  }
  return lower_convert(l, v, lower_result_elem(l, 0));
}

static GiltStatus lower_window(Lower *l, double a0, double a1, double a2)
{
  Window w = {a0, a1, a2, NULL};
  GiltValue *size = lower_load_index(l, lower_operand(l, 0), 0);
  GiltValue *n = size;
  if (!graph_attr_int(l->op, "periodic", 1))
    n = ix_sub(l, size, lower_index(l, 1));
  GiltValue *n64 = lower_emit(l, LOOP_OP_INDEX_CAST, lower_i64_type(l), 1, &n);
  w.denominator = lower_convert(l, n64, lower_f64_type(l));
  GiltValue *out = lower_generate(l, 0, &size, window_element, &w);
  return lower_replace(l, &out);
}

static GiltStatus lower_hann_window(Lower *l)
{
  return lower_window(l, 0.5, 0.5, 0);
}

static GiltStatus lower_hamming_window(Lower *l)
{
  return lower_window(l, 25.0 / 46, 21.0 / 46, 0);
}

static GiltStatus lower_blackman_window(Lower *l)
{
  return lower_window(l, 0.42, 0.5, 0.08);
}

const GraphLoweringRow graph_lower_signal_window[] = {
    {GRAPH_OP_HANN_WINDOW, {lower_hann_window}},
    {GRAPH_OP_HAMMING_WINDOW, {lower_hamming_window}},
    {GRAPH_OP_BLACKMAN_WINDOW, {lower_blackman_window}},
    {0, {NULL}},
};
