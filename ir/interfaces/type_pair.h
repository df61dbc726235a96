/*
** type_pair.h - the printed forms of two types, for the interface
** verifiers' diagnostics that name both sides of a mismatch ("expected
** 'i32', but provided 'f32'").
**
** Header-only: two tiny functions shared by function_like.c and
** call_like.c, not a module of their own.
*/
#ifndef GILT_IR_INTERFACES_TYPE_PAIR_H
#define GILT_IR_INTERFACES_TYPE_PAIR_H

#include "ir/core.h"

typedef struct GiltTypePair {
  GiltStrBuf first, second;
} GiltTypePair;

static inline void gilt_type_pair_init(GiltTypePair *tp, GiltContext *ctx,
                                       GiltType *first, GiltType *second)
{
  gilt_strbuf_init(&tp->first, ctx);
  gilt_strbuf_init(&tp->second, ctx);
  gilt_type_print(first, gilt_strbuf_callback, &tp->first);
  gilt_type_print(second, gilt_strbuf_callback, &tp->second);
}

static inline void gilt_type_pair_free(GiltTypePair *tp)
{
  gilt_strbuf_free(&tp->first);
  gilt_strbuf_free(&tp->second);
}

#endif /* GILT_IR_INTERFACES_TYPE_PAIR_H */
