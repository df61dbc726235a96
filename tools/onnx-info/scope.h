/*
** scope.h - whether a model of the ONNX backend test suite is in the
** scope of the conformance runner (test/onnx/run_suite.sh), and if not,
** why.
*/
#ifndef GILT_TOOLS_ONNX_INFO_SCOPE_H
#define GILT_TOOLS_ONNX_INFO_SCOPE_H

#include "gilt/ir.h"

/* Reads the model at `path` and prints one line to stdout: the path, a
** tab and `in`, or the path, a tab, `out`, a tab, the reason's category
** (training, random, dropout, sequence, optional, string, map, sparse), a
** tab and what in the model gave it away. Returns 0, or 1 after printing
** `?` in place of the verdict when the file is no readable model (the
** error goes through the context's diagnostic handler). */
int onnx_info_print_scope(GiltContext *ctx, const char *path);

#endif /* GILT_TOOLS_ONNX_INFO_SCOPE_H */
