/*
** runtime.h - what the JIT needs of the runtime besides abi.h's
** functions: choosing the pool a call's loops run on, and reading and
** clearing the failure of the calling thread. Internal to jit/.
*/
#ifndef GILT_JIT_RUNTIME_H
#define GILT_JIT_RUNTIME_H

#include "jit/abi.h"
#include "jit/threadpool.h"

/* Makes gilt_rt_parallel_for in this thread run on `pool` (NULL: in the
** calling thread alone) and returns the pool it replaced. Workers run
** their chunks with no pool, so a parallel loop nested in another runs
** serially inside its chunk. */
GILT_INTERNAL JitThreadPool *jit_runtime_set_pool(JitThreadPool *pool);
/* This thread's last failure, apart: its message and the location text
** the compiled code gave (NULL when none, as for running out of memory),
** both static strings of the compiled module. False when none failed. */
GILT_INTERNAL bool jit_runtime_last_failure(const char **message,
                                            const char **location);
/* Forgets this thread's last failure: gilt_rt_last_error() is NULL. */
GILT_INTERNAL void jit_runtime_clear_error(void);

#endif /* GILT_JIT_RUNTIME_H */
