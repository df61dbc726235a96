/*
** signature.h - the groups and type constraints of an op's declared
** operands and results (signature.c), for the registry and the verifier.
** Hooks read a group through gilt_op_get_operand_group (gilt/ir.h).
*/
#ifndef GILT_IR_SIGNATURE_H
#define GILT_IR_SIGNATURE_H

#include "ir/op_def.h"

/* Which list of an op: its operands or its results. */
typedef enum GiltArgKind { GILT_ARG_OPERAND, GILT_ARG_RESULT } GiltArgKind;

/* Parses the text after the colon of "name: index" or "x: tensor<float>".
** A table is code, so an unknown constraint asserts. */
GILT_INTERNAL GiltTypeConstraint gilt_type_constraint_parse(const char *s,
                                                            size_t len);
/* Whether `t` meets the constraint. */
GILT_INTERNAL bool gilt_type_constraint_holds(GiltTypeConstraint c,
                                              GiltType *t);
/* At registration: asserts that each list can be split into its groups
** (by its count, or by a segment attribute the op's traits name). */
GILT_INTERNAL void gilt_op_info_check_groups(const GiltOpInfo *info);
/* The verifier's checks of a registered op's list, each reporting every
** problem at the op and returning false if there was one. Segments: the
** list's segment attribute (GILT_TRAIT_ATTR_SIZED_*) against the groups
** and the count. Types: each value against its group's constraint; a list
** whose groups cannot be resolved (a wrong count, reported by the count or
** segment check) is left alone. */
GILT_INTERNAL bool gilt_op_verify_segments(GiltOp *op, GiltArgKind kind);
GILT_INTERNAL bool gilt_op_verify_arg_types(GiltOp *op, GiltArgKind kind);

#endif /* GILT_IR_SIGNATURE_H */
