/*
** gilt/onnx.h - importing ONNX models into the graph dialect.
**
** An ONNX model becomes a `builtin.module` holding one `func.func @main`:
** its arguments are the graph inputs that are not initializers, its
** results the graph outputs, and its body one graph-dialect op per ONNX
** node (`Conv` becomes `graph.conv`, `MatMul` `graph.mat_mul`), with
** initializers as `graph.constant` ops holding dense resources. Every op is
** located at its node: `loc("node_name"("model.onnx":LINE:1))`, LINE being
** the node's index in its graph plus one, so a diagnostic from any later
** stage names the ONNX node it came from. Models of older operator sets
** are upgraded to the semantics of opset 17 while importing. docs/onnx.md
** describes the conventions in full.
**
** Nothing here verifies the module: run gilt_op_verify on it, as gopt does.
*/
#ifndef GILT_ONNX_H
#define GILT_ONNX_H

#include "gilt/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Imports the model file at `path` (external data is read relative to its
** directory). Returns a module owned by the caller, or NULL after
** reporting every problem found through the context: a file that is not a
** valid model, every node whose operator gilt does not support (all of
** them at once, each at its node's location), and the first node that
** could not be built. When the context allows unregistered dialects, nodes
** of unsupported operators become unregistered ops instead. Registers
** the graph and func dialects in the context if they are not yet. */
GILT_API GiltOp *gilt_onnx_import_file(GiltContext *ctx, const char *path);

/* As above, from `len` bytes in memory (borrowed for the call). `name`
** stands for the file in locations and diagnostics; `dir` is the directory
** external data is relative to, or NULL to refuse external data. */
GILT_API GiltOp *gilt_onnx_import_buffer(GiltContext *ctx, const void *data,
                                         size_t len, const char *name,
                                         const char *dir);

#ifdef __cplusplus
}
#endif

#endif /* GILT_ONNX_H */
