/*
** profile.h - reading the runtime's profile: what gilt_rt_profile_end
** (jit/abi.h) summed per label since the last reset. gjit --profile
** resets it after warming up, runs the model, and prints a snapshot.
*/
#ifndef GILT_JIT_PROFILE_H
#define GILT_JIT_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "jit/abi.h"
#include "ir/support/alloc.h"

typedef struct JitProfileEntry {
  const char *label; /* the compiled module's: valid while it lives */
  int64_t total_ns;
  int64_t calls;
  size_t order; /* when the label was first seen: program order */
} JitProfileEntry;

/* A copy of the table (free()), in the order labels were first seen;
** the number of entries. */
GILT_INTERNAL size_t jit_profile_snapshot(JitProfileEntry **out);
/* Forgets every total. */
GILT_INTERNAL void jit_profile_reset(void);

#endif /* GILT_JIT_PROFILE_H */
