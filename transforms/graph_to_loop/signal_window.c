/*
** signal_window.c - lowering of the window generators HannWindow,
** HammingWindow and BlackmanWindow: generalized cosine windows
** a0 - a1 cos(2 pi i / N) + a2 cos(4 pi i / N), with N the size when
** periodic (the default) and size - 1 when not, computed in f64 as the
** ONNX reference does and converted to output_datatype. The size is an
** operand, read at run time. Not here: the windows of convolutions and
** pools (window.c).
*/
#include "transforms/graph_to_loop/lowering.h"

/* C11 has no M_PI. */
static const double pi = 3.14159265358979323846;

typedef struct CosineWindow {
  double a0, a1, a2;
  GiltValue *out, *period; /* period: N as f64 */
} CosineWindow;

static void window_body(Lower *l, GiltValue *const *ivs, void *user)
{
  CosineWindow *w = user;
  GiltType *f64 = gilt_float_type_get(l->ctx, GILT_F64);
  GiltValue *phase = lower_binary(
      l, LOOP_OP_DIVF,
      lower_times(l, lower_convert(l, ivs[0], f64),
                  lower_constant(l, f64, 2 * pi)),
      w->period);
  GiltValue *v = lower_minus(
      l, lower_constant(l, f64, w->a0),
      lower_times(l, lower_constant(l, f64, w->a1),
                  lower_unary(l, LOOP_OP_COS, phase)));
  if (w->a2 != 0) {
    GiltValue *twice = lower_times(l, phase, lower_constant(l, f64, 2));
    v = lower_plus(l, v, lower_times(l, lower_constant(l, f64, w->a2),
                                     lower_unary(l, LOOP_OP_COS, twice)));
  }
  lower_store(l, lower_convert(l, v, lower_result_elem(l, 0)), w->out, ivs);
}

static GiltStatus lower_window(Lower *l, CosineWindow w)
{
  GiltType *f64 = gilt_float_type_get(l->ctx, GILT_F64);
  GiltValue *size = lower_scalar_operand(l, 0, lower_index_type(l));
  w.period = lower_convert(l, size, f64);
  if (!graph_attr_int(l->op, "periodic", 1))
    w.period = lower_minus(l, w.period, lower_constant(l, f64, 1));
  w.out = lower_alloc_result(l, 0, &size);
  lower_parallel(l, 1, &size, window_body, &w);
  return lower_replace(l, &w.out);
}

static GiltStatus lower_hann(Lower *l)
{
  return lower_window(l, (CosineWindow){.a0 = 0.5, .a1 = 0.5});
}

static GiltStatus lower_hamming(Lower *l)
{
  return lower_window(l, (CosineWindow){.a0 = 25.0 / 46, .a1 = 21.0 / 46});
}

static GiltStatus lower_blackman(Lower *l)
{
  return lower_window(l, (CosineWindow){.a0 = 0.42, .a1 = 0.5, .a2 = 0.08});
}

const GraphLoweringRow graph_lower_windows[] = {
    {GRAPH_OP_HANN_WINDOW, {lower_hann}},
    {GRAPH_OP_HAMMING_WINDOW, {lower_hamming}},
    {GRAPH_OP_BLACKMAN_WINDOW, {lower_blackman}},
    {0, {NULL}},
};
