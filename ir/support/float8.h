/*
** float8.h - the 8-bit float formats and their conversions from and to
** double.
**
** gilt has the four formats MLIR has as builtin types and ONNX has as
** tensor element types (onnx docs/docs/Float8.md; the OCP 8-bit floating
** point specification for E4M3FN and E5M2; Graphcore's proposal for the
** FNUZ pair; LLVM's APFloat semantics of the same names):
**
**   f8E4M3FN    1.4.3, bias 7,  no infinity, NaN S.1111.111, max 448
**   f8E4M3FNUZ  1.4.3, bias 8,  no infinity, no -0, NaN 0x80, max 240
**   f8E5M2      1.5.2, bias 15, IEEE: infinities, NaNs, max 57344
**   f8E5M2FNUZ  1.5.2, bias 16, no infinity, no -0, NaN 0x80, max 57344
**
** Dense attributes store one byte per element, the bit pattern. This is
** not a soft-float library: no arithmetic is done in these formats.
*/
#ifndef GILT_IR_FLOAT8_H
#define GILT_IR_FLOAT8_H

#include <stdbool.h>
#include <stdint.h>

#include "gilt/ir.h"
#include "ir/support/alloc.h"

/* Whether k is one of the 8-bit formats. */
GILT_INTERNAL bool gilt_float_kind_is_f8(GiltFloatKind k);
/* The exact value of the 8-bit pattern `bits` of format k (an f8 kind). */
GILT_INTERNAL double gilt_f8_to_double(GiltFloatKind k, uint8_t bits);
/* The pattern of format k nearest to d, rounding once to nearest, ties to
** even, into the subnormals too. Without `saturate`, as APFloat converts,
** a value whose rounding exceeds the largest finite one becomes infinity
** in f8E5M2 and NaN in the others, and infinities do the same. With it,
** as ONNX's Cast-19 does by default, such values become the largest
** finite value of their sign, and so do infinities except in the FNUZ
** formats, where they become NaN. NaN stays NaN (S.1111.111 in E4M3FN,
** S.11111.11 in E5M2, 0x80 in the FNUZ formats); -0, and a negative value rounding to
** zero, is +0 in the FNUZ formats, which have no -0. */
GILT_INTERNAL uint8_t gilt_f8_from_double(GiltFloatKind k, double d,
                                          bool saturate);

#endif /* GILT_IR_FLOAT8_H */
