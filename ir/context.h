/*
** context.h - the context: owner of everything immortal.
**
** Interned identifiers, uniqued types, attributes and locations, the
** registries of dialects, ops and passes, resource blobs, source buffers
** for diagnostics and the diagnostic handler. Destroying the context frees
** all of it, and every op still alive in it.
*/
#ifndef GILT_IR_CONTEXT_H
#define GILT_IR_CONTEXT_H

#include "gilt/pass.h"
#include "ir/op_def.h"
#include "ir/support/paged_array.h"
#include "ir/support/pool.h"
#include "ir/support/ptr_map.h"

/* An open-addressing hash set of pointers whose hash is stored with them;
** used for every uniquing table. */
typedef struct GiltHashSet {
  void **slots;
  uint32_t *hashes;
  size_t cap, len; /* cap is a power of two or zero */
} GiltHashSet;

/* Returns the element equal to `key` (by eq(key, element)) or NULL. */
GILT_INTERNAL void *gilt_hashset_find(GiltHashSet *s, uint32_t hash,
                                      const void *key,
                                      bool (*eq)(const void *key,
                                                 const void *elem));
GILT_INTERNAL void gilt_hashset_insert(GiltContext *ctx, GiltHashSet *s,
                                       uint32_t hash, void *elem);
GILT_INTERNAL void gilt_hashset_free(GiltContext *ctx, GiltHashSet *s);

/* The file positions of one file, uniqued by line (location.c). */
typedef struct GiltFileLines {
  GiltIdent *file;
  GiltPagedArray lines; /* line -> its first location, others chained */
} GiltFileLines;

typedef struct GiltSourceBuffer {
  GiltIdent *file;
  const char *data;
  size_t len;
  bool owned; /* a copy the context frees, or the caller's text */
  /* Offsets of lines 1, 2, ..., built when a diagnostic first quotes the
  ** text, so that quoting a line costs no scan from the start. */
  GILT_VEC(size_t) line_starts;
} GiltSourceBuffer;

struct GiltContext {
  GiltReallocFn realloc_fn;
  void *realloc_user;
  GiltArena arena;            /* types, attributes, identifiers, locations */
  GiltHashSet idents, types, attrs, locs, op_infos, dialects;
  GiltResourceBlob *blobs;    /* in creation order, reversed */
  size_t num_blobs;           /* in that list */
  GiltHashSet blobs_by_name;
  bool allow_unregistered;
  GiltDiagnosticHandler diag_handler;
  void *diag_user;
  size_t num_errors;
  GILT_VEC(GiltSourceBuffer) sources;
  GILT_VEC(const GiltPassDef *) passes; /* sorted by name */
  /* Ops, operands, blocks and block arguments; destroying it frees IR
  ** the caller forgot. */
  GiltPool ir_pool;
  GiltLocation *unknown_loc;
  /* File positions are uniqued here, not in `locs`: one per parsed op. */
  GILT_VEC(GiltFileLines) file_lines;
  GiltPtrMap file_lines_index; /* file identifier -> index in file_lines */
  GiltAttr *empty_dict;
  /* Remarks (remarks.c): the explained categories as ",a,b," (or NULL),
  ** and, while recording, every remark as one rendered JSON object. */
  char *explained;
  bool record_decisions;
  GILT_VEC(char *) decisions;
};

/* Uniquing helpers for types.c, attributes.c, location.c. */
GILT_INTERNAL void *gilt_context_unique(GiltContext *ctx, GiltHashSet *set,
                                        uint32_t hash, const void *key,
                                        bool (*eq)(const void *,
                                                   const void *),
                                        void *(*make)(GiltContext *,
                                                      const void *key));

#endif /* GILT_IR_CONTEXT_H */
