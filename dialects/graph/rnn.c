/*
** rnn.c - type inference of the recurrent graph ops RNN, GRU and LSTM.
**
** X is [seq, batch, input] (layout 0) or [batch, seq, input] (layout 1);
** W is [dirs, gates * hidden, input] and R [dirs, gates * hidden, hidden]
** with 1, 3 or 4 gates. The outputs are Y ([seq, dirs, batch, hidden], or
** [batch, seq, dirs, hidden]) and Y_h (and LSTM's Y_c: [dirs, batch,
** hidden], or [batch, dirs, hidden]), all optional. Not here: the
** activations' semantics (the lowering reads `activations`).
*/
#include "dialects/graph/graph.h"

#include <string.h>

#include "ir/support/checked_math.h"

static int64_t gates_of(const GiltOpDef *def)
{
  if (def == &graph_ops[GRAPH_OP_LSTM])
    return 4;
  return def == &graph_ops[GRAPH_OP_GRU] ? 3 : 1;
}

GiltStatus graph_infer_rnn(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape x, w, r;
  graph_operand_shape(v, 0, &x);
  graph_operand_shape(v, 1, &w);
  graph_operand_shape(v, 2, &r);
  for (size_t i = 0; i < 3; i++) {
    const GraphShape *s = i == 0 ? &x : i == 1 ? &w : &r;
    if (s->ranked && s->rank != 3)
      return graph_error(v, "operand '%s' must be 3-D, got rank %zu",
                         graph_operand_name(v, i), s->rank);
  }
  const char *dir = graph_dict_string(v->attrs, "direction", "forward");
  if (strcmp(dir, "forward") && strcmp(dir, "reverse") &&
      strcmp(dir, "bidirectional"))
    return graph_error(v, "attribute 'direction' is '%s', expected forward, "
                       "reverse or bidirectional", dir);
  int64_t dirs = strcmp(dir, "bidirectional") ? 1 : 2;
  int64_t layout = graph_dict_int(v->attrs, "layout", 0);
  int64_t hidden = graph_dict_int(v->attrs, "hidden_size", GILT_DYNAMIC);
  if (hidden == GILT_DYNAMIC && r.ranked)
    hidden = r.dims[2];
  int64_t gates = gates_of(v->info->def);
  if (w.ranked && w.dims[0] != GILT_DYNAMIC && w.dims[0] != dirs)
    return graph_error(v, "operand 'W' has %lld directions but attribute "
                       "'direction' asks for %lld", (long long)w.dims[0],
                       (long long)dirs);
  int64_t rows;
  if (w.ranked && hidden != GILT_DYNAMIC && w.dims[1] != GILT_DYNAMIC &&
      (gilt_mul_overflow(gates, hidden, &rows) || w.dims[1] != rows))
    return graph_error(v, "operand 'W' has %lld rows, expected %lld gates x "
                       "%lld hidden", (long long)w.dims[1], (long long)gates,
                       (long long)hidden);
  int64_t seq = GILT_DYNAMIC, batch = GILT_DYNAMIC;
  if (x.ranked) {
    seq = x.dims[layout ? 1 : 0];
    batch = x.dims[layout ? 0 : 1];
  }
  GiltType *elem = graph_operand_elem(v, 0);
  GraphShape y = {.ranked = true, .rank = 4};
  GraphShape h = {.ranked = true, .rank = 3};
  int64_t ydims[2][4] = {{seq, dirs, batch, hidden},
                         {batch, seq, dirs, hidden}};
  int64_t hdims[2][3] = {{dirs, batch, hidden}, {batch, dirs, hidden}};
  memcpy(y.dims, ydims[layout != 0], sizeof ydims[0]);
  memcpy(h.dims, hdims[layout != 0], sizeof hdims[0]);
  for (size_t i = 0; i < v->num_results; i++)
    types[i] = graph_tensor_type(v->ctx, i ? &h : &y, elem);
  return GILT_SUCCESS;
}
