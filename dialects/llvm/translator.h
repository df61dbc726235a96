/*
** translator.h - the state of one translation of the llvm dialect to LLVM
** IR, shared by its three files: translate.c (the module: types, globals,
** functions, blocks and branches), translate_constants.c (attributes to
** LLVM constants) and translate_ops.c (one instruction per op).
**
** Not a public interface: translate.h is the entry point.
*/
#ifndef GILT_DIALECTS_LLVM_TRANSLATOR_H
#define GILT_DIALECTS_LLVM_TRANSLATOR_H

#include "dialects/llvm/translate.h"
#include "ir/support/ptr_map.h"

typedef struct LlvmTranslator {
  GiltContext *ctx;
  GiltOp *module;         /* the builtin.module being translated */
  LLVMContextRef llctx;
  LLVMModuleRef mod;
  LLVMBuilderRef builder;
  LlvmWeights weights;
  const LlvmSplit *split; /* NULL: the whole module */
  GiltPtrMap values;      /* GiltValue * -> LLVMValueRef */
  GiltPtrMap blocks;      /* GiltBlock * -> LLVMBasicBlockRef */
} LlvmTranslator;

/* The LLVM type of `type`, or NULL after reporting at `at`'s location
** (index, f8 types, tensors and the like have none). */
GILT_INTERNAL LLVMTypeRef llvm_translate_type(LlvmTranslator *t,
                                              GiltType *type, GiltOp *at);

/* What `v` was translated to, or NULL after reporting at `user` when it
** was not translated yet (a use that its definition does not dominate). */
GILT_INTERNAL LLVMValueRef llvm_translate_value(LlvmTranslator *t,
                                                GiltValue *v, GiltOp *user);
GILT_INTERNAL void llvm_translate_map_value(LlvmTranslator *t, GiltValue *v,
                                            LLVMValueRef to);

/* `value` (an integer, float, bool or dense elements attribute) as a
** constant of `type`, the translation of `gilt_type`; NULL after
** reporting at `at`. */
GILT_INTERNAL LLVMValueRef llvm_translate_constant(LlvmTranslator *t,
                                                   GiltAttr *value,
                                                   GiltType *gilt_type,
                                                   LLVMTypeRef type,
                                                   GiltOp *at);

/* The initializer of an llvm.global holding dense `value`: an array of its
** elements in row-major order (or a vector constant when `type`, the
** global's type, is the value's vector type); *llvm_type is set to the
** initializer's type. NULL after reporting at `global`. */
GILT_INTERNAL LLVMValueRef llvm_translate_global_initializer(
    LlvmTranslator *t, GiltAttr *value, GiltType *type, GiltOp *global,
    LLVMTypeRef *llvm_type);

/* A linked weight's declaration: its bytes as `[nbytes x i8]`, which
** is all the code addressing it needs (pointers are opaque). */
GILT_INTERNAL LLVMTypeRef llvm_translate_linked_weight_type(LlvmTranslator *t,
                                                            GiltOp *global);

/* Sets the alignment of a load, store or alloca from the op's
** `alignment` attribute, if any; fails after reporting one that is no
** power of two. */
GILT_INTERNAL GiltStatus llvm_translate_set_alignment(GiltOp *op,
                                                      LLVMValueRef v);

/* Emits the instruction(s) of a non-terminator op at the builder's
** position and maps its results. */
GILT_INTERNAL GiltStatus llvm_translate_instruction(LlvmTranslator *t,
                                                    GiltOp *op);

#endif /* GILT_DIALECTS_LLVM_TRANSLATOR_H */
