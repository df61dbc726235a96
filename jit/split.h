/*
** split.h - a module of the llvm dialect compiled into a JIT on several
** threads (split.c): the parts of its functions optimized and compiled
** at once, their objects linked in one JITDylib. Internal to jit/.
*/
#ifndef GILT_JIT_SPLIT_H
#define GILT_JIT_SPLIT_H

#include "gilt/ir.h"
#include "jit/orc.h"

/* Where a split compile's time went: wall seconds translating (on the
** calling thread) and compiling the parts (all threads at once); the CPU
** seconds all parts spent in LLVM's optimization pipeline and in its
** code generator. */
typedef struct JitSplitTimes {
  double translate, compile;
  double optimize_cpu, codegen_cpu;
  size_t parts;
} JitSplitTimes;

/* Translates `module` (a verified builtin.module at the llvm level,
** weights linked: translate.h) in up to `threads` parts (0 counts as
** 1), compiles them at once and adds their objects to `orc`, where a
** lookup links them; the times into *times. Fails after reporting at
** `loc`. */
GILT_INTERNAL GiltStatus jit_split_compile(JitOrc *orc, GiltOp *module,
                                           size_t threads,
                                           JitSplitTimes *times,
                                           GiltLocation *loc);

#endif /* GILT_JIT_SPLIT_H */
