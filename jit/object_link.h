/*
** object_link.h - a small in-process linker for one x86-64 ELF
** relocatable object (.o) as LLVM writes it for the host (PIC, small code
** model): what a compile cache hit runs its cached object with, because
** ORC would start LLVM (its static constructors alone are 20 ms) only to
** link a file that needs a few dozen relocations.
**
** It is deliberately not a general linker: one object at a time, no
** shared libraries, no thread-local storage, no constructors, no unwind
** tables (.eh_frame is not loaded: nothing unwinds through compiled
** code). Internal to jit/; nothing of LLVM is included or called.
*/
#ifndef GILT_JIT_OBJECT_LINK_H
#define GILT_JIT_OBJECT_LINK_H

#include <stdbool.h>
#include <stddef.h>

#include "ir/support/alloc.h" /* GILT_INTERNAL */

/* An object linked into memory of its own, ready to run. */
typedef struct ObjectLink ObjectLink;

/* Where the undefined symbol `name` of an object lies: its address, or
** NULL when the resolver does not know it. */
typedef void *(*ObjectLinkResolver)(const char *name, void *user);

/* Whether this host can link objects here (x86-64 ELF); false elsewhere,
** where callers keep using ORC. */
GILT_INTERNAL bool object_link_supported(void);

/* Links the object data[0..size) (borrowed: only read during the call)
** into memory of its own: its allocated sections laid out in one mapping
** (code, then read-only data and the GOT, then writable data, each on
** pages of its own, then protected read-execute, read-only and
** read-write), its undefined symbols found through resolve(name, user)
** (resolve may be NULL) and, when that returns NULL, in the process
** (dlsym); a weak one found nowhere is 0. Calls too far for a 32-bit
** displacement go through a stub. The caller owns the result
** (object_link_destroy). NULL after reporting at loc: not an x86-64
** relocatable ELF object, a truncated or inconsistent one (every offset
** and index is checked: a damaged file is a diagnostic, never a crash),
** a section or relocation type it does not handle, an undefined symbol
** nobody defines, a displacement out of range, or out of memory. */
GILT_INTERNAL ObjectLink *object_link_create(const void *data, size_t size,
                                             ObjectLinkResolver resolve,
                                             void *user, GiltLocation *loc);

/* The address of the global or weak symbol `name` the object defines;
** NULL when it defines none. */
GILT_INTERNAL void *object_link_lookup(const ObjectLink *link,
                                       const char *name);

/* Unmaps the object's memory and frees the link; NULL is ignored. */
GILT_INTERNAL void object_link_destroy(ObjectLink *link);

#endif /* GILT_JIT_OBJECT_LINK_H */
