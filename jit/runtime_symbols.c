/*
** runtime_symbols.c - the symbols compiled code may call
** (runtime_symbols.h), defined by address.
**
** Defined explicitly rather than found by searching the process: gilt's
** own symbols are hidden (-fvisibility=hidden) and a program that links
** libgilt.a is not built with -rdynamic, so dlsym would not find
** gilt_rt_alloc in gjit, and a libm function must resolve to the same one
** the C code calls. Both linkers use this one table: ORC (orc.c) and
** gilt's own, for cached objects (object_link.h).
*/
#include "jit/runtime_symbols.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gpu/cuda.h"
#include "ir/support/float16.h"
#include "jit/abi.h"

#if defined(__x86_64__) && defined(__FLT16_MAX__)
/* f32 to bf16, rounded to nearest even: what LLVM calls `__truncsfbf2`
** for where the CPU has no instruction for it (no AVX512-BF16), a
** function libgcc has only from GCC 13 on. x86-64 returns a bf16 in
** xmm0, as it returns a _Float16. */
__extension__ typedef _Float16 Bf16Return;

static Bf16Return truncsfbf2(float x)
{
  uint16_t bits = gilt_bf16_from_float(x);
  Bf16Return carrier;
  memcpy(&carrier, &bits, sizeof carrier);
  return carrier;
}
#endif

typedef struct RuntimeSymbol {
  const char *name;
  void (*address)(void);
} RuntimeSymbol;

/* What compiled code may call: abi.h, gpu/cuda.h, then the libm functions the
** lowering of the math ops uses (and their double versions), and the
** conversion to bf16 LLVM calls where the CPU has no instruction for it
** (above), then the memory functions LLVM emits for llvm.memcpy and
** friends. Cast through a function pointer type: ISO C has no object
** pointer to a function. */
#define SYM(f) {#f, (void (*)(void))(f)}
static const RuntimeSymbol runtime_symbols[] = {
    SYM(gilt_rt_alloc), SYM(gilt_rt_adopt), SYM(gilt_rt_disown),
    SYM(gilt_rt_scope_enter), SYM(gilt_rt_scope_exit),
    SYM(gilt_rt_free), SYM(gilt_rt_fail),
    SYM(gilt_rt_last_error), SYM(gilt_rt_parallel_for),
    SYM(gilt_rt_profile_begin), SYM(gilt_rt_profile_end),
    SYM(gilt_cuda_alloc), SYM(gilt_cuda_free), SYM(gilt_cuda_memcpy),
    SYM(gilt_cuda_device_global), SYM(gilt_cuda_function),
    SYM(gilt_cuda_launch),
    SYM(expf), SYM(exp), SYM(exp2f), SYM(exp2), SYM(expm1f), SYM(expm1),
    SYM(logf), SYM(log), SYM(log2f), SYM(log2), SYM(log10f), SYM(log10),
    SYM(log1pf), SYM(log1p), SYM(powf), SYM(pow), SYM(sqrtf), SYM(sqrt),
    SYM(cbrtf), SYM(cbrt), SYM(erff), SYM(erf), SYM(erfcf), SYM(erfc),
    SYM(tanhf), SYM(tanh), SYM(sinhf), SYM(sinh), SYM(coshf), SYM(cosh),
    SYM(asinhf), SYM(asinh), SYM(acoshf), SYM(acosh), SYM(atanhf),
    SYM(atanh), SYM(sinf), SYM(sin), SYM(cosf), SYM(cos), SYM(tanf),
    SYM(tan), SYM(asinf), SYM(asin), SYM(acosf), SYM(acos), SYM(atanf),
    SYM(atan), SYM(atan2f), SYM(atan2), SYM(fmodf), SYM(fmod),
    SYM(remainderf), SYM(remainder), SYM(fabsf), SYM(fabs), SYM(floorf),
    SYM(floor), SYM(ceilf), SYM(ceil), SYM(truncf), SYM(trunc),
    SYM(roundf), SYM(round), SYM(rintf), SYM(rint), SYM(nearbyintf),
    SYM(nearbyint), SYM(fminf), SYM(fmin), SYM(fmaxf), SYM(fmax),
    SYM(fmaf), SYM(fma), SYM(copysignf), SYM(copysign), SYM(ldexpf),
    SYM(ldexp), SYM(frexpf), SYM(frexp),
#if defined(__x86_64__) && defined(__FLT16_MAX__)
    {"__truncsfbf2", (void (*)(void))truncsfbf2},
#endif
};
#undef SYM

/* memcpy and friends are defined from their addresses too; listed apart
** because their pointer types differ from libm's. */
static void (*const memory_functions[])(void) = {
    (void (*)(void))memcpy, (void (*)(void))memmove, (void (*)(void))memset,
};
static const char *const memory_function_names[] = {"memcpy", "memmove",
                                                    "memset"};

static const size_t num_runtime_symbols =
    sizeof runtime_symbols / sizeof *runtime_symbols;
static const size_t num_memory_functions =
    sizeof memory_functions / sizeof *memory_functions;

size_t jit_runtime_symbol_count(void)
{
  return num_runtime_symbols + num_memory_functions;
}

/* A function's address as an object pointer, which is all a linker
** wants; ISO C converts between the two only through an integer. */
const char *jit_runtime_symbol_at(size_t i, void **address)
{
  if (i < num_runtime_symbols) {
    *address = (void *)(uintptr_t)runtime_symbols[i].address;
    return runtime_symbols[i].name;
  }
  i -= num_runtime_symbols;
  *address = (void *)(uintptr_t)memory_functions[i];
  return memory_function_names[i];
}

void *jit_runtime_symbol(const char *name)
{
  void *address;
  for (size_t i = 0; i < jit_runtime_symbol_count(); i++)
    if (!strcmp(jit_runtime_symbol_at(i, &address), name))
      return address;
  return NULL;
}
