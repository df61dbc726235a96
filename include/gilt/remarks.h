/*
** gilt/remarks.h - optimization remarks: what a pass decided at an op,
** and why, as LLVM's optimization remarks and MLIR's remarks do.
**
** A remark names a category ("fusion", "tiling", "vectorize"), a short
** decision ("fused", "winograd-f2x2-3x3", ...), a sentence for people
** and a few key/value arguments for tools. Passes emit them where they
** decide; the context decides what becomes of them:
**   - explained: a category enabled by gilt_context_explain turns its
**     remarks into diagnostics of severity remark at the op's location
**     ("fusion: fused into the graph.conv before it as its epilogue"),
**     what `gjit --explain=fusion` and `gopt --explain=...` print;
**   - recorded: with gilt_context_record_decisions on, every remark is
**     kept, and gilt_context_write_decisions writes them all as one JSON
**     document, what `--decisions=FILE` writes. The records come in the
**     order the passes made them and hold no addresses or times, so the
**     same input gives the same file on every run.
** Without either, a remark costs one test.
*/
#ifndef GILT_REMARKS_H
#define GILT_REMARKS_H

#include "gilt/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One argument of a remark: `key` with `text`, or with `number` when
** text is NULL. Borrowed for the call. */
typedef struct GiltRemarkArg {
  const char *key;
  const char *text;
  int64_t number;
} GiltRemarkArg;

/* The categories gilt's passes remark in, for tools to check a user's
** list against: "fusion" (graph-fuse-epilogues), "tiling" (how
** graph-to-loop computes a product: algorithm, register tile, packing),
** "vectorize" (vector widths), "layout" (the data layout each kernel
** computes in, and the copies and packings that put its operands there)
** and "memory" (loop-plan-memory's arena). */
#define GILT_REMARK_CATEGORIES "fusion,tiling,vectorize,layout,memory"

/* The first name of the comma-separated `list` that is neither one of
** GILT_REMARK_CATEGORIES nor "all" (its length in *len), or NULL. */
GILT_API const char *gilt_remark_find_unknown_category(const char *list,
                                                       size_t *len);

/* Explains the remarks of the categories in the comma-separated list
** (`"fusion,tiling"`; `"all"` for every category), in addition to those
** already enabled. Categories are open: a pass may add its own. */
GILT_API void gilt_context_explain(GiltContext *ctx, const char *categories);
/* Starts (or stops) keeping every remark for gilt_context_write_decisions. */
GILT_API void gilt_context_record_decisions(GiltContext *ctx, bool on);
/* Whether any remark would be printed or kept: a compile cache that
** skips the passes must not be used then. */
GILT_API bool gilt_context_wants_remarks(GiltContext *ctx);

/* Reports a remark of `category` at `op` (its location, and its name in
** the record). `fmt` is the sentence, printf-style. */
GILT_API void gilt_remark(GiltOp *op, const char *category,
                          const char *decision, size_t num_args,
                          const GiltRemarkArg *args, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/* Writes the recorded remarks as JSON through `cb`:
**   {"decisions": [{"location": "model.onnx:1:1", "node": "Conv_0",
**     "op": "graph.conv", "category": "tiling", "decision": "...",
**     "message": "...", "args": {"key": value, ...}}, ...]}
** "location" is the file position the op's location leads to
** (gilt_location_get_file_line_col) and "node" the ONNX node it names
** (gilt_location_get_name); either may be null. */
GILT_API void gilt_context_write_decisions(GiltContext *ctx,
                                           GiltStringCallback cb,
                                           void *user);

#ifdef __cplusplus
}
#endif

#endif /* GILT_REMARKS_H */
