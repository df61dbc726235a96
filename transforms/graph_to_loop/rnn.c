/*
** rnn.c - lowering of the recurrent ops RNN, GRU and LSTM: for each
** direction, a loop.for over the time steps whose body computes every
** (batch, hidden) cell of the step in a loop.parallel; each gate is the
** dot product of the input row with a row of W plus that of the previous
** hidden state with a row of R (a loop.for each), plus the biases.
**
** One cell builder serves the three ops (ONNX's equations, gate orders
** RNN i; GRU z r h; LSTM i o f c, peepholes i o f). The hidden and cell
** states live in scratch buffers of [batch, hidden] that the op updates in
** place, step by step (the new state goes to a second pair and is copied
** back, since every cell reads the whole previous row); only the results
** Y, Y_h and Y_c are fresh buffers of the op's. With sequence_lens, a
** batch entry past its length keeps its state and its Y rows stay zero;
** the reverse direction of entry b runs from its last valid step back, as
** ONNX Runtime does. The activations are those of elementwise.c
** (activation.h) plus Affine and ScaledTanh, which only RNNs name.
*/
#include "transforms/graph_to_loop/indexing.h"

#include <ctype.h>
#include <string.h>

#include "transforms/graph_to_loop/activation.h"

typedef enum RnnKind { KIND_RNN, KIND_GRU, KIND_LSTM } RnnKind;

typedef enum ActKind {
  ACT_RELU, ACT_TANH, ACT_SIGMOID, ACT_AFFINE, ACT_LEAKY_RELU,
  ACT_THRESHOLDED_RELU, ACT_SCALED_TANH, ACT_HARD_SIGMOID, ACT_ELU,
  ACT_SOFTSIGN, ACT_SOFTPLUS
} ActKind;

typedef struct Activation {
  ActKind kind;
  double alpha, beta;
} Activation;

/* The activations ONNX lists, which of alpha and beta each takes from
** the attributes' lists (in order, as ONNX Runtime reads them) and their
** defaults when the lists run out. */
static const struct {
  const char *name;
  ActKind kind;
  bool uses_alpha, uses_beta;
  double alpha, beta;
} activation_table[] = {
    {"relu", ACT_RELU, false, false, 0, 0},
    {"tanh", ACT_TANH, false, false, 0, 0},
    {"sigmoid", ACT_SIGMOID, false, false, 0, 0},
    {"affine", ACT_AFFINE, true, true, 1, 0},
    {"leakyrelu", ACT_LEAKY_RELU, true, false, 0.01, 0},
    {"thresholdedrelu", ACT_THRESHOLDED_RELU, true, false, 1, 0},
    {"scaledtanh", ACT_SCALED_TANH, true, true, 1, 1},
    {"hardsigmoid", ACT_HARD_SIGMOID, true, true, 0.2, 0.5},
    {"elu", ACT_ELU, true, false, 1, 0},
    {"softsign", ACT_SOFTSIGN, false, false, 0, 0},
    {"softplus", ACT_SOFTPLUS, false, false, 0, 0},
};

/* What one lowering knows: the operands (NULL when absent), the results
** it computes (NULL when unused), the sizes, and for the direction being
** built its activations, scratch state and the indices of the cell. */
typedef struct Rnn {
  RnnKind kind;
  int64_t gates; /* 1, 3 or 4 */
  size_t dirs;
  bool batch_first; /* layout 1 */
  GiltValue *x, *w, *r, *b, *lens, *h0, *c0, *p;
  GiltValue *y, *yh, *yc;
  GiltValue *seq, *batch, *hidden, *input;
  bool has_clip, linear_before_reset, input_forget;
  double clip;
  Activation acts[6]; /* per direction: f, g, h */
  /* the direction being built */
  GiltValue *dir; /* its index */
  bool reverse;
  const Activation *act;
  GiltValue *h, *c, *h_next, *c_next, *reset;
  /* the cell being built */
  GiltValue *t, *bi, *j, *tt;
} Rnn;

/* A constant of the op's element type. */
static GiltValue *fconst(Lower *l, double v)
{
  return lower_constant(l, lower_operand_elem(l, 0), v);
}

/* ---- attributes ------------------------------------------------------------ */

/* Activation names compare without case, as ONNX Runtime's do. */
static bool same_name(const char *a, const char *b)
{
  for (; *a && *b; a++, b++)
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
      return false;
  return *a == *b;
}

/* The floats of an array attribute into out[0..max); their count. */
static size_t float_list(GiltOp *op, const char *name, double *out,
                         size_t max)
{
  GiltAttr *a = gilt_op_get_attr(op, name);
  size_t n = 0;
  for (size_t i = 0; a && a->kind == GILT_ATTR_ARRAY && i < a->array.n &&
                     n < max;
       i++) {
    GiltAttr *e = a->array.elems[i];
    out[n++] = e->kind == GILT_ATTR_FLOAT ? e->f : (double)e->i;
  }
  return n;
}

/* Reads `activations` (or the op's defaults), with their alphas and
** betas, into s->acts: per_dir of them for each direction. */
static GiltStatus read_activations(Lower *l, Rnn *s, size_t per_dir)
{
  static const char *const defaults[3] = {"Sigmoid", "Tanh", "Tanh"};
  const char *names[6];
  GiltAttr *a = gilt_op_get_attr(l->op, "activations");
  size_t n = a && a->kind == GILT_ATTR_ARRAY ? a->array.n : 0;
  for (size_t i = 0; i < n && i < 6; i++) {
    GiltAttr *e = a->array.elems[i];
    names[i] = e->kind == GILT_ATTR_STRING ? e->str.data : "";
  }
  if (n == 0)
    for (size_t i = 0; i < per_dir * s->dirs; i++, n++)
      names[i] = s->kind == KIND_RNN ? "Tanh" : defaults[i % per_dir];
  if (n == per_dir && s->dirs == 2) /* the forward ones serve both */
    for (size_t i = 0; i < per_dir; i++, n++)
      names[per_dir + i] = names[i];
  if (n != per_dir * s->dirs)
    return lower_error(l, "attribute 'activations' has %zu entries, "
                          "expected %zu", n, per_dir * s->dirs);
  double alphas[6], betas[6];
  size_t na = float_list(l->op, "activation_alpha", alphas, 6), ia = 0;
  size_t nb = float_list(l->op, "activation_beta", betas, 6), ib = 0;
  for (size_t i = 0; i < n; i++) {
    size_t k = 0, count = sizeof activation_table / sizeof *activation_table;
    while (k < count && !same_name(activation_table[k].name, names[i]))
      k++;
    if (k == count)
      return lower_error(l, "activation '%s' is not supported", names[i]);
    Activation *act = &s->acts[i];
    act->kind = activation_table[k].kind;
    act->alpha = activation_table[k].alpha;
    act->beta = activation_table[k].beta;
    if (activation_table[k].uses_alpha && ia < na)
      act->alpha = alphas[ia++];
    if (activation_table[k].uses_beta && ib < nb)
      act->beta = betas[ib++];
  }
  return GILT_SUCCESS;
}

/* ---- activations ------------------------------------------------------------ */

static GiltValue *activate(Lower *l, const Activation *a, GiltValue *x)
{
  switch (a->kind) {
  case ACT_RELU: return activation_relu(l, x);
  case ACT_TANH: return lower_unary(l, LOOP_OP_TANH, x);
  case ACT_SIGMOID: return activation_sigmoid(l, x);
  case ACT_AFFINE:
    x = lower_times(l, fconst(l, a->alpha), x);
    return lower_plus(l, x, fconst(l, a->beta));
  case ACT_LEAKY_RELU: return activation_leaky_relu(l, x, a->alpha);
  case ACT_THRESHOLDED_RELU: return activation_thresholded_relu(l, x, a->alpha);
  case ACT_SCALED_TANH:
    x = lower_unary(l, LOOP_OP_TANH, lower_times(l, fconst(l, a->beta), x));
    return lower_times(l, fconst(l, a->alpha), x);
  case ACT_HARD_SIGMOID: return activation_hard_sigmoid(l, x, a->alpha, a->beta);
  case ACT_ELU: return activation_elu(l, x, a->alpha);
  case ACT_SOFTSIGN: return activation_softsign(l, x);
  case ACT_SOFTPLUS: return activation_softplus(l, x);
  }
  return x;
}

/* Activation `which` (0 f, 1 g, 2 h) of a gate's input, clipped first
** when the op has `clip`. */
static GiltValue *gate_act(Lower *l, Rnn *s, int which, GiltValue *x)
{
  if (s->has_clip) {
    x = lower_binary(l, LOOP_OP_MAXIMUMF, x, fconst(l, -s->clip));
    x = lower_binary(l, LOOP_OP_MINIMUMF, x, fconst(l, s->clip));
  }
  return activate(l, &s->act[which], x);
}

/* ---- gates ------------------------------------------------------------------- */

/* A dot product over k of a[ai..., k] (times scale[ai..., k], the GRU's
** reset gate, when set) and b[bi..., k]; a has rank ar, b rank 3. */
typedef struct Dot {
  GiltValue *a, *b, *scale;
  size_t ar;
  GiltValue *ai[3], *bi[3];
} Dot;

static void dot_step(Lower *l, GiltValue *k, GiltValue *const *acc,
                     GiltValue **next, void *user)
{
  Dot *d = user;
  d->ai[d->ar - 1] = d->bi[2] = k;
  GiltValue *x = lower_load(l, d->a, d->ai);
  if (d->scale)
    x = lower_times(l, x, lower_load(l, d->scale, d->ai));
  next[0] =
      lower_plus(l, acc[0], lower_times(l, x, lower_load(l, d->b, d->bi)));
}

static GiltValue *dot(Lower *l, Dot *d, GiltValue *n)
{
  GiltValue *zero = fconst(l, 0), *sum;
  lower_for_upto(l, n, 1, &zero, &sum,
            dot_step, d);
  return sum;
}

/* Row g * hidden + j of W, R, B or P. */
static GiltValue *gate_row(Lower *l, Rnn *s, int64_t g)
{
  return ix_add(l, ix_mul(l, lower_index(l, g), s->hidden), s->j);
}

static GiltValue *bias(Lower *l, Rnn *s, int64_t g)
{
  if (!s->b)
    return fconst(l, 0);
  GiltValue *at[2] = {s->dir, gate_row(l, s, g)};
  return lower_load(l, s->b, at);
}

/* The input part of gate g: x_t . W[g] + Wb[g]. */
static GiltValue *input_part(Lower *l, Rnn *s, int64_t g)
{
  Dot d = {.a = s->x, .b = s->w, .ar = 3};
  d.ai[0] = s->batch_first ? s->bi : s->tt;
  d.ai[1] = s->batch_first ? s->tt : s->bi;
  d.bi[0] = s->dir;
  d.bi[1] = gate_row(l, s, g);
  GiltValue *sum = dot(l, &d, s->input);
  return lower_plus(l, sum, bias(l, s, g));
}

/* The recurrent part of gate g: (H_t-1 .* scale) . R[g] + Rb[g]. */
static GiltValue *recurrent_part(Lower *l, Rnn *s, int64_t g,
                                 GiltValue *scale)
{
  Dot d = {.a = s->h, .b = s->r, .scale = scale, .ar = 2};
  d.ai[0] = s->bi;
  d.bi[0] = s->dir;
  d.bi[1] = gate_row(l, s, g);
  GiltValue *sum = dot(l, &d, s->hidden);
  return lower_plus(l, sum, bias(l, s, s->gates + g));
}

/* The whole input of gate g to its activation, before clipping. (The
** parts are built one statement each: the order of the ops must not
** depend on the compiler's order of evaluating arguments.) */
static GiltValue *gate_sum(Lower *l, Rnn *s, int64_t g)
{
  GiltValue *in = input_part(l, s, g);
  return lower_plus(l, in, recurrent_part(l, s, g, NULL));
}

/* Peephole g (i 0, o 1, f 2) times a cell state, or 0 without P. */
static GiltValue *peephole(Lower *l, Rnn *s, int64_t g, GiltValue *c)
{
  if (!s->p)
    return fconst(l, 0);
  GiltValue *at[2] = {s->dir, gate_row(l, s, g)};
  return lower_times(l, lower_load(l, s->p, at), c);
}

/* ---- time ------------------------------------------------------------------ */

/* The time index of batch entry s->bi at step s->t, and in *valid
** whether the step is within its sequence (NULL without sequence_lens:
** always). Reverse runs an entry from its last valid step back; an index
** past the start is clamped to 0 so that loads stay in bounds. */
static GiltValue *time_of(Lower *l, Rnn *s, GiltValue **valid)
{
  GiltValue *len = s->seq;
  *valid = NULL;
  if (s->lens) {
    len = lower_emit(l, LOOP_OP_INDEX_CAST, lower_index_type(l), 1,
                     (GiltValue *[]){lower_load(l, s->lens, &s->bi)});
    *valid = lower_cmp(l, "slt", s->t, len);
  }
  if (!s->reverse)
    return s->t;
  GiltValue *last = lower_binary(l, LOOP_OP_SUBI, len, lower_index(l, 1));
  GiltValue *tt = lower_binary(l, LOOP_OP_SUBI, last, s->t);
  return *valid ? lower_select(l, *valid, tt, lower_index(l, 0)) : tt;
}

/* ---- the cells ---------------------------------------------------------------- */

static GiltValue *state_at(Lower *l, Rnn *s, GiltValue *buf)
{
  GiltValue *at[2] = {s->bi, s->j};
  return lower_load(l, buf, at);
}

/* H_t = f(X_t W^T + H_t-1 R^T + Wb + Rb) */
static GiltValue *rnn_cell(Lower *l, Rnn *s)
{
  return gate_act(l, s, 0, gate_sum(l, s, 0));
}

/* GRU, gates z r h: H_t = (1 - z) .* g(...) + z .* H_t-1, the reset gate
** applied before R (from the buffer the step filled first) or, with
** linear_before_reset, after it. */
static GiltValue *gru_cell(Lower *l, Rnn *s)
{
  GiltValue *z = gate_act(l, s, 0, gate_sum(l, s, 0));
  GiltValue *pre = input_part(l, s, 2);
  if (s->linear_before_reset) {
    GiltValue *r = gate_act(l, s, 0, gate_sum(l, s, 1));
    pre = lower_plus(l, pre, lower_times(l, r, recurrent_part(l, s, 2, NULL)));
  } else {
    pre = lower_plus(l, pre, recurrent_part(l, s, 2, s->reset));
  }
  GiltValue *hh = gate_act(l, s, 1, pre);
  GiltValue *keep = lower_times(l, z, state_at(l, s, s->h));
  GiltValue *one_z = lower_binary(l, LOOP_OP_SUBF, fconst(l, 1), z);
  return lower_plus(l, lower_times(l, one_z, hh), keep);
}

/* The GRU's reset gate r[b, j], which every h gate of row b reads. */
static void gru_reset(Lower *l, GiltValue *const *ivs, void *user)
{
  Rnn *s = user;
  GiltValue *valid;
  s->bi = ivs[0], s->j = ivs[1];
  s->tt = time_of(l, s, &valid);
  GiltValue *r = gate_act(l, s, 0, gate_sum(l, s, 1));
  lower_store(l, r, s->reset, ivs);
}

/* LSTM, gates i o f c, peepholes i o f: C_t = f .* C_t-1 + i .* g(c),
** H_t = o .* h(C_t); with input_forget, f = 1 - i. Stores C_t. */
static GiltValue *lstm_cell(Lower *l, Rnn *s)
{
  GiltValue *c_prev = state_at(l, s, s->c);
  GiltValue *i = gate_sum(l, s, 0);
  i = gate_act(l, s, 0, lower_plus(l, i, peephole(l, s, 0, c_prev)));
  GiltValue *f;
  if (s->input_forget) {
    f = lower_binary(l, LOOP_OP_SUBF, fconst(l, 1), i);
  } else {
    f = gate_sum(l, s, 2);
    f = gate_act(l, s, 0, lower_plus(l, f, peephole(l, s, 2, c_prev)));
  }
  GiltValue *g = gate_act(l, s, 1, gate_sum(l, s, 3));
  GiltValue *kept = lower_times(l, f, c_prev);
  GiltValue *c = lower_plus(l, kept, lower_times(l, i, g));
  GiltValue *o = gate_sum(l, s, 1);
  o = gate_act(l, s, 0, lower_plus(l, o, peephole(l, s, 1, c)));
  GiltValue *at[2] = {s->bi, s->j};
  lower_store(l, c, s->c_next, at);
  return lower_times(l, o, activate(l, &s->act[2], c));
}

/* Computes cell (s->bi, s->j) of the step into the next state and Y. */
static void cell_step(Lower *l, GiltValue *const *ivs, void *user)
{
  (void)ivs;
  Rnn *s = user;
  GiltValue *h = s->kind == KIND_RNN   ? rnn_cell(l, s)
                 : s->kind == KIND_GRU ? gru_cell(l, s)
                                       : lstm_cell(l, s);
  GiltValue *at[2] = {s->bi, s->j};
  lower_store(l, h, s->h_next, at);
  if (!s->y)
    return;
  GiltValue *y_at[4] = {s->tt, s->dir, s->bi, s->j};
  if (s->batch_first)
    y_at[0] = s->bi, y_at[1] = s->tt, y_at[2] = s->dir;
  lower_store(l, h, s->y, y_at);
}

/* A batch entry past its sequence keeps its state. */
static void cell_keep(Lower *l, GiltValue *const *ivs, void *user)
{
  (void)ivs;
  Rnn *s = user;
  GiltValue *at[2] = {s->bi, s->j};
  lower_store(l, state_at(l, s, s->h), s->h_next, at);
  if (s->c)
    lower_store(l, state_at(l, s, s->c), s->c_next, at);
}

static void cell(Lower *l, GiltValue *const *ivs, void *user)
{
  Rnn *s = user;
  GiltValue *valid;
  s->bi = ivs[0], s->j = ivs[1];
  s->tt = time_of(l, s, &valid);
  if (valid)
    lower_if(l, valid, cell_step, cell_keep, s);
  else
    cell_step(l, ivs, s);
}

/* One time step: the GRU's reset gates, the cells, then the new state
** copied over the old. */
static void time_step(Lower *l, GiltValue *t, GiltValue *const *iter,
                      GiltValue **next, void *user)
{
  (void)iter;
  (void)next;
  Rnn *s = user;
  GiltValue *sizes[2] = {s->batch, s->hidden};
  s->t = t;
  if (s->reset)
    lower_parallel(l, 2, sizes, gru_reset, s);
  lower_parallel(l, 2, sizes, cell, s);
  GiltValue *copy[2] = {s->h_next, s->h};
  lower_emit(l, LOOP_OP_COPY, NULL, 2, copy);
  if (s->c) {
    copy[0] = s->c_next, copy[1] = s->c;
    lower_emit(l, LOOP_OP_COPY, NULL, 2, copy);
  }
}

/* ---- directions ----------------------------------------------------------------- */

/* Index of (direction, batch, j) in initial_h/c and Y_h/c by the layout. */
static void state_index(Rnn *s, GiltValue *const *ivs, GiltValue **at)
{
  at[0] = s->batch_first ? ivs[0] : s->dir;
  at[1] = s->batch_first ? s->dir : ivs[0];
  at[2] = ivs[1];
}

static void init_state(Lower *l, GiltValue *const *ivs, void *user)
{
  Rnn *s = user;
  GiltValue *at[3], *zero = fconst(l, 0);
  state_index(s, ivs, at);
  lower_store(l, s->h0 ? lower_load(l, s->h0, at) : zero, s->h, ivs);
  if (s->c)
    lower_store(l, s->c0 ? lower_load(l, s->c0, at) : zero, s->c, ivs);
}

static void final_state(Lower *l, GiltValue *const *ivs, void *user)
{
  Rnn *s = user;
  GiltValue *at[3];
  state_index(s, ivs, at);
  if (s->yh)
    lower_store(l, lower_load(l, s->h, ivs), s->yh, at);
  if (s->yc)
    lower_store(l, lower_load(l, s->c, ivs), s->yc, at);
}

/* A scratch buffer of [batch, hidden]. */
static GiltValue *scratch(Lower *l, Rnn *s)
{
  GiltType *x = gilt_value_get_type(s->x);
  GiltType *r = gilt_value_get_type(s->r);
  int64_t shape[2] = {x->shaped.shape[s->batch_first ? 0 : 1],
                      r->shaped.shape[2]};
  GiltValue *sizes[2] = {s->batch, s->hidden};
  return lower_alloc(l, gilt_memref_type_get(l->ctx, 2, shape,
                                             x->shaped.elem, NULL, NULL),
                     sizes);
}

static void direction(Lower *l, Rnn *s, size_t d, bool reverse)
{
  GiltValue *sizes[2] = {s->batch, s->hidden};
  s->dir = lower_index(l, (int64_t)d);
  s->reverse = reverse;
  s->act = &s->acts[d * (s->kind == KIND_RNN ? 1 : s->kind == KIND_GRU ? 2 : 3)];
  s->h = scratch(l, s), s->h_next = scratch(l, s);
  s->c = s->kind == KIND_LSTM ? scratch(l, s) : NULL;
  s->c_next = s->c ? scratch(l, s) : NULL;
  s->reset = s->kind == KIND_GRU && !s->linear_before_reset ? scratch(l, s)
                                                            : NULL;
  lower_parallel(l, 2, sizes, init_state, s);
  lower_for_upto(l, s->seq, 0, NULL, NULL,
            time_step, s);
  lower_parallel(l, 2, sizes, final_state, s);
  GiltValue *scratches[5] = {s->h, s->h_next, s->c, s->c_next, s->reset};
  for (size_t i = 0; i < 5; i++)
    if (scratches[i])
      lower_emit(l, LOOP_OP_DEALLOC, NULL, 1, &scratches[i]);
}

/* ---- the ops ----------------------------------------------------------------------- */

/* Result i as a new buffer of these dims, or NULL when nobody reads it. */
static GiltValue *result(Lower *l, size_t i, GiltValue *const *dims)
{
  if (i >= gilt_op_get_num_results(l->op))
    return NULL;
  GiltValue *v = gilt_op_get_result(l->op, i);
  if (gilt_value_get_type(v)->kind != GILT_TYPE_TENSOR || !v->first_use)
    return NULL;
  return lower_alloc_result(l, i, dims);
}

static GiltStatus read_op(Lower *l, Rnn *s, RnnKind kind)
{
  static const int64_t gates[3] = {1, 3, 4};
  const char *dir = graph_attr_string(l->op, "direction", "forward");
  s->kind = kind;
  s->gates = gates[kind];
  s->dirs = strcmp(dir, "bidirectional") ? 1 : 2;
  s->batch_first = graph_attr_int(l->op, "layout", 0) != 0;
  s->x = lower_operand(l, 0), s->w = lower_operand(l, 1);
  s->r = lower_operand(l, 2), s->b = lower_operand(l, 3);
  s->lens = lower_operand(l, 4), s->h0 = lower_operand(l, 5);
  s->c0 = lower_operand(l, 6), s->p = lower_operand(l, 7);
  s->has_clip = gilt_op_get_attr(l->op, "clip") != NULL;
  s->clip = graph_attr_float(l->op, "clip", 0);
  s->linear_before_reset = graph_attr_int(l->op, "linear_before_reset", 0);
  s->input_forget = graph_attr_int(l->op, "input_forget", 0);
  if (!lower_is_float(lower_operand_elem(l, 0)))
    return lower_error(l, "X must have a float element type");
  return read_activations(l, s, kind == KIND_RNN ? 1 : kind == KIND_GRU ? 2 : 3);
}

static GiltStatus lower_recurrent(Lower *l, RnnKind kind)
{
  Rnn s = {0};
  if (read_op(l, &s, kind))
    return GILT_FAILURE;
  s.seq = lower_dim(l, s.x, s.batch_first ? 1 : 0);
  s.batch = lower_dim(l, s.x, s.batch_first ? 0 : 1);
  s.input = lower_dim(l, s.x, 2);
  s.hidden = lower_dim(l, s.r, 2);
  GiltValue *dirs = lower_index(l, (int64_t)s.dirs);
  GiltValue *y_dims[4] = {s.seq, dirs, s.batch, s.hidden};
  GiltValue *h_dims[3] = {dirs, s.batch, s.hidden};
  if (s.batch_first) {
    y_dims[0] = s.batch, y_dims[1] = s.seq, y_dims[2] = dirs;
    h_dims[0] = s.batch, h_dims[1] = dirs;
  }
  s.y = result(l, 0, y_dims);
  s.yh = result(l, 1, h_dims);
  s.yc = result(l, 2, h_dims);
  if (s.y && s.lens) /* the steps past a sequence's end stay zero */
    lower_fill(l, s.y, fconst(l, 0));
  const char *dir = graph_attr_string(l->op, "direction", "forward");
  for (size_t d = 0; d < s.dirs; d++)
    direction(l, &s, d, d == 1 || !strcmp(dir, "reverse"));
  GiltValue *results[3] = {s.y, s.yh, s.yc};
  for (size_t i = 0; i < gilt_op_get_num_results(l->op); i++)
    if (!results[i])
      results[i] = gilt_op_get_result(l->op, i);
  return lower_replace(l, results);
}

static GiltStatus lower_rnn(Lower *l)
{
  return lower_recurrent(l, KIND_RNN);
}

static GiltStatus lower_gru(Lower *l)
{
  return lower_recurrent(l, KIND_GRU);
}

static GiltStatus lower_lstm(Lower *l)
{
  return lower_recurrent(l, KIND_LSTM);
}

const GraphLoweringRow graph_lower_rnn[] = {
    {GRAPH_OP_RNN, {lower_rnn}},
    {GRAPH_OP_GRU, {lower_gru}},
    {GRAPH_OP_LSTM, {lower_lstm}},
    {0, {NULL}},
};
