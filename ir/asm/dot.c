/*
** dot.c - Graphviz rendering of IR (gilt_op_print_dot).
**
** A graph is written in two walks over the drawn op: the first names every
** op and block argument (n0, n1, ... in program order) and writes the
** nodes, nesting a `subgraph cluster_` for each op with regions; the
** second writes one edge per operand. Node numbers are kept in a map keyed
** by the op or block argument, so the second walk finds the node of a
** value defined anywhere in the graph, even later in the text (blocks need
** not appear in dominance order). This is a picture for people: it has no
** options and nothing parses it back.
*/
#include "gilt/dot.h"

#include <string.h>

#include "gilt/interfaces.h"
#include "ir/support/ptr_map.h"

typedef struct DotGraph {
  GiltContext *ctx;
  GiltPtrMap ids; /* op, or GiltValue of a block argument -> node number */
  size_t next_id;
  GiltStrBuf text; /* the whole graph, handed over at the end */
} DotGraph;

static size_t add_node(DotGraph *g, const void *key)
{
  gilt_ptr_map_put(&g->ids, key, g->next_id);
  return g->next_id++;
}

/* ---- text -------------------------------------------------------------- */

static void indent(DotGraph *g, int depth)
{
  gilt_strbuf_printf(&g->text, "%*s", 2 * depth, "");
}

/* Text inside a DOT double-quoted string. */
static void append_quoted(DotGraph *g, const char *s, size_t len)
{
  for (size_t i = 0; i < len; i++) {
    if (s[i] == '"' || s[i] == '\\')
      gilt_strbuf_append(&g->text, "\\", 1);
    if (s[i] == '\n')
      gilt_strbuf_append(&g->text, "\\n", 2);
    else
      gilt_strbuf_append(&g->text, &s[i], 1);
  }
}

static void append_type(DotGraph *g, GiltType *t)
{
  GiltStrBuf sb;
  gilt_strbuf_init(&sb, g->ctx);
  gilt_type_print(t, gilt_strbuf_callback, &sb);
  append_quoted(g, sb.data, sb.len);
  gilt_strbuf_free(&sb);
}

/* `n3 [label="graph.add\ntensor<4xf32>"];` */
static void write_op_node(DotGraph *g, GiltOp *op, size_t id, int depth)
{
  const char *name = gilt_op_get_name(op);
  indent(g, depth);
  gilt_strbuf_printf(&g->text, "n%zu [label=\"", id);
  append_quoted(g, name, strlen(name));
  for (size_t i = 0; i < gilt_op_get_num_results(op); i++) {
    gilt_strbuf_append(&g->text, i ? ", " : "\\n", 2);
    append_type(g, gilt_value_get_type(gilt_op_get_result(op, i)));
  }
  gilt_strbuf_printf(&g->text, "\"];\n");
}

/* `n0 [label="arg0: f32", shape=ellipse];` */
static void write_arg_node(DotGraph *g, GiltValue *arg, int depth)
{
  indent(g, depth);
  gilt_strbuf_printf(&g->text, "n%zu [label=\"arg%zu: ", add_node(g, arg),
                     gilt_value_get_index(arg));
  append_type(g, gilt_value_get_type(arg));
  gilt_strbuf_printf(&g->text, "\", shape=ellipse];\n");
}

/* ---- the two walks ---------------------------------------------------- */

static void write_op(DotGraph *g, GiltOp *op, int depth);

static void write_region(DotGraph *g, GiltRegion *r, int depth)
{
  for (GiltBlock *b = gilt_region_get_first_block(r); b;
       b = gilt_block_get_next(b)) {
    for (size_t i = 0; i < gilt_block_get_num_arguments(b); i++)
      write_arg_node(g, gilt_block_get_argument(b, i), depth);
    for (GiltOp *op = gilt_block_get_first_op(b); op; op = gilt_op_get_next(op))
      write_op(g, op, depth);
  }
}

static void write_op(DotGraph *g, GiltOp *op, int depth)
{
  size_t id = add_node(g, op);
  size_t num_regions = gilt_op_get_num_regions(op);
  if (num_regions == 0) {
    write_op_node(g, op, id, depth);
    return;
  }
  const char *name = gilt_op_get_name(op);
  indent(g, depth);
  gilt_strbuf_printf(&g->text, "subgraph cluster_n%zu {\n", id);
  indent(g, depth + 1);
  gilt_strbuf_printf(&g->text, "label=\"");
  append_quoted(g, name, strlen(name));
  gilt_strbuf_printf(&g->text, "\";\n");
  write_op_node(g, op, id, depth + 1);
  for (size_t i = 0; i < num_regions; i++)
    write_region(g, gilt_op_get_region(op, i), depth + 1);
  indent(g, depth);
  gilt_strbuf_printf(&g->text, "}\n");
}

static GiltWalkResult write_edges(GiltOp *op, void *user)
{
  DotGraph *g = user;
  size_t to, from;
  if (!gilt_ptr_map_get(&g->ids, op, &to))
    return GILT_WALK_ADVANCE;
  for (size_t i = 0; i < gilt_op_get_num_operands(op); i++) {
    GiltValue *v = gilt_op_get_operand(op, i);
    const void *def = gilt_value_is_block_argument(v)
                          ? (const void *)v
                          : (const void *)gilt_value_get_defining_op(v);
    if (gilt_ptr_map_get(&g->ids, def, &from))
      gilt_strbuf_printf(&g->text, "  n%zu -> n%zu;\n", from, to);
  }
  return GILT_WALK_ADVANCE;
}

/* `root` is drawn by its regions: a function is its body. */
static void print_graph(GiltOp *root, GiltStringCallback cb, void *user)
{
  DotGraph g = {.ctx = gilt_op_get_context(root)};
  gilt_ptr_map_init(&g.ids, g.ctx);
  gilt_strbuf_init(&g.text, g.ctx);
  const char *name = gilt_symbol_get_name(root);
  if (!name)
    name = gilt_op_get_name(root);
  gilt_strbuf_printf(&g.text, "digraph \"");
  append_quoted(&g, name, strlen(name));
  gilt_strbuf_printf(&g.text, "\" {\n  node [shape=box];\n");
  for (size_t i = 0; i < gilt_op_get_num_regions(root); i++)
    write_region(&g, gilt_op_get_region(root, i), 1);
  gilt_op_walk(root, GILT_WALK_PRE_ORDER, write_edges, &g);
  gilt_strbuf_printf(&g.text, "}\n");
  cb(g.text.data, g.text.len, user);
  gilt_strbuf_free(&g.text);
  gilt_ptr_map_free(&g.ids);
}

typedef struct FuncSearch {
  GiltStringCallback cb;
  void *user;
  size_t found;
} FuncSearch;

static GiltWalkResult print_if_func(GiltOp *op, void *user)
{
  FuncSearch *s = user;
  if (!gilt_op_is_function_like(op))
    return GILT_WALK_ADVANCE;
  print_graph(op, s->cb, s->user);
  s->found++;
  return GILT_WALK_SKIP;
}

void gilt_op_print_dot(GiltOp *op, GiltStringCallback cb, void *user)
{
  FuncSearch s = {.cb = cb, .user = user};
  gilt_op_walk(op, GILT_WALK_PRE_ORDER, print_if_func, &s);
  if (s.found == 0)
    print_graph(op, cb, user);
}
