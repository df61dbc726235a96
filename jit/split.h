/*
** split.h - a module of the llvm dialect compiled into a JIT on several
** threads (split.c): the parts of its functions optimized and compiled
** at once, their objects linked in one JITDylib. Internal to jit/.
*/
#ifndef GILT_JIT_SPLIT_H
#define GILT_JIT_SPLIT_H

#include "gilt/ir.h"
#include "jit/orc.h"

/* Translates `module` (a verified builtin.module at the llvm level,
** weights linked: translate.h) in up to `threads` parts (0 counts as
** 1), compiles them at once and adds their objects to `orc`, where a
** lookup links them. Fails after reporting at `loc`. */
GILT_INTERNAL GiltStatus jit_split_compile(JitOrc *orc, GiltOp *module,
                                           size_t threads,
                                           GiltLocation *loc);

#endif /* GILT_JIT_SPLIT_H */
