/*
** llvm.h - the llvm dialect: ops that mirror LLVM IR instructions, and
** its types !llvm.ptr (an opaque pointer in an address space) and
** !llvm.struct<...> (a literal struct). The ops are listed in llvm.def;
** this header is the contract between the dialect's files, the lowering
** from loops (transforms/loop_to_llvm/) and the translation to LLVM IR
** (dialects/llvm/translate.c).
*/
#ifndef GILT_DIALECTS_LLVM_LLVM_H
#define GILT_DIALECTS_LLVM_LLVM_H

#include "gilt/asm.h"
#include "gilt/interfaces.h"
#include "ir/op_def.h"

GILT_INTERNAL extern const GiltDialectDef gilt_llvm_dialect;

#define LLVM_HOOKS(X)                                                        \
  X(GiltStatus, verify_constant, (GiltOp *))                                 \
  X(GiltStatus, verify_compare, (GiltOp *))                                  \
  X(GiltStatus, verify_select, (GiltOp *))                                   \
  X(GiltStatus, verify_pointer_operand, (GiltOp *))                          \
  X(GiltStatus, verify_global, (GiltOp *))                                   \
  X(GiltStatus, verify_addressof, (GiltOp *))                                \
  X(GiltStatus, verify_aggregate, (GiltOp *))                                \
  X(GiltStatus, verify_call_intrinsic, (GiltOp *))                           \
  X(GiltStatus, verify_return, (GiltOp *))                                   \
  X(GiltStatus, verify_branch, (GiltOp *))                                   \

#define LLVM_DECLARE_HOOK(ret, name, args) GILT_INTERNAL ret llvm_##name args;
LLVM_HOOKS(LLVM_DECLARE_HOOK)
#undef LLVM_DECLARE_HOOK

typedef enum LlvmOpId {
#define GILT_OP(sym, ...) LLVM_OP_##sym,
#include "dialects/llvm/llvm.def"
#undef GILT_OP
  LLVM_NUM_OPS
} LlvmOpId;

GILT_INTERNAL extern const GiltOpDef llvm_ops[LLVM_NUM_OPS];

/* NVPTX's address space of a thread block's shared memory. */
#define LLVM_SHARED_ADDRESS_SPACE 3

static inline bool llvm_op_is(const GiltOp *op, LlvmOpId id)
{
  return gilt_op_is(op, &llvm_ops[id]);
}

/* Which llvm op `op` is; LLVM_NUM_OPS for any other op. */
static inline LlvmOpId llvm_op_id(const GiltOp *op)
{
  const GiltOpDef *def = op->info->def;
  if (def < llvm_ops || def >= llvm_ops + LLVM_NUM_OPS)
    return LLVM_NUM_OPS;
  return (LlvmOpId)(def - llvm_ops);
}

/* ---- types ------------------------------------------------------------------ */

/* !llvm.ptr in address space `space` (0: the default, printed bare). */
GILT_INTERNAL GiltType *llvm_ptr_type(GiltContext *ctx, unsigned space);
/* !llvm.struct<fields...>. */
GILT_INTERNAL GiltType *llvm_struct_type(GiltContext *ctx, size_t n,
                                         GiltType *const *fields);
GILT_INTERNAL bool llvm_is_ptr(GiltType *t);
GILT_INTERNAL unsigned llvm_ptr_address_space(GiltType *t);
GILT_INTERNAL bool llvm_is_struct(GiltType *t);
GILT_INTERNAL size_t llvm_struct_num_fields(GiltType *t);
GILT_INTERNAL GiltType *llvm_struct_field(GiltType *t, size_t i);

#endif /* GILT_DIALECTS_LLVM_LLVM_H */
