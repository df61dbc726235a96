/*
** profile.c - the runtime's profile (jit/abi.h, jit/profile.h): the time
** spent under each label of loop.profile_end, summed over every call
** since the last reset, for gjit --profile.
**
** A label is a string global of the compiled module, so its address is
** its identity and comparing pointers is enough. Kernels run one after
** the other (their parallel loops inside them), so the table is short
** and a linear search under one mutex costs nothing beside a kernel;
** the mutex is for calls of the module from several threads at once.
*/
#include "jit/profile.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static JitProfileEntry *entries;
static size_t num_entries, cap_entries;

int64_t gilt_rt_profile_begin(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void gilt_rt_profile_end(int64_t start, const char *label)
{
  int64_t ns = gilt_rt_profile_begin() - start;
  pthread_mutex_lock(&lock);
  size_t i = 0;
  while (i < num_entries && entries[i].label != label)
    i++;
  if (i == num_entries && num_entries == cap_entries) {
    size_t cap = cap_entries ? 2 * cap_entries : 64;
    JitProfileEntry *grown = realloc(entries, cap * sizeof *grown);
    if (grown) {
      entries = grown;
      cap_entries = cap;
    }
  }
  if (i == num_entries && num_entries < cap_entries) {
    entries[num_entries] = (JitProfileEntry){label, 0, 0, num_entries};
    num_entries++;
  }
  if (i < num_entries) { /* else out of memory: the time is not counted */
    entries[i].total_ns += ns;
    entries[i].calls++;
  }
  pthread_mutex_unlock(&lock);
}

size_t jit_profile_snapshot(JitProfileEntry **out)
{
  pthread_mutex_lock(&lock);
  size_t n = num_entries;
  *out = n ? malloc(n * sizeof **out) : NULL;
  if (*out)
    for (size_t i = 0; i < n; i++)
      (*out)[i] = entries[i];
  else
    n = 0;
  pthread_mutex_unlock(&lock);
  return n;
}

void jit_profile_reset(void)
{
  pthread_mutex_lock(&lock);
  num_entries = 0;
  pthread_mutex_unlock(&lock);
}
