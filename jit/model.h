/*
** model.h - what jit/model.c (compiling a model) and jit/model_bench.c
** (timing it) share: the model itself and the clock. Not public: callers
** have gilt/model.h.
*/
#ifndef GILT_JIT_MODEL_H
#define GILT_JIT_MODEL_H

#include "gilt/jit.h"
#include "gilt/model.h"
#include "jit/model_cache.h"

/* The phases of compile time, as GiltModelBenchmark reports them. */
typedef enum ModelPhase {
  MODEL_PHASE_IMPORT,
  MODEL_PHASE_PIPELINE,
  MODEL_PHASE_JIT,
  MODEL_NUM_PHASES
} ModelPhase;

struct GiltModel {
  GiltContext *ctx;
  GiltLocation *loc; /* where a call's errors of the model itself go */
  char *path;        /* the model file, NULL from a module */
  char *function;    /* the function called */
  GiltType *type;    /* its loop-level type */
  /* Argument names then result names, NULL for none; borrowed from the
  ** context or the cache entry. */
  const char **names;
  size_t num_names;
  GiltJitModule *jm; /* compiled; NULL interpreted */
  GiltOp *module;    /* interpreted: the loop-level module */
  ModelCache *cache; /* the entry jm runs from, when loaded from one */
  GiltDevice device; /* where jm's code runs */
  bool compile_only; /* nothing may call it */
  double phase_ms[MODEL_NUM_PHASES];
  bool llvm_was_running; /* before this model: its compile did not start it */
};

/* What takes a CPU model from the loop level to the llvm level, last in
** the compiled pipelines; gjit --check appends it to its loop pipeline. */
#define MODEL_CPU_LOWERING "loop-to-llvm,llvm-merge-functions"

/* Milliseconds on the monotonic clock. */
GILT_INTERNAL double model_now_ms(void);

#endif /* GILT_JIT_MODEL_H */
