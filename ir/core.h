/*
** core.h - the data model of gilt's IR, shared by the files of ir/.
**
** The structures behind the public opaque handles: interned identifiers,
** uniqued types, attributes and locations (immortal, compared by pointer),
** and the mutable operations, blocks, regions and values with their
** intrusive use lists. This header is the contract between context.c,
** types.c, attributes.c, location.c, operation.c, builder.c, the parser,
** the printer, the verifier and the passes. It is not public: embedders see
** only include/gilt/.
*/
#ifndef GILT_IR_CORE_H
#define GILT_IR_CORE_H

#include "gilt/dialect.h"
#include "gilt/ir.h"
#include "ir/support/alloc.h"

typedef struct GiltOpInfo GiltOpInfo;
typedef struct GiltOpDef GiltOpDef;
typedef struct GiltDialectInfo GiltDialectInfo;
typedef struct GiltResourceBlob GiltResourceBlob;
typedef struct GiltParametricDef GiltParametricDef;

/* ---- identifiers: interned strings, compared by pointer ---------------- */

typedef struct GiltIdent {
  uint32_t hash;
  uint32_t len;
  char str[]; /* NUL-terminated */
} GiltIdent;

GILT_INTERNAL GiltIdent *gilt_ident_get(GiltContext *ctx, const char *str,
                                        size_t len);
GILT_INTERNAL GiltIdent *gilt_ident_get_cstr(GiltContext *ctx,
                                             const char *str);

/* ---- types -------------------------------------------------------------- */

/* The payload of a dialect-defined type or attribute (dialect_types.c):
** its definition in its dialect's table and its parameters. */
typedef struct GiltDialectValue {
  const GiltParametricDef *def;
  GiltDialectInfo *dialect;
  size_t n;
  GiltAttr *const *params;
} GiltDialectValue;

struct GiltType {
  GiltTypeKind kind;
  uint32_t hash;
  GiltContext *ctx;
  union {
    struct {
      unsigned width;
      GiltSignedness sign;
    } integer;
    GiltFloatKind fkind;
    struct {                /* tensor, memref, vector */
      bool ranked;          /* false only for tensor<*x...> */
      size_t rank;
      const int64_t *shape; /* GILT_DYNAMIC for `?` */
      GiltType *elem;
      GiltAttr *encoding;     /* tensor only; NULL if none */
      GiltAttr *layout;       /* memref only; NULL = identity */
      GiltAttr *memory_space; /* memref only; NULL = default */
    } shaped;
    struct {
      size_t num_inputs, num_results;
      GiltType *const *types; /* inputs then results */
    } func;
    struct {
      GiltIdent *dialect;
      GiltIdent *body; /* text between `<` `>` (or after the dot) */
    } opaque;
    GiltDialectValue dialect; /* DIALECT */
  };
};

GILT_INTERNAL GiltType *gilt_opaque_type_get(GiltContext *ctx,
                                             const char *dialect,
                                             const char *body,
                                             size_t body_len);
/* Keeps the low `width` bits of v, sign-extended when `sign` (zero-extended
** otherwise): how gilt stores an iN value in 64 bits. i0 holds only 0. */
GILT_INTERNAL int64_t gilt_int_extend(uint64_t v, unsigned width, bool sign);
/* Size in bytes of one element of this integer/index/float type as stored
** in dense attributes and buffers (i1 takes one byte, index eight). */
GILT_INTERNAL size_t gilt_type_get_storage_size(GiltType *t);
/* The bytes the elements of shaped type t occupy (the element count times
** gilt_type_get_storage_size of the element type); false when the shape
** is not static or the count or the size overflows. */
GILT_INTERNAL bool gilt_shaped_type_get_byte_size(GiltType *t, size_t *nbytes);

/* ---- attributes --------------------------------------------------------- */

typedef struct GiltNamedAttrI {
  GiltIdent *name;
  GiltAttr *attr;
} GiltNamedAttrI;

struct GiltResourceBlob {
  GiltIdent *name;
  size_t nbytes;
  uint8_t *data; /* NULL for `__elided__` and once released */
  GiltBlobDeleter deleter; /* releases data when the context goes; or NULL */
  void *deleter_user;
  GiltResourceBlob *next;
};

struct GiltAttr {
  GiltAttrKind kind;
  uint32_t hash;
  GiltContext *ctx;
  GiltType *type; /* see gilt_attr_get_type */
  union {
    int64_t i;   /* INTEGER */
    double f;    /* FLOAT */
    bool b;      /* BOOL */
    struct {     /* STRING */
      size_t len;
      const char *data; /* NUL-terminated */
    } str;
    struct {     /* ARRAY */
      size_t n;
      GiltAttr *const *elems;
    } array;
    struct {     /* DICTIONARY: sorted by name, names unique */
      size_t n;
      const GiltNamedAttrI *entries;
    } dict;
    struct {     /* SYMBOL_REF: names[0] is the root */
      size_t n;
      GiltIdent *const *names;
    } symref;
    struct {     /* DENSE_ELEMENTS */
      bool splat;
      size_t nbytes;
      const uint8_t *data;
    } dense;
    GiltResourceBlob *resource; /* DENSE_RESOURCE */
    struct {     /* DENSE_ARRAY: `type` is the element type */
      size_t n;
      const uint8_t *data; /* n elements of the type's storage size */
    } darray;
    struct {     /* STRIDED_LAYOUT */
      int64_t offset;
      size_t rank;
      const int64_t *strides;
    } strided;
    struct {     /* OPAQUE */
      GiltIdent *dialect;
      GiltIdent *body;
    } opaque;
    GiltDialectValue dialect; /* DIALECT */
  };
};

/* Dictionary from entries that are already sorted and unique. */
GILT_INTERNAL GiltAttr *gilt_dictionary_attr_get_sorted(
    GiltContext *ctx, size_t n, const GiltNamedAttrI *entries);
/* Sorts (stable) and checks uniqueness; NULL and *dup set on a repeat. */
GILT_INTERNAL GiltAttr *gilt_dictionary_attr_get_i(GiltContext *ctx,
                                                   size_t n,
                                                   const GiltNamedAttrI *e,
                                                   GiltIdent **dup);
GILT_INTERNAL GiltAttr *gilt_dictionary_attr_lookup_ident(GiltAttr *dict,
                                                          GiltIdent *name);
GILT_INTERNAL GiltAttr *gilt_empty_dictionary_attr_get(GiltContext *ctx);
GILT_INTERNAL GiltAttr *gilt_opaque_attr_get(GiltContext *ctx,
                                             const char *dialect,
                                             const char *body,
                                             size_t body_len);
GILT_INTERNAL GiltAttr *gilt_symbol_ref_attr_get_i(GiltContext *ctx,
                                                   size_t n,
                                                   GiltIdent *const *names);
/* Looks up (or creates, with data NULL) the named blob. */
GILT_INTERNAL GiltResourceBlob *gilt_resource_blob_lookup(GiltContext *ctx,
                                                          const char *name);
GILT_INTERNAL GiltAttr *gilt_dense_resource_attr_get_blob(
    GiltType *type, GiltResourceBlob *blob);
/* Constants a pass computed: up to this many elements print in place
** (dense elements), more become a resource printed by name. */
#define GILT_INLINE_ELEMENTS 64
/* Weights of this many bytes or more start on a page: where in a 4 KB
** page the weights of ResNet-18 began moved the whole model by 7 to 9%
** (compiled ahead of time, bench/ab_aot.py over both link orders;
** docs/performance.md), and a page boundary was the fast place. */
#define GILT_WEIGHT_PAGE 4096
/* Where a weight of `nbytes` starts: on a page when it is GILT_WEIGHT_PAGE
** bytes or more, else on `small_align`. The one rule for every place that
** lays weights out: objects, blobs, the JIT's copies, cache entries. */
static inline uint64_t gilt_weight_alignment(uint64_t nbytes,
                                             uint64_t small_align)
{
  return nbytes >= GILT_WEIGHT_PAGE ? GILT_WEIGHT_PAGE : small_align;
}
/* `nbytes` zeroed bytes, 64-byte aligned (on a page from
** GILT_WEIGHT_PAGE bytes), for gilt_dense_attr_take. */
GILT_INTERNAL void *gilt_blob_alloc(GiltContext *ctx, size_t nbytes);
/* Such a constant of `type` from `nbytes` bytes at `data` (from
** gilt_blob_alloc on type's context), which the call takes: dense elements
** when small (the bytes freed), else a resource named after `name`
** holding the bytes without a copy, nor a hash of them. NULL after
** reporting (the bytes freed), as gilt_dense_elements_attr_get and
** gilt_dense_resource_attr_take. */
GILT_INTERNAL GiltAttr *gilt_dense_attr_take(GiltType *type, const char *name,
                                             void *data, size_t nbytes);
/* Gives a blob's bytes back to their owner (the context's destruction). */
GILT_INTERNAL void gilt_resource_blob_release(GiltResourceBlob *blob);
/* Number of elements a dense elements attribute stands for. */
GILT_INTERNAL int64_t gilt_dense_attr_get_num_elements(GiltAttr *a);
/* Element i (splat-aware) read as int64 / double. */
GILT_INTERNAL int64_t gilt_dense_attr_get_int(GiltAttr *a, int64_t i);
GILT_INTERNAL double gilt_dense_attr_get_float(GiltAttr *a, int64_t i);
/* Why `t` cannot be a dense array's element type (a message), or NULL. */
GILT_INTERNAL const char *gilt_dense_array_check_element_type(GiltType *t);

/* Dialect-defined types and attributes, uniqued without verification
** (types.c, attributes.c): for dialect_types.c, which verifies first. */
GILT_INTERNAL GiltType *gilt_dialect_type_get_unchecked(
    GiltContext *ctx, const GiltDialectValue *v);
GILT_INTERNAL GiltAttr *gilt_dialect_attr_get_unchecked(
    GiltContext *ctx, const GiltDialectValue *v);
/* The same with verification: NULL after an error at loc (dialect_types.c).
** The parser calls these with the definition it looked up. */
GILT_INTERNAL GiltType *gilt_dialect_type_get_verified(
    GiltContext *ctx, const GiltDialectValue *v, GiltLocation *loc);
GILT_INTERNAL GiltAttr *gilt_dialect_attr_get_verified(
    GiltContext *ctx, const GiltDialectValue *v, GiltLocation *loc);
/* Runs the encoding's verify_encoding hook, if it is a dialect attribute
** that has one, for a tensor of this shape and element type; reports at
** loc (dialect_types.c). */
GILT_INTERNAL GiltStatus gilt_tensor_encoding_verify(GiltLocation *loc,
                                                     GiltAttr *encoding,
                                                     size_t rank,
                                                     const int64_t *shape,
                                                     GiltType *elem);

/* ---- locations ---------------------------------------------------------- */

typedef enum GiltLocationKind {
  GILT_LOC_UNKNOWN,
  GILT_LOC_FILE_LINE_COL,
  GILT_LOC_NAME,
  GILT_LOC_FUSED,
  GILT_LOC_CALLSITE
} GiltLocationKind;

struct GiltLocation {
  GiltLocationKind kind;
  uint32_t hash;
  GiltContext *ctx;
  union {
    struct {
      GiltIdent *file;
      unsigned line, col;
      GiltLocation *next_on_line; /* same file and line, other column */
    } flc;
    struct {
      GiltIdent *name;
      GiltLocation *child; /* never NULL: unknown if none */
    } name;
    struct {
      size_t n;
      GiltLocation *const *locs;
      GiltAttr *metadata; /* NULL if none */
    } fused;
    struct {
      GiltLocation *callee, *caller;
    } callsite;
  };
};

/* One list of the nodes of a and b, as a fused location without
** metadata: a list already (a fusion's) brings its members, so that
** fusing again keeps one flat list (Conv + Add + Relu), as gjit
** --profile and diagnostics name them. */
GILT_INTERNAL GiltLocation *gilt_location_fused_flat(GiltLocation *a,
                                                     GiltLocation *b);
GILT_INTERNAL GiltLocation *gilt_location_callsite_get(GiltLocation *callee,
                                                       GiltLocation *caller);
/* gilt_location_file_line_col_get with the file already interned (the
** parser asks for one per op). */
GILT_INTERNAL GiltLocation *gilt_location_file_line_col_get_ident(
    GiltContext *ctx, GiltIdent *file, unsigned line, unsigned col);
/* The first file:line:col location inside `loc` (through names, fused and
** call sites), NULL if none. Diagnostics use it to quote source. */
GILT_INTERNAL GiltLocation *gilt_location_find_file_line_col(
    GiltLocation *loc);
/* The name that diagnostics print for `loc` (see gilt_location_get_name),
** NULL if none. */
GILT_INTERNAL GiltIdent *gilt_location_find_name(GiltLocation *loc);

/* ---- values, operands, operations, blocks, regions ---------------------- */

struct GiltValue {
  GiltType *type;
  GiltOperand *first_use;
  union {
    GiltOp *op;       /* results */
    GiltBlock *block; /* block arguments */
  } owner;
  uint32_t index;
  bool is_block_arg;
};

/* A block argument: a value and where it was declared (a result's location
** is its op's, so results do not pay for the field). */
typedef struct GiltBlockArg {
  GiltValue value; /* first: a GiltValue * of a block argument points here */
  GiltLocation *loc;
} GiltBlockArg;

static inline GiltLocation **gilt_block_arg_loc(GiltValue *arg)
{
  return &((GiltBlockArg *)arg)->loc;
}

/* One use of a value: the operand slot of an op. */
struct GiltOperand {
  GiltValue *value;
  GiltOp *owner;
  GiltOperand *next_use;
  GiltOperand **prev_next; /* the pointer that points at this use */
};

/* One use of a block: a successor slot of a terminator. */
typedef struct GiltBlockOperand {
  GiltBlock *block;
  GiltOp *owner;
  struct GiltBlockOperand *next_use;
  struct GiltBlockOperand **prev_next;
} GiltBlockOperand;

struct GiltRegion {
  GiltOp *op; /* NULL while detached (in a GiltOpBuild) */
  GiltContext *ctx;
  GiltBlock *first, *last;
};

struct GiltBlock {
  GiltContext *ctx;
  GiltBlock *prev, *next;
  GiltRegion *region;
  GiltOp *first, *last;
  size_t num_args, cap_args;
  GiltValue **args;
  GiltBlockOperand *first_use; /* predecessors' successor slots */
  bool order_valid;            /* op->order numbers are up to date */
};

/* An op is allocated with its results, regions and successor slots right
** after it, in that order (the accessors below find them): three pointers
** fewer per op, which matters for a function of a million ops. Operands
** live apart because their number can change. */
struct GiltOp {
  GiltOp *prev, *next;
  GiltBlock *block;
  const GiltOpInfo *info;
  GiltLocation *loc;
  GiltAttr *attrs; /* sorted dictionary, never NULL */
  GiltOperand *operands;
  uint32_t order;  /* position in the block, see order_valid */
  uint32_t num_operands, num_results, num_regions, num_successors;
};

/* Like strchr, these take a const op and give mutable parts. */
static inline GiltValue *gilt_op_result_array(const GiltOp *op)
{
  return (GiltValue *)(op + 1);
}

static inline GiltRegion *gilt_op_region_array(const GiltOp *op)
{
  return (GiltRegion *)(gilt_op_result_array(op) + op->num_results);
}

static inline GiltBlockOperand *gilt_op_successor_array(const GiltOp *op)
{
  return (GiltBlockOperand *)(gilt_op_region_array(op) + op->num_regions);
}

/* An op under construction, as MLIR's OperationState; the parser and the
** custom parse hooks fill it. Regions are detached and owned by the build
** until gilt_op_build_finish moves their blocks into the op. Hooks outside
** the tree reach the fields through gilt/dialect.h's gilt_op_build_*
** accessors; gilt's own may use them directly. */
typedef struct GiltOpBuild {
  GiltContext *ctx;
  const GiltOpInfo *info;
  GiltLocation *loc;
  GILT_VEC(GiltValue *) operands;
  GILT_VEC(GiltType *) result_types;
  GILT_VEC(GiltNamedAttrI) attrs;
  GILT_VEC(GiltRegion *) regions;
  GILT_VEC(GiltBlock *) successors;
  /* Ask the op's inference hook for the result types (custom parsers and
  ** builders that give none); an empty result_types otherwise means none. */
  bool infer_result_types;
} GiltOpBuild;

/* Looks the name up; unregistered names get an info with no definition when
** the context allows unregistered dialects, else NULL and an error at loc. */
GILT_INTERNAL void gilt_op_build_init(GiltOpBuild *b, GiltContext *ctx,
                                      const GiltOpInfo *info,
                                      GiltLocation *loc);
/* Creates the op (consumes the build, also on failure). Infers result types
** when asked to (infer_result_types) through the op's hook. Duplicate
** attribute names are reported at the op's location. */
GILT_INTERNAL GiltOp *gilt_op_build_finish(GiltOpBuild *b);
/* Releases everything the build still owns. */
GILT_INTERNAL void gilt_op_build_discard(GiltOpBuild *b);

GILT_INTERNAL GiltRegion *gilt_region_create_detached(GiltContext *ctx);
GILT_INTERNAL void gilt_region_destroy_detached(GiltRegion *r);
/* Moves all blocks of src to the end of dst. */
GILT_INTERNAL void gilt_region_take_body(GiltRegion *dst, GiltRegion *src);
/* Destroys every block of the region (dropping uses first, so blocks may
** refer to each other in any order). */
GILT_INTERNAL void gilt_region_clear(GiltRegion *r);

/* Replaces all operands (the count may change). */
GILT_INTERNAL void gilt_op_set_operands(GiltOp *op, size_t n,
                                        GiltValue *const *values);
GILT_INTERNAL void gilt_op_set_successor(GiltOp *op, size_t i,
                                         GiltBlock *block);
/* Drops every use the op and its nested ops make (before erasing a group
** of ops that use each other). */
GILT_INTERNAL void gilt_op_drop_all_references(GiltOp *op);
/* Whether `a` comes before `b` in the same block (renumbers lazily). */
GILT_INTERNAL bool gilt_op_is_before_in_block(GiltOp *a, GiltOp *b);
/* Whether `op` is `ancestor` or nested somewhere inside it. */
GILT_INTERNAL bool gilt_op_is_ancestor(GiltOp *ancestor, GiltOp *op);
/* The op's ancestor (or itself) that sits directly in `block`, or NULL. */
GILT_INTERNAL GiltOp *gilt_block_find_ancestor_op(GiltBlock *block,
                                                  GiltOp *op);
/* Value clone mapping, used by gilt_op_clone and the inliner. */
typedef struct GiltIRMapping GiltIRMapping;
GILT_INTERNAL GiltIRMapping *gilt_ir_mapping_create(GiltContext *ctx);
GILT_INTERNAL void gilt_ir_mapping_destroy(GiltIRMapping *m);
GILT_INTERNAL void gilt_ir_mapping_map(GiltIRMapping *m, const void *from,
                                       void *to);
/* The image of a value or block, or `from` itself if unmapped. */
GILT_INTERNAL void *gilt_ir_mapping_lookup(GiltIRMapping *m,
                                           const void *from);
/* Clones op with operands remapped through `m`; records result and nested
** block/value images in `m`. */
GILT_INTERNAL GiltOp *gilt_op_clone_with_mapping(GiltOp *op,
                                                 GiltIRMapping *m);
/* Clones every block of `src` into the end of `dst` through `m`. */
GILT_INTERNAL void gilt_region_clone_into(GiltRegion *src, GiltRegion *dst,
                                          GiltIRMapping *m);

/* Whether regions a and b compute the same thing (equivalence.c): the
** same ops with the same attributes and types, operands and successors
** corresponding, block for block; locations aside. A value defined
** outside `a` must be the same value in `b`. */
GILT_INTERNAL bool gilt_regions_equivalent(GiltRegion *a, GiltRegion *b);
/* A hash that equivalent regions share. */
GILT_INTERNAL uint32_t gilt_region_hash(GiltRegion *r);

/* Says whether ops a and b, alike but for their attributes, may stand for
** each other; what it accepts it may record through `user`. */
typedef bool (*GiltAttrsMayDiffer)(GiltOp *a, GiltOp *b, void *user);
/* gilt_regions_equivalent, but a pair of ops whose attributes differ
** matches where `may_differ` accepts it (it sees every such pair until
** the comparison fails). */
GILT_INTERNAL bool gilt_regions_equivalent_except(GiltRegion *a,
                                                  GiltRegion *b,
                                                  GiltAttrsMayDiffer may_differ,
                                                  void *user);
/* gilt_region_hash leaving out the attributes of the ops `ignored` picks:
** regions that gilt_regions_equivalent_except finds alike where only
** such ops differ share it. */
GILT_INTERNAL uint32_t gilt_region_hash_except(GiltRegion *r,
                                               bool (*ignored)(GiltOp *op));
/* Whether ops a and b compute the same thing: the same name, attributes,
** operands and result types, and equivalent regions (as above). */
GILT_INTERNAL bool gilt_ops_equivalent(GiltOp *a, GiltOp *b);

/* ---- diagnostics -------------------------------------------------------- */

struct GiltDiagnostic {
  GiltSeverity severity;
  GiltLocation *loc;
  char *message;
  GILT_VEC(GiltDiagnostic *) notes;
  GiltContext *ctx;
};

/* Builds a diagnostic that can get notes before it is emitted. */
GILT_INTERNAL GiltDiagnostic *gilt_diag_create(GiltContext *ctx,
                                               GiltSeverity sev,
                                               GiltLocation *loc,
                                               const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
GILT_INTERNAL void gilt_diag_add_note(GiltDiagnostic *d, GiltLocation *loc,
                                      const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Hands the diagnostic to the handler and frees it. */
GILT_INTERNAL void gilt_diag_emit(GiltDiagnostic *d);
GILT_INTERNAL void gilt_emit_diag(GiltLocation *loc, GiltSeverity sev,
                                  const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Line `line` (from 1) of the source registered for `file`, without its
** newline, and its length; NULL if the file or the line is unknown. */
GILT_INTERNAL const char *gilt_context_get_source_line(GiltContext *ctx,
                                                       GiltIdent *file,
                                                       unsigned line,
                                                       size_t *len);

#endif /* GILT_IR_CORE_H */
