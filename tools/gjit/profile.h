/*
** profile.h - gjit --profile[=N] (profile.c): the model compiled with
** each op's loops timed (graph-to-loop{profile=true}), run N times after
** a warm-up, and the time per kernel printed with the ONNX nodes it
** covers, slowest first, as ONNX Runtime's profiler or trtexec
** --dumpProfile do.
*/
#ifndef GJIT_PROFILE_H
#define GJIT_PROFILE_H

#include "gilt/model.h"
#include "tools/gjit/options.h"

/* Runs m on the inputs (borrowed) once to warm up, then o->profile_runs
** times, and prints the table on stdout. The outputs of the last run go
** to *outputs (as gilt_model_call's). */
GiltStatus gjit_profile_run(const GjitOptions *o, GiltModel *m,
                            size_t num_inputs, GiltTensor *const *inputs,
                            size_t *num_outputs, GiltTensor ***outputs);

#endif /* GJIT_PROFILE_H */
