/*
** host_cpu.h - the host's CPU, read without starting LLVM: what a compile
** cache key and the default pipeline need to know of it before anything
** is compiled.
**
** A cache hit must not start LLVM (llvm_initialize: its static
** constructors alone are 20 ms), yet its key depends on the CPU the cached
** code was compiled for, and the key's pipeline on the CPU's vector width.
** On x86-64 both come from CPUID and XGETBV, as LLVM's own host detection
** reads them; on other hosts from LLVM's host CPU name and features, which
** starts LLVM.
*/
#ifndef GILT_JIT_HOST_CPU_H
#define GILT_JIT_HOST_CPU_H

#include "ir/support/alloc.h"

/* A string that differs between two hosts whenever code compiled for one
** with -march=native may not run, or run differently, on the other: part
** of a compile cache key. A new string (free()), or NULL when out of
** memory. */
GILT_INTERNAL char *host_cpu_fingerprint(void);

/* The widest vector registers the host and its operating system support,
** in bits: 512 (AVX-512F), 256 (AVX) or 128. Read once. */
GILT_INTERNAL unsigned host_cpu_vector_bits(void);

#endif /* GILT_JIT_HOST_CPU_H */
