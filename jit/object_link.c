/*
** object_link.c - an x86-64 ELF relocatable object linked in process,
** for the one kind gilt's compile cache holds: LLVM's, for the host, PIC,
** small code model (object_link.h says why not ORC).
**
** The loaded sections lie in one anonymous mapping of at most 2 GB, so
** that 32-bit displacements between them always fit: code and the call
** stubs, then read-only data and the GOT, then writable data and the
** common symbols, each group on pages of its own, protected once
** relocated. A first pass over the relocations checks them and counts
** the GOT slots and stubs to reserve, before anything is mapped; a second
** applies them. No instruction is relaxed: a GOT slot holds the symbol's
** address. A call (PLT32) to an undefined symbol too far for its
** displacement, as libm's and gilt's own functions usually are from an
** anonymous mapping, goes through a stub (`jmp *0(%rip)`, the address). A
** PC32 never does, since it may read data, which would then read the
** stub: LLVM writes PLT32 for calls and GOTPCREL for data it does not
** know to be local.
**
** The file is read, never trusted: every offset, size and index is
** checked before use, and its structures are copied out (memcpy: the
** bytes need not be aligned). Not handled: thread-local storage,
** constructors, unwinding (.eh_frame is not loaded), SHT_REL, and
** extended section numbering.
*/
#define _GNU_SOURCE /* RTLD_DEFAULT, MAP_ANONYMOUS */
#include "jit/object_link.h"

#if defined(__x86_64__) && defined(__ELF__)

#include <dlfcn.h>
#include <elf.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* A symbol the object defines for others, for object_link_lookup. */
typedef struct ExportedSymbol {
  const char *name;
  void *address;
} ExportedSymbol;

struct ObjectLink {
  unsigned char *image; /* the mapping, image_size bytes */
  size_t image_size;
  size_t num_exports;
  ExportedSymbol *exports; /* sorted by name; the names follow them */
};

/* The image's limit: every displacement within it fits in 32 bits. */
#define MAX_IMAGE_SIZE ((uint64_t)1 << 31)
#define NOT_LOADED UINT64_MAX
/* `jmp *0(%rip)` (6 bytes), the 8-byte address, padding. */
#define STUB_SIZE 16

enum { GROUP_CODE, GROUP_READ_ONLY, GROUP_WRITABLE, NUM_GROUPS };

/* What the linker knows of one symbol of the object. */
typedef struct SymbolState {
  uint64_t address;   /* S, once known */
  uint64_t common_at; /* a common symbol's offset in the image */
  uint32_t got, stub; /* its GOT slot and stub, numbered from 1; 0: none */
  bool known;
} SymbolState;

/* One object being linked. */
typedef struct Linker {
  const unsigned char *data;
  size_t size;
  ObjectLinkResolver resolve;
  void *user;
  GiltLocation *loc;
  Elf64_Shdr *sections; /* copied out of the file, each checked */
  size_t num_sections, shstrtab, symtab, strtab; /* section indices */
  size_t num_symbols;
  SymbolState *symbols;
  uint64_t *section_at; /* each section's offset in the image, NOT_LOADED */
  uint32_t num_got, num_stubs;
  uint64_t stubs_at, got_at;
  uint64_t group_at[NUM_GROUPS + 1]; /* the last: the image's size */
  uint64_t image_size, page_size;
  unsigned char *image;
} Linker;

/* Reports at the linker's location; false, for `return fail(...)`. */
#define fail(L, ...) (gilt_emit_error((L)->loc, __VA_ARGS__), false)
#define damaged(L, what) fail(L, "object file is damaged: %s", what)

static bool loaded(const Linker *L, size_t section)
{
  return L->section_at[section] != NOT_LOADED;
}

/* The NUL-terminated string at `offset` of string table `table` (whose
** data read_sections checked); NULL when there is none. */
static const char *string_at(const Linker *L, size_t table, uint64_t offset)
{
  const Elf64_Shdr *t = &L->sections[table];
  if (t->sh_type != SHT_STRTAB || offset >= t->sh_size)
    return NULL;
  const char *s = (const char *)L->data + t->sh_offset + offset;
  return memchr(s, '\0', t->sh_size - offset) ? s : NULL;
}

/* A section's name; "?" when damaged. */
static const char *section_name(const Linker *L, size_t section)
{
  const char *name = string_at(L, L->shstrtab, L->sections[section].sh_name);
  return name ? name : "?";
}

static Elf64_Sym symbol_at(const Linker *L, uint64_t index)
{
  Elf64_Sym sym;
  memcpy(&sym, L->data + L->sections[L->symtab].sh_offset + index * sizeof sym,
         sizeof sym);
  return sym;
}

/* A symbol's name, or its section's for a section symbol (which has
** none), for messages. */
static const char *symbol_label(const Linker *L, uint64_t index)
{
  Elf64_Sym sym = symbol_at(L, index);
  if (ELF64_ST_TYPE(sym.st_info) == STT_SECTION &&
      sym.st_shndx < L->num_sections)
    return section_name(L, sym.st_shndx);
  const char *name = string_at(L, L->strtab, sym.st_name);
  return name ? name : "?";
}

/* The ELF header and the section headers, copied into L->sections,
** each section's data within the file. */
static bool read_sections(Linker *L)
{
  Elf64_Ehdr eh = {0};
  if (L->size >= sizeof eh)
    memcpy(&eh, L->data, sizeof eh);
  if (memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_type != ET_REL ||
      eh.e_machine != EM_X86_64)
    return fail(L, "not an x86-64 ELF relocatable object");
  L->num_sections = eh.e_shnum;
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || L->num_sections == 0 ||
      eh.e_shoff > L->size ||
      (L->size - eh.e_shoff) / sizeof(Elf64_Shdr) < L->num_sections ||
      eh.e_shstrndx >= L->num_sections)
    return damaged(L, "its section header table is not within the file");
  L->sections = malloc(L->num_sections * sizeof *L->sections);
  L->section_at = malloc(L->num_sections * sizeof *L->section_at);
  if (!L->sections || !L->section_at)
    return fail(L, "out of memory linking an object");
  memcpy(L->sections, L->data + eh.e_shoff,
         L->num_sections * sizeof *L->sections);
  for (size_t i = 0; i < L->num_sections; i++) {
    const Elf64_Shdr *s = &L->sections[i];
    if (s->sh_type != SHT_NOBITS && s->sh_type != SHT_NULL &&
        (s->sh_offset > L->size || s->sh_size > L->size - s->sh_offset))
      return damaged(L, "a section's data is not within the file");
  }
  L->shstrtab = eh.e_shstrndx;
  return true;
}

/* The one symbol table and its strings. */
static bool find_symbols(Linker *L)
{
  for (L->symtab = 0; L->symtab < L->num_sections; L->symtab++)
    if (L->sections[L->symtab].sh_type == SHT_SYMTAB)
      break;
  if (L->symtab == L->num_sections)
    return damaged(L, "it has no symbol table");
  const Elf64_Shdr *s = &L->sections[L->symtab];
  L->strtab = s->sh_link;
  if (s->sh_entsize != sizeof(Elf64_Sym) || s->sh_size % sizeof(Elf64_Sym) ||
      L->strtab >= L->num_sections ||
      L->sections[L->strtab].sh_type != SHT_STRTAB)
    return damaged(L, "its symbol table is malformed");
  L->num_symbols = s->sh_size / sizeof(Elf64_Sym);
  /* One more than needed, so that none is not a failed calloc(0). */
  L->symbols = calloc(L->num_symbols + 1, sizeof *L->symbols);
  return L->symbols ? true : fail(L, "out of memory linking an object");
}

/* Which sections are loaded: the allocated ones that hold code or data,
** not the unwind tables. */
static bool choose_sections(Linker *L)
{
  for (size_t i = 0; i < L->num_sections; i++) {
    const Elf64_Shdr *s = &L->sections[i];
    L->section_at[i] = NOT_LOADED;
    if (!(s->sh_flags & SHF_ALLOC) || s->sh_type == SHT_X86_64_UNWIND ||
        s->sh_type == SHT_NOTE || !strcmp(section_name(L, i), ".eh_frame"))
      continue;
    if ((s->sh_type != SHT_PROGBITS && s->sh_type != SHT_NOBITS) ||
        (s->sh_flags & SHF_TLS))
      return fail(L,
                  "section '%s' (type %" PRIu32 ", flags %#" PRIx64
                  ") cannot be loaded: only code and data can",
                  section_name(L, i), s->sh_type, s->sh_flags);
    L->section_at[i] = 0;
  }
  return true;
}

/* How many bytes a relocation type writes; -1 for a type not handled. */
static int relocation_width(uint32_t type)
{
  switch (type) {
  case R_X86_64_NONE:
    return 0;
  case R_X86_64_64:
  case R_X86_64_PC64:
  case R_X86_64_GOTPC64:
    return 8;
  case R_X86_64_PC32:
  case R_X86_64_PLT32:
  case R_X86_64_32:
  case R_X86_64_32S:
  case R_X86_64_GOTPCREL:
  case R_X86_64_GOTPCRELX:
  case R_X86_64_REX_GOTPCRELX:
  case R_X86_64_GOTPC32:
    return 4;
  default:
    return -1;
  }
}

static bool uses_got_slot(uint32_t type)
{
  return type == R_X86_64_GOTPCREL || type == R_X86_64_GOTPCRELX ||
         type == R_X86_64_REX_GOTPCRELX;
}

/* One relocation of relocation section `rela`, which applies to a loaded
** section. */
typedef bool (*RelocationStep)(Linker *L, size_t rela, const Elf64_Rela *r);

/* Runs `step` on every relocation of the loaded sections, in order. */
static bool visit_relocations(Linker *L, RelocationStep step)
{
  for (size_t i = 0; i < L->num_sections; i++) {
    const Elf64_Shdr *s = &L->sections[i];
    if (s->sh_type != SHT_RELA && s->sh_type != SHT_REL)
      continue;
    if (s->sh_info >= L->num_sections)
      return damaged(L, "a relocation section applies to no section");
    if (!loaded(L, s->sh_info))
      continue;
    if (s->sh_type == SHT_REL)
      return fail(L,
                  "relocations without addends (section '%s') are not "
                  "supported",
                  section_name(L, i));
    if (s->sh_link != L->symtab || s->sh_entsize != sizeof(Elf64_Rela) ||
        s->sh_size % sizeof(Elf64_Rela) ||
        L->sections[s->sh_info].sh_type == SHT_NOBITS)
      return damaged(L, "a relocation section is malformed");
    for (uint64_t at = 0; at < s->sh_size; at += sizeof(Elf64_Rela)) {
      Elf64_Rela r;
      memcpy(&r, L->data + s->sh_offset + at, sizeof r);
      if (!step(L, i, &r))
        return false;
    }
  }
  return true;
}

/* The first pass: checks the relocation, and numbers the GOT slot or the
** stub it may need. */
static bool reserve(Linker *L, size_t rela, const Elf64_Rela *r)
{
  uint32_t type = ELF64_R_TYPE(r->r_info);
  uint64_t index = ELF64_R_SYM(r->r_info);
  const Elf64_Shdr *target = &L->sections[L->sections[rela].sh_info];
  int width = relocation_width(type);
  if (width < 0)
    return fail(L,
                "relocation type %" PRIu32 " in section '%s' is not "
                "supported",
                type, section_name(L, rela));
  if (index >= L->num_symbols || r->r_offset > target->sh_size ||
      target->sh_size - r->r_offset < (uint64_t)width)
    return damaged(L, "a relocation lies outside its section or symbols");
  SymbolState *st = &L->symbols[index];
  if (uses_got_slot(type) && !st->got)
    st->got = ++L->num_got;
  if (type == R_X86_64_PLT32 && !st->stub && index != 0 &&
      symbol_at(L, index).st_shndx == SHN_UNDEF)
    st->stub = ++L->num_stubs;
  return true;
}

/* Places `size` bytes aligned to `align` (a power of 2, at most a page)
** at the end of the image; their offset in *at. */
static bool place(Linker *L, uint64_t size, uint64_t align, uint64_t *at)
{
  uint64_t start = (L->image_size + align - 1) & ~(align - 1);
  if (size > MAX_IMAGE_SIZE || start > MAX_IMAGE_SIZE - size)
    return fail(L, "object file is too large to link (over 2 GB)");
  *at = start;
  L->image_size = start + size;
  return true;
}

/* Whether `align` is one the image can give what asks for it (`what`):
** a power of 2, at most a page (the image's own alignment); reports
** otherwise. */
static bool valid_alignment(Linker *L, uint64_t align, const char *what)
{
  if (align & (align - 1))
    return damaged(L, "an alignment is not a power of 2");
  if (align > L->page_size)
    return fail(L,
                "'%s' asks for an alignment of %" PRIu64
                " bytes, more than a page: not supported",
                what, align);
  return true;
}

static int group_of(const Elf64_Shdr *s)
{
  if (s->sh_flags & SHF_EXECINSTR)
    return GROUP_CODE;
  return s->sh_flags & SHF_WRITE ? GROUP_WRITABLE : GROUP_READ_ONLY;
}

/* Gives every loaded section, stub, GOT slot and common symbol its offset
** in the image. */
static bool lay_out(Linker *L)
{
  for (int g = 0; g < NUM_GROUPS; g++) {
    if (!place(L, 0, L->page_size, &L->group_at[g]))
      return false;
    for (size_t i = 0; i < L->num_sections; i++) {
      const Elf64_Shdr *s = &L->sections[i];
      uint64_t align = s->sh_addralign ? s->sh_addralign : 1;
      if (!loaded(L, i) || group_of(s) != g)
        continue;
      if (!valid_alignment(L, align, section_name(L, i)))
        return false;
      if (!place(L, s->sh_size, align, &L->section_at[i]))
        return false;
    }
    if (g == GROUP_CODE &&
        !place(L, (uint64_t)L->num_stubs * STUB_SIZE, 16, &L->stubs_at))
      return false;
    if (g == GROUP_READ_ONLY &&
        !place(L, (uint64_t)L->num_got * 8, 8, &L->got_at))
      return false;
    for (size_t i = 1; g == GROUP_WRITABLE && i < L->num_symbols; i++) {
      Elf64_Sym sym = symbol_at(L, i);
      uint64_t align = sym.st_value ? sym.st_value : 1;
      if (sym.st_shndx != SHN_COMMON)
        continue;
      if (!valid_alignment(L, align, symbol_label(L, i)))
        return false;
      if (!place(L, sym.st_size, align, &L->symbols[i].common_at))
        return false;
    }
  }
  uint64_t end;
  if (!place(L, 0, L->page_size, &end))
    return false;
  L->group_at[NUM_GROUPS] = end;
  L->image_size = end ? end : L->page_size; /* mmap maps no empty range */
  return true;
}

/* Maps the image and copies the sections' bytes into it; the rest, the
** NOBITS sections and common symbols included, stays zero. */
static bool map_image(Linker *L)
{
  void *image = mmap(NULL, L->image_size, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (image == MAP_FAILED)
    return fail(L, "out of memory linking an object (%" PRIu64 " bytes)",
                L->image_size);
  L->image = image;
  for (size_t i = 0; i < L->num_sections; i++) {
    const Elf64_Shdr *s = &L->sections[i];
    if (loaded(L, i) && s->sh_type == SHT_PROGBITS)
      memcpy(L->image + L->section_at[i], L->data + s->sh_offset, s->sh_size);
  }
  return true;
}

/* S for the symbol `index` (below L->num_symbols), found once: an
** undefined one through the resolver, then the process. */
static bool symbol_address(Linker *L, uint64_t index, uint64_t *S)
{
  SymbolState *st = &L->symbols[index];
  if (st->known || index == 0) { /* symbol 0 stands for none: S is 0 */
    *S = st->address;
    return true;
  }
  Elf64_Sym sym = symbol_at(L, index);
  const char *name = string_at(L, L->strtab, sym.st_name);
  size_t section = sym.st_shndx;
  if (!name)
    return damaged(L, "a symbol's name is not within its string table");
  if (section == SHN_UNDEF) {
    void *p = L->resolve ? L->resolve(name, L->user) : NULL;
    if (!p)
      p = dlsym(RTLD_DEFAULT, name);
    if (!p && ELF64_ST_BIND(sym.st_info) != STB_WEAK)
      return fail(L, "undefined symbol '%s' in the object", name);
    st->address = (uint64_t)(uintptr_t)p;
  } else if (section == SHN_ABS) {
    st->address = sym.st_value;
  } else if (section == SHN_COMMON) {
    st->address = (uint64_t)(uintptr_t)L->image + st->common_at;
  } else if (section >= SHN_LORESERVE) {
    return fail(L,
                "symbol '%s' has section index %#zx, which is not "
                "supported",
                symbol_label(L, index), section);
  } else if (section >= L->num_sections ||
             sym.st_value > L->sections[section].sh_size) {
    return damaged(L, "a symbol lies outside its section");
  } else if (!loaded(L, section)) {
    return fail(L, "symbol '%s' lies in section '%s', which is not loaded",
                symbol_label(L, index), section_name(L, section));
  } else {
    st->address =
        (uint64_t)(uintptr_t)L->image + L->section_at[section] + sym.st_value;
  }
  st->known = true;
  *S = st->address;
  return true;
}

static void put64(unsigned char *p, uint64_t v) { memcpy(p, &v, sizeof v); }

static bool fits_int32(uint64_t v) { return v + 0x80000000u <= UINT32_MAX; }

/* Writes the 32-bit field of relocation r, reporting a value that does
** not fit it: signed unless `zero_extended` (R_X86_64_32). */
static bool put32(Linker *L, size_t rela, const Elf64_Rela *r, unsigned char *p,
                  uint64_t v, bool zero_extended)
{
  if (zero_extended ? v > UINT32_MAX : !fits_int32(v))
    return fail(L,
                "relocation type %" PRIu32 " at '%s'+%#" PRIx64
                " to '%s' is out of range",
                (uint32_t)ELF64_R_TYPE(r->r_info),
                section_name(L, L->sections[rela].sh_info), r->r_offset,
                symbol_label(L, ELF64_R_SYM(r->r_info)));
  uint32_t field = (uint32_t)v;
  memcpy(p, &field, sizeof field);
  return true;
}

/* The second pass: applies a relocation reserve() checked. */
static bool apply(Linker *L, size_t rela, const Elf64_Rela *r)
{
  uint32_t type = ELF64_R_TYPE(r->r_info);
  uint64_t index = ELF64_R_SYM(r->r_info), S;
  unsigned char *p =
      L->image + L->section_at[L->sections[rela].sh_info] + r->r_offset;
  uint64_t P = (uint64_t)(uintptr_t)p, A = (uint64_t)r->r_addend;
  uint64_t got = (uint64_t)(uintptr_t)L->image + L->got_at;
  const SymbolState *st = &L->symbols[index];
  if (type == R_X86_64_NONE)
    return true;
  if (!symbol_address(L, index, &S))
    return false;
  switch (type) {
  case R_X86_64_64:
    put64(p, S + A);
    return true;
  case R_X86_64_PC64:
    put64(p, S + A - P);
    return true;
  case R_X86_64_GOTPC64:
    put64(p, got + A - P);
    return true;
  case R_X86_64_GOTPC32:
    return put32(L, rela, r, p, got + A - P, false);
  case R_X86_64_32:
  case R_X86_64_32S:
    return put32(L, rela, r, p, S + A, type == R_X86_64_32);
  case R_X86_64_PC32:
    return put32(L, rela, r, p, S + A - P, false);
  case R_X86_64_PLT32:
    if (st->stub && !fits_int32(S + A - P)) {
      static const unsigned char jmp_rip[6] = {0xff, 0x25, 0, 0, 0, 0};
      unsigned char *stub =
          L->image + L->stubs_at + (uint64_t)(st->stub - 1) * STUB_SIZE;
      memcpy(stub, jmp_rip, sizeof jmp_rip);
      put64(stub + sizeof jmp_rip, S);
      S = (uint64_t)(uintptr_t)stub;
    }
    return put32(L, rela, r, p, S + A - P, false);
  default: { /* GOTPCREL, GOTPCRELX, REX_GOTPCRELX: reserve() gave a slot */
    uint64_t slot = (uint64_t)(st->got - 1) * 8;
    put64(L->image + L->got_at + slot, S);
    return put32(L, rela, r, p, got + slot + A - P, false);
  }
  }
}

/* Protects each group of pages as its contents need, now relocated. */
static bool protect(Linker *L)
{
  static const int modes[NUM_GROUPS] = {PROT_READ | PROT_EXEC, PROT_READ,
                                        PROT_READ | PROT_WRITE};
  for (int g = 0; g < NUM_GROUPS; g++) {
    uint64_t start = L->group_at[g], end = L->group_at[g + 1];
    if (end > start && mprotect(L->image + start, end - start, modes[g]))
      return fail(L, "cannot protect a linked object's pages");
  }
  return true;
}

/* Whether symbol `index` is one object_link_lookup finds: defined,
** global or weak, in a loaded section (or absolute or common). */
static bool exported(const Linker *L, uint64_t index, const char **name)
{
  Elf64_Sym sym = symbol_at(L, index);
  int bind = ELF64_ST_BIND(sym.st_info);
  *name = string_at(L, L->strtab, sym.st_name);
  return (bind == STB_GLOBAL || bind == STB_WEAK) && *name && **name &&
         sym.st_shndx != SHN_UNDEF &&
         (sym.st_shndx >= L->num_sections || loaded(L, sym.st_shndx));
}

static int compare_exports(const void *a, const void *b)
{
  return strcmp(((const ExportedSymbol *)a)->name,
                ((const ExportedSymbol *)b)->name);
}

/* The link, with its table of exported symbols (names copied). */
static ObjectLink *make_link(Linker *L)
{
  size_t n = 0, name_bytes = 0;
  const char *name;
  uint64_t S;
  for (uint64_t i = 1; i < L->num_symbols; i++)
    if (exported(L, i, &name)) {
      if (!symbol_address(L, i, &S))
        return NULL;
      n++;
      name_bytes += strlen(name) + 1;
    }
  ObjectLink *link =
      malloc(sizeof *link + n * sizeof(ExportedSymbol) + name_bytes);
  if (!link) {
    gilt_emit_error(L->loc, "out of memory linking an object");
    return NULL;
  }
  *link =
      (ObjectLink){L->image, L->image_size, n, (ExportedSymbol *)(link + 1)};
  char *names = (char *)(link->exports + n);
  n = 0;
  for (uint64_t i = 1; i < L->num_symbols; i++)
    if (exported(L, i, &name)) {
      size_t len = strlen(name) + 1;
      link->exports[n++] = (ExportedSymbol){
          memcpy(names, name, len), (void *)(uintptr_t)L->symbols[i].address};
      names += len;
    }
  qsort(link->exports, n, sizeof *link->exports, compare_exports);
  return link;
}

bool object_link_supported(void) { return true; }

ObjectLink *object_link_create(const void *data, size_t size,
                               ObjectLinkResolver resolve, void *user,
                               GiltLocation *loc)
{
  Linker L = {.data = data,
              .size = size,
              .resolve = resolve,
              .user = user,
              .loc = loc,
              .page_size = (uint64_t)sysconf(_SC_PAGESIZE)};
  ObjectLink *link = NULL;
  if (read_sections(&L) && find_symbols(&L) && choose_sections(&L) &&
      visit_relocations(&L, reserve) && lay_out(&L) && map_image(&L) &&
      visit_relocations(&L, apply) && protect(&L))
    link = make_link(&L);
  if (!link && L.image)
    munmap(L.image, L.image_size);
  free(L.sections);
  free(L.section_at);
  free(L.symbols);
  return link;
}

void *object_link_lookup(const ObjectLink *link, const char *name)
{
  ExportedSymbol key = {name, NULL};
  const ExportedSymbol *found = bsearch(&key, link->exports, link->num_exports,
                                        sizeof key, compare_exports);
  return found ? found->address : NULL;
}

void object_link_destroy(ObjectLink *link)
{
  if (!link)
    return;
  munmap(link->image, link->image_size);
  free(link);
}

#else /* not x86-64 ELF: the callers keep to ORC */

bool object_link_supported(void) { return false; }

ObjectLink *object_link_create(const void *data, size_t size,
                               ObjectLinkResolver resolve, void *user,
                               GiltLocation *loc)
{
  (void)data, (void)size, (void)resolve, (void)user;
  gilt_emit_error(loc, "linking objects in process is not supported on "
                       "this host");
  return NULL;
}

void *object_link_lookup(const ObjectLink *link, const char *name)
{
  (void)link, (void)name;
  return NULL;
}

void object_link_destroy(ObjectLink *link) { (void)link; }

#endif
