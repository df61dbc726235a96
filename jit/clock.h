/*
** clock.h - the clocks the JIT and the model time themselves with: wall
** time for what a user waits for, and the calling thread's CPU time for
** work shared among threads (each part of a split compile). Internal to
** jit/.
*/
#ifndef GILT_JIT_CLOCK_H
#define GILT_JIT_CLOCK_H

#include "ir/support/alloc.h"

/* Seconds on the monotonic clock. */
GILT_INTERNAL double jit_now_seconds(void);
/* The CPU seconds the calling thread has used. */
GILT_INTERNAL double jit_thread_cpu_seconds(void);

#endif /* GILT_JIT_CLOCK_H */
