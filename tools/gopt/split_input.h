/*
** split_input.h - --split-input-file: one input, many independent chunks.
**
** As in mlir-opt, a line that starts with `// -----` separates chunks,
** and each chunk is processed as if it were a file of its own. Unlike a
** plain split, every chunk keeps the line numbers it has in the whole file:
** its text is preceded by one empty line per line before it, so locations,
** diagnostics and `expected-error` annotations all speak of the real
** file's lines. Nothing here knows what a chunk is processed into.
*/
#ifndef GOPT_SPLIT_INPUT_H
#define GOPT_SPLIT_INPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "gilt/ir.h"

/* The marker between chunks, and between the outputs of chunks. */
#define GOPT_SPLIT_MARKER "// -----"

/* Processes one chunk: `text` is NUL-terminated and borrowed for the call;
** `index` counts chunks from 0. */
typedef GiltStatus (*GoptChunkFn)(const char *text, size_t len, size_t index,
                                  void *user);

/* Calls fn on each chunk of buf (on buf itself, which must then be
** NUL-terminated, when split is false), all of them even when some fail.
** Returns GILT_FAILURE if any did, or if memory for a chunk ran out
** (reported on stderr). */
GiltStatus gopt_split_input(const char *buf, size_t len, bool split,
                            GoptChunkFn fn, void *user);

#endif /* GOPT_SPLIT_INPUT_H */
