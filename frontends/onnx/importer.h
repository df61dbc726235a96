/*
** importer.h - the state shared by the files of the ONNX importer.
**
** importer.c walks a model's graphs and builds graph-dialect ops;
** attributes.c converts AttributeProtos into gilt attributes;
** version_upgrade.c rewrites nodes of older operator sets into the
** semantics of the graph ops before they are built, and op_versions.c
** says which operator versions of opsets 18 to 21 import. They meet on two
** structures: the importer (the context, the reader, the insertion point
** and the scopes mapping ONNX value names to SSA values) and a node on its
** way to becoming an op (GiltOnnxNode), whose name, operands and attributes
** an upgrade may edit. Not public: embedders see include/gilt/onnx.h.
*/
#ifndef GILT_FRONTENDS_ONNX_IMPORTER_H
#define GILT_FRONTENDS_ONNX_IMPORTER_H

#include "frontends/onnx/model_reader.h"
#include "gilt/onnx.h"
#include "ir/support/name_map.h"

/* The values an ONNX graph has defined so far, by name. A subgraph's scope
** points at its parent's: an If branch may read values defined outside. */
typedef struct GiltOnnxScope {
  GiltNameMap names; /* keys borrowed from the protobuf structures */
  GILT_VEC(GiltValue *) values;
  const Gilt__Onnx__GraphProto *graph;
  struct GiltOnnxScope *parent;
} GiltOnnxScope;

typedef struct GiltOnnxImporter {
  GiltContext *ctx;
  GiltOnnxReader *r;
  const char *file; /* names the model in locations */
  GiltBuilder *b;   /* where the next op goes */
  GiltOnnxScope *scope;
  int64_t opset; /* the default domain's version */
} GiltOnnxImporter;

/* A node on its way to becoming an op. Operands are in ONNX order; NULL
** stands for an absent optional input (trailing ones are dropped and the
** others become `graph.none` when the op is built). Attributes are
** converted already, except GRAPH attributes, which are listed in `graphs`
** in the op's region order. An upgrade may change any of it, emit helper
** ops before the node (they land at the importer's insertion point), or
** build the whole replacement itself and set `results`. */
typedef struct GiltOnnxNode {
  const Gilt__Onnx__NodeProto *proto;
  const char *display_name; /* the node's name, or "<op_type>_<index>" */
  char display_buf[96];     /* holds the latter */
  GiltLocation *loc;
  char op_name[128]; /* "graph.<snake_case op type>" */
  GILT_VEC(GiltValue *) operands;
  GILT_VEC(GiltNamedAttr) attrs;
  GILT_VEC(const Gilt__Onnx__GraphProto *) graphs;
  size_t num_outputs; /* outputs after dropping trailing absent ones */
  /* Set by an upgrade that built the node's replacement itself: one value
  ** per output. */
  GiltValue **results;
} GiltOnnxNode;

/* ---- op_versions.c ------------------------------------------------------- */

/* The version of op_type that `opset` selects when it is one from opset
** 18 on that gilt does not import yet; 0 when the operator imports (its
** definition at `opset` is the one gilt reads). */
GILT_INTERNAL int gilt_onnx_unimported_version(const char *op_type,
                                               int64_t opset);

/* ---- importer.c ----------------------------------------------------------- */

/* gilt_onnx_import_file, and on success *output_names gets the graph's
** output names, in order, as an array of string attributes: what a
** compiled model (jit/model.c) calls its results, since the module does
** not record them (the arguments' names are their locations). */
GILT_INTERNAL GiltOp *gilt_onnx_import_file_named(GiltContext *ctx,
                                                  const char *path,
                                                  GiltAttr **output_names);

/* Writes "graph." + the snake_case form of an ONNX op type into buf
** (`MatMul` -> `graph.mat_mul`, `QLinearConv` -> `graph.q_linear_conv`).
** Returns false when it does not fit. */
GILT_INTERNAL bool gilt_onnx_op_name(const char *op_type, char *buf,
                                     size_t size);
/* Creates an op at the insertion point. `result_types` NULL asks the op's
** inference for them. Returns NULL after reporting. */
GILT_INTERNAL GiltOp *gilt_onnx_emit(GiltOnnxImporter *imp, GiltLocation *loc,
                                     const char *name, size_t num_operands,
                                     GiltValue *const *operands,
                                     size_t num_attrs,
                                     const GiltNamedAttr *attrs,
                                     size_t num_results,
                                     GiltType *const *result_types);
/* A `graph.constant` holding `value`, at the insertion point; its result
** or NULL after reporting. */
GILT_INTERNAL GiltValue *gilt_onnx_emit_constant(GiltOnnxImporter *imp,
                                                 GiltLocation *loc,
                                                 GiltAttr *value);
/* The declared type (value_info or graph output) of a value, or NULL. */
GILT_INTERNAL GiltType *gilt_onnx_declared_type(GiltOnnxImporter *imp,
                                                const char *name);
/* Builds the op a node stands for at the insertion point: its operands,
** attributes, subgraphs as regions, and result types (the declared ones
** of the node's outputs only with `use_declared`: an upgrade that wraps
** the op in others gives it results of other types). NULL after
** reporting. */
GILT_INTERNAL GiltOp *gilt_onnx_build_op(GiltOnnxImporter *imp,
                                         GiltOnnxNode *n, bool use_declared);

/* ---- node attributes (attributes.c) ---------------------------------------- */

/* The attribute named `name`, NULL when the node has none. */
GILT_INTERNAL GiltAttr *gilt_onnx_node_get_attr(GiltOnnxNode *n,
                                                const char *name);
/* Removes and returns the attribute (NULL when absent). */
GILT_INTERNAL GiltAttr *gilt_onnx_node_take_attr(GiltOnnxNode *n,
                                                 const char *name);
/* Adds or replaces. */
GILT_INTERNAL void gilt_onnx_node_set_attr(GiltOnnxImporter *imp,
                                           GiltOnnxNode *n, const char *name,
                                           GiltAttr *attr);
/* Converts every attribute of n->proto into n->attrs (GRAPH ones into
** n->graphs, in the op's region order). Reports each attribute it cannot
** convert and returns GILT_FAILURE after the last. */
GILT_INTERNAL GiltStatus gilt_onnx_convert_attributes(GiltOnnxImporter *imp,
                                                      GiltOnnxNode *n);
/* The attribute value of a tensor: a dense elements attribute, or a
** dense resource named after `resource_name` (sanitized to an identifier)
** when it has more than `max_inline` elements. NULL after reporting. */
GILT_INTERNAL GiltAttr *gilt_onnx_tensor_attr(GiltOnnxImporter *imp,
                                              const Gilt__Onnx__TensorProto *t,
                                              const char *resource_name,
                                              int64_t max_inline,
                                              GiltLocation *loc);
/* Constants the upgrades need: a 1-D i64 tensor, and a rank-0 tensor of
** `elem` (an integer or float type) holding `value`. */
GILT_INTERNAL GiltAttr *gilt_onnx_i64_tensor_attr(GiltContext *ctx, size_t n,
                                                  const int64_t *values);
GILT_INTERNAL GiltAttr *gilt_onnx_scalar_attr(GiltType *elem, double value);

/* ---- version_upgrade.c ----------------------------------------------------- */

/* The op a node of this type becomes when its upgrade renames it (Upsample
** -> graph.resize), NULL when it keeps its own name. */
GILT_INTERNAL const char *gilt_onnx_upgraded_op_name(const char *op_type,
                                                     int64_t opset);
/* Rewrites the node into its graph op's semantics when the model's opset
** is older than the version that op carries. Reports and fails for an
** old form gilt cannot express. */
GILT_INTERNAL GiltStatus gilt_onnx_upgrade_node(GiltOnnxImporter *imp,
                                                GiltOnnxNode *n);

#endif /* GILT_FRONTENDS_ONNX_IMPORTER_H */
