/*
** asm.h - the hook API of the printer and parser (gilt/asm.h), plus what
** gilt's own hooks add to it.
**
** Every call a print or parse hook makes is public, in gilt/asm.h, so that
** a dialect outside the tree has what gilt's own have. Here only the
** in-tree conveniences on top of it: the list calls collecting into a
** GILT_VEC (an internal type), written over the public per-element
** callbacks so that there is one list grammar, not two.
*/
#ifndef GILT_IR_ASM_H
#define GILT_IR_ASM_H

#include "gilt/asm.h"
#include "ir/op_def.h"

/* A GILT_VEC's fields, as the push callbacks below take them (`user`):
** GILT_VEC types are anonymous, so vectors cross function boundaries as
** their fields. */
typedef struct GiltAsmVecRef {
  void **data;
  size_t *len, *cap;
} GiltAsmVecRef;

/* Append the element to the GiltAsmVecRef passed as `user`. */
GILT_INTERNAL GiltStatus gilt_asm_push_operand(GiltAsmParser *p,
                                               const GiltUnresolvedOperand *u,
                                               void *user);
GILT_INTERNAL GiltStatus gilt_asm_push_type(GiltAsmParser *p, GiltType *t,
                                            void *user);

#define GILT_ASM_VEC_REF(v)                                                  \
  (&(GiltAsmVecRef){(void **)&(v)->data, &(v)->len, &(v)->cap})

/* gilt_asm_parse_operand_list into a GILT_VEC(GiltUnresolvedOperand),
** passed as `&v`. */
#define gilt_asm_parse_operand_vec(p, v)                                     \
  gilt_asm_parse_operand_list((p), gilt_asm_push_operand, GILT_ASM_VEC_REF(v))
/* gilt_asm_parse_type_list into a GILT_VEC(GiltType *), passed as `&v`. */
#define gilt_asm_parse_type_vec(p, v)                                        \
  gilt_asm_parse_type_list((p), gilt_asm_push_type, GILT_ASM_VEC_REF(v))

/* op_forms.c: `: type` into *out; and n parsed operands resolved into the
** build, each of `type` (types NULL) or of types[i]. */
GILT_INTERNAL GiltStatus gilt_asm_parse_colon_type(GiltAsmParser *p,
                                                   GiltType **out);
GILT_INTERNAL GiltStatus gilt_asm_resolve_into(GiltAsmParser *p,
                                               GiltOpBuild *b,
                                               const GiltUnresolvedOperand *ops,
                                               size_t n, GiltType *type,
                                               GiltType *const *types);
/* op_forms.c: the shared custom forms `%a, %b : T` (every operand and the
** result of type T) and `%a : T to U` (a conversion), ... */
GILT_INTERNAL void gilt_same_type_asm_print(GiltOp *op, GiltAsmPrinter *p);
GILT_INTERNAL GiltStatus gilt_same_type_asm_parse(GiltAsmParser *p,
                                                  GiltOpBuild *b);
GILT_INTERNAL void gilt_cast_asm_print(GiltOp *op, GiltAsmPrinter *p);
GILT_INTERNAL GiltStatus gilt_cast_asm_parse(GiltAsmParser *p,
                                             GiltOpBuild *b);
/* ... and `%a, %b {attrs} : (A, B) -> R`: any op without regions or
** successors, its operands typed by its functional type. */
GILT_INTERNAL void gilt_functional_asm_print(GiltOp *op, GiltAsmPrinter *p);
GILT_INTERNAL GiltStatus gilt_functional_asm_parse(GiltAsmParser *p,
                                                   GiltOpBuild *b);

#endif /* GILT_IR_ASM_H */
