/*
** gilt/ir.h - the public C API of gilt's IR core.
**
** Everything an embedder needs to build, inspect, transform, parse and print
** IR: the context, types, attributes, locations, operations, blocks, regions,
** values, a builder and the diagnostics engine. All handles are opaque.
**
** A short worked example: build `func.func @add(%a: f32, %b: f32) -> f32`
** and print it.
**
**     GiltContext *ctx = gilt_context_create();
**     gilt_register_everything(ctx);      // gilt/register.h: func, graph, ...
**     GiltLocation *loc = gilt_location_unknown_get(ctx);
**     GiltOp *module = gilt_module_create(ctx, loc);
**     GiltType *f32 = gilt_float_type_get(ctx, GILT_F32);
**     GiltType *ins[2] = {f32, f32};
**     GiltType *fnty = gilt_function_type_get(ctx, 2, ins, 1, &f32);
**     GiltOp *fn = gilt_func_create(ctx, loc, "add", fnty);
**     gilt_block_append_op(gilt_module_get_body(module), fn);
**     GiltBlock *entry = gilt_func_get_entry_block(fn);
**     GiltBuilder *b = gilt_builder_create(ctx);
**     gilt_builder_set_insertion_point_to_end(b, entry);
**     GiltValue *args[2] = {gilt_block_get_argument(entry, 0),
**                           gilt_block_get_argument(entry, 1)};
**     GiltOpState st = gilt_op_state_get("func.return", loc);
**     st.num_operands = 2; st.operands = args;  // returns both, on purpose
**     ...
**     gilt_op_print(module, NULL, gilt_print_to_file, stdout);
**     gilt_builder_destroy(b);
**     gilt_context_destroy(ctx);          // frees every op, type, attribute
**
** Ownership follows the verbs: `_create` returns something the caller owns
** and must `_destroy` (or hand over by inserting it into IR), `_get` borrows.
** Types, attributes, locations and identifiers are uniqued and immortal: they
** live until their context is destroyed and compare equal by pointer.
** Fallible calls report a diagnostic through the context and return
** GILT_FAILURE or NULL; the library never prints or exits on its own.
*/
#ifndef GILT_IR_H
#define GILT_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define GILT_API __attribute__((visibility("default")))
#else
#define GILT_API
#endif

typedef struct GiltContext GiltContext;
typedef struct GiltType GiltType;
typedef struct GiltAttr GiltAttr;
typedef struct GiltLocation GiltLocation;
typedef struct GiltOp GiltOp;
typedef struct GiltBlock GiltBlock;
typedef struct GiltRegion GiltRegion;
typedef struct GiltValue GiltValue;
typedef struct GiltOperand GiltOperand;
typedef struct GiltBuilder GiltBuilder;
typedef struct GiltDiagnostic GiltDiagnostic;

/* The result of anything that can fail, as MLIR's LogicalResult. */
typedef enum GiltStatus { GILT_SUCCESS = 0, GILT_FAILURE = 1 } GiltStatus;

/* Receives printed text in pieces; `data` is not NUL-terminated. */
typedef void (*GiltStringCallback)(const char *data, size_t len, void *user);
/* A GiltStringCallback that writes to the FILE * passed as `user`. */
GILT_API void gilt_print_to_file(const char *data, size_t len, void *user);

/* ------------------------------------------------------------------------ */
/* Context                                                                  */
/* ------------------------------------------------------------------------ */

/* A realloc-like allocator: ptr NULL allocates, size 0 frees. */
typedef void *(*GiltReallocFn)(void *user, void *ptr, size_t size);

/* Creates a context that knows only the builtin dialect (builtin.module);
** register the dialects and passes it should know through gilt/register.h
** (gilt_register_everything for all of gilt). */
GILT_API GiltContext *gilt_context_create(void);
/* As above, with all memory obtained through `fn`. Returns NULL if the
** first allocation fails. */
GILT_API GiltContext *gilt_context_create_with_allocator(GiltReallocFn fn,
                                                         void *user);
/* Frees the context and everything it owns, including all IR created in it
** that was never destroyed. */
GILT_API void gilt_context_destroy(GiltContext *ctx);
/* Whether ops of dialects nobody registered may be created and parsed (as
** opaque ops). Default false, as in MLIR. */
GILT_API void gilt_context_set_allow_unregistered_dialects(GiltContext *ctx,
                                                           bool allow);
GILT_API bool gilt_context_get_allow_unregistered_dialects(GiltContext *ctx);
/* Whether an op of this name is registered. */
GILT_API bool gilt_context_is_registered_op(GiltContext *ctx,
                                            const char *name);

/* ------------------------------------------------------------------------ */
/* Diagnostics                                                              */
/* ------------------------------------------------------------------------ */

typedef enum GiltSeverity {
  GILT_SEVERITY_ERROR,
  GILT_SEVERITY_WARNING,
  GILT_SEVERITY_NOTE,
  GILT_SEVERITY_REMARK
} GiltSeverity;

/* Called for every diagnostic. The diagnostic is borrowed for the call only.
** With no handler installed, diagnostics are counted and dropped. */
typedef void (*GiltDiagnosticHandler)(const GiltDiagnostic *diag, void *user);
GILT_API void gilt_context_set_diagnostic_handler(GiltContext *ctx,
                                                  GiltDiagnosticHandler fn,
                                                  void *user);
/* Number of errors reported through this context so far. */
GILT_API size_t gilt_context_get_error_count(GiltContext *ctx);

GILT_API GiltSeverity gilt_diagnostic_get_severity(const GiltDiagnostic *d);
GILT_API GiltLocation *gilt_diagnostic_get_location(const GiltDiagnostic *d);
GILT_API const char *gilt_diagnostic_get_message(const GiltDiagnostic *d);
GILT_API size_t gilt_diagnostic_get_num_notes(const GiltDiagnostic *d);
GILT_API const GiltDiagnostic *gilt_diagnostic_get_note(const GiltDiagnostic *d,
                                                        size_t i);
/* Prints clang-style: `file:line:col: error: message`, the source line and
** a caret when the source buffer is known to the context, then the notes.
** When the location holds a name (gilt_location_get_name), the message is
** preceded by `in node 'NAME': `; a location with a name but no file
** position prints `NAME: error: message`. The message itself
** (gilt_diagnostic_get_message) carries no such prefix. */
GILT_API void gilt_diagnostic_print(const GiltDiagnostic *d, FILE *out);
/* The same text, handed to `cb` in one piece (not NUL-terminated): for
** callers that collect diagnostics rather than print them, such as the
** Python package, which raises them as exceptions. */
GILT_API void gilt_diagnostic_format(const GiltDiagnostic *d,
                                     GiltStringCallback cb, void *user);

/* Reports a diagnostic at `loc` (printf-style message). */
GILT_API void gilt_emit_error(GiltLocation *loc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Makes a source buffer known to the context so that diagnostics at
** locations in `filename` can quote the line. The buffer is copied. */
GILT_API void gilt_context_add_source_buffer(GiltContext *ctx,
                                             const char *filename,
                                             const char *buf, size_t len);
/* As above without the copy: the caller keeps `buf` alive and unchanged
** until the context is destroyed. Parsing the same text afterwards reuses
** it, which saves a copy of a large input. */
GILT_API void gilt_context_add_source_buffer_borrowed(GiltContext *ctx,
                                                      const char *filename,
                                                      const char *buf,
                                                      size_t len);

/* ------------------------------------------------------------------------ */
/* Types                                                                    */
/* ------------------------------------------------------------------------ */

typedef enum GiltTypeKind {
  GILT_TYPE_INTEGER,
  GILT_TYPE_INDEX,
  GILT_TYPE_FLOAT,
  GILT_TYPE_NONE,
  GILT_TYPE_TENSOR,
  GILT_TYPE_MEMREF,
  GILT_TYPE_VECTOR,
  GILT_TYPE_FUNCTION,
  GILT_TYPE_OPAQUE, /* `!dialect.body` of a dialect nobody registered */
  GILT_TYPE_DIALECT /* `!dialect.mnemonic<...>`: defined by its dialect */
} GiltTypeKind;

typedef enum GiltSignedness {
  GILT_SIGNLESS, /* iN */
  GILT_SIGNED,   /* siN */
  GILT_UNSIGNED  /* uiN */
} GiltSignedness;

typedef enum GiltFloatKind {
  GILT_F16,
  GILT_BF16,
  GILT_F32,
  GILT_F64,
  /* The 8-bit formats, MLIR's builtin types of the same names (ONNX's
  ** FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ); stored one
  ** byte per element, the bit pattern. */
  GILT_F8E4M3FN,   /* bias 7, no infinity, NaN S.1111.111, max 448 */
  GILT_F8E4M3FNUZ, /* bias 8, no infinity, no -0, NaN 0x80, max 240 */
  GILT_F8E5M2,     /* IEEE-like, bias 15, infinities, max 57344 */
  GILT_F8E5M2FNUZ  /* bias 16, no infinity, no -0, NaN 0x80, max 57344 */
} GiltFloatKind;

/* The size of a dynamic dimension (`?`) and of a dynamic stride/offset. */
#define GILT_DYNAMIC INT64_MIN

GILT_API GiltType *gilt_integer_type_get(GiltContext *ctx, unsigned width,
                                         GiltSignedness sign);
GILT_API GiltType *gilt_index_type_get(GiltContext *ctx);
GILT_API GiltType *gilt_float_type_get(GiltContext *ctx, GiltFloatKind kind);
GILT_API GiltType *gilt_none_type_get(GiltContext *ctx);
/* Shaped types (tensor, memref, vector) need an element type: `elem` is
** never NULL. `encoding` may be NULL (no layout encoding). */
GILT_API GiltType *gilt_tensor_type_get(GiltContext *ctx, size_t rank,
                                        const int64_t *shape, GiltType *elem,
                                        GiltAttr *encoding);
/* An unranked tensor, `tensor<*xf32>`. */
GILT_API GiltType *gilt_unranked_tensor_type_get(GiltContext *ctx,
                                                 GiltType *elem);
/* `layout` is NULL (identity) or a strided layout attribute;
** `memory_space` is NULL or any attribute. */
GILT_API GiltType *gilt_memref_type_get(GiltContext *ctx, size_t rank,
                                        const int64_t *shape, GiltType *elem,
                                        GiltAttr *layout,
                                        GiltAttr *memory_space);
GILT_API GiltType *gilt_vector_type_get(GiltContext *ctx, size_t rank,
                                        const int64_t *shape, GiltType *elem);
GILT_API GiltType *gilt_function_type_get(GiltContext *ctx, size_t num_inputs,
                                          GiltType *const *inputs,
                                          size_t num_results,
                                          GiltType *const *results);

GILT_API GiltContext *gilt_type_get_context(GiltType *t);
GILT_API GiltTypeKind gilt_type_get_kind(GiltType *t);
GILT_API bool gilt_type_is_integer(GiltType *t, unsigned width);
GILT_API bool gilt_type_is_float(GiltType *t);
GILT_API bool gilt_type_is_shaped(GiltType *t); /* tensor, memref, vector */
GILT_API unsigned gilt_integer_type_get_width(GiltType *t);
GILT_API GiltSignedness gilt_integer_type_get_signedness(GiltType *t);
GILT_API GiltFloatKind gilt_float_type_get_kind(GiltType *t);
/* The exact value of the bit pattern `bits` (in the low bits) of format
** k. NaN patterns give NaN, E5M2's and IEEE infinities infinity. */
GILT_API double gilt_float_bits_to_double(GiltFloatKind k, uint64_t bits);
/* The bit pattern of format k nearest to v, rounded once, to nearest, ties
** to even (subnormals included). Without `saturate`, a value whose
** rounding exceeds the largest finite one becomes infinity, or NaN in the
** formats without infinities (E4M3FN and the FNUZ formats), as MLIR's
** APFloat converts. `saturate` only changes the 8-bit formats, as ONNX's
** Cast does by default: such values, and infinities, become the largest
** finite value of their sign, except that infinities become NaN in the
** FNUZ formats. NaN stays NaN; -0 is +0 in the FNUZ formats. */
GILT_API uint64_t gilt_float_bits_from_double(GiltFloatKind k, double v,
                                              bool saturate);
/* Bit width of an integer or float type, 0 otherwise. */
GILT_API unsigned gilt_type_get_bit_width(GiltType *t);
GILT_API bool gilt_shaped_type_has_rank(GiltType *t);
GILT_API size_t gilt_shaped_type_get_rank(GiltType *t);
GILT_API int64_t gilt_shaped_type_get_dim(GiltType *t, size_t i);
GILT_API const int64_t *gilt_shaped_type_get_shape(GiltType *t);
GILT_API GiltType *gilt_shaped_type_get_element_type(GiltType *t);
GILT_API bool gilt_shaped_type_has_static_shape(GiltType *t);
/* Product of the dims; -1 when some dim is dynamic or the product
** overflows int64_t. */
GILT_API int64_t gilt_shaped_type_get_num_elements(GiltType *t);
GILT_API GiltAttr *gilt_tensor_type_get_encoding(GiltType *t);
GILT_API GiltAttr *gilt_memref_type_get_layout(GiltType *t);
GILT_API GiltAttr *gilt_memref_type_get_memory_space(GiltType *t);
GILT_API size_t gilt_function_type_get_num_inputs(GiltType *t);
GILT_API GiltType *gilt_function_type_get_input(GiltType *t, size_t i);
GILT_API size_t gilt_function_type_get_num_results(GiltType *t);
GILT_API GiltType *gilt_function_type_get_result(GiltType *t, size_t i);
GILT_API void gilt_type_print(GiltType *t, GiltStringCallback cb, void *user);

/* Types a dialect defines (`!llvm.ptr<1>`, `!test.struct<i32, f32>`): a
** registered dialect names them by mnemonic in its table, with hooks that
** parse, print and verify them. Such a type is its definition plus a list
** of parameters, each a uniqued attribute (integers, strings, types as
** type attributes, arrays of these...), and is uniqued by both, so equal
** types are the same pointer. docs/ir.md describes the mechanism.
**
** gilt_dialect_type_get returns `!dialect.mnemonic` with these parameters
** (copied), after the definition's verify hook has accepted them. It
** returns NULL after an error at `loc` (NULL: unknown location) when the
** dialect is not registered, defines no type of that mnemonic, a
** parameter is NULL, or verify rejects the parameters. */
GILT_API GiltType *gilt_dialect_type_get(GiltContext *ctx,
                                         const char *dialect,
                                         const char *mnemonic,
                                         size_t num_params,
                                         GiltAttr *const *params,
                                         GiltLocation *loc);
/* Whether t is a dialect-defined type (kind GILT_TYPE_DIALECT). */
GILT_API bool gilt_type_is_dialect(GiltType *t);
/* Whether t is the dialect-defined type `!dialect.mnemonic` (any
** parameters); false for every other type. */
GILT_API bool gilt_type_is_dialect_type(GiltType *t, const char *dialect,
                                        const char *mnemonic);
/* The parts of a dialect-defined type (t must be one); the strings and
** parameters are borrowed from the context. */
GILT_API const char *gilt_dialect_type_get_dialect(GiltType *t);
GILT_API const char *gilt_dialect_type_get_mnemonic(GiltType *t);
GILT_API size_t gilt_dialect_type_get_num_params(GiltType *t);
GILT_API GiltAttr *gilt_dialect_type_get_param(GiltType *t, size_t i);

/* ------------------------------------------------------------------------ */
/* Attributes                                                               */
/* ------------------------------------------------------------------------ */

typedef enum GiltAttrKind {
  GILT_ATTR_INTEGER,
  GILT_ATTR_FLOAT,
  GILT_ATTR_BOOL,
  GILT_ATTR_STRING,
  GILT_ATTR_ARRAY,
  GILT_ATTR_DICTIONARY,
  GILT_ATTR_TYPE,
  GILT_ATTR_SYMBOL_REF,
  GILT_ATTR_UNIT,
  GILT_ATTR_DENSE_ELEMENTS,
  GILT_ATTR_DENSE_RESOURCE,
  GILT_ATTR_STRIDED_LAYOUT,
  GILT_ATTR_OPAQUE, /* `#dialect.body` of a dialect nobody registered */
  GILT_ATTR_DENSE_ARRAY, /* `array<i32: 1, 2>` */
  GILT_ATTR_DIALECT /* `#dialect.mnemonic<...>`: defined by its dialect */
} GiltAttrKind;

typedef struct GiltNamedAttr {
  const char *name;
  GiltAttr *attr;
} GiltNamedAttr;

/* `type` is an integer or index type. */
GILT_API GiltAttr *gilt_integer_attr_get(GiltType *type, int64_t value);
/* `type` is a float type; the value is rounded to it. */
GILT_API GiltAttr *gilt_float_attr_get(GiltType *type, double value);
GILT_API GiltAttr *gilt_bool_attr_get(GiltContext *ctx, bool value);
GILT_API GiltAttr *gilt_string_attr_get(GiltContext *ctx, const char *str,
                                        size_t len);
GILT_API GiltAttr *gilt_array_attr_get(GiltContext *ctx, size_t n,
                                       GiltAttr *const *elems);
/* Entries are sorted by name; a repeated name is an error (returns NULL and
** reports at an unknown location). */
GILT_API GiltAttr *gilt_dictionary_attr_get(GiltContext *ctx, size_t n,
                                            const GiltNamedAttr *entries);
GILT_API GiltAttr *gilt_type_attr_get(GiltType *type);
/* `@root::@nested0::@nested1`. */
GILT_API GiltAttr *gilt_symbol_ref_attr_get(GiltContext *ctx, const char *root,
                                            size_t num_nested,
                                            const char *const *nested);
GILT_API GiltAttr *gilt_unit_attr_get(GiltContext *ctx);
/* Dense elements of a statically shaped tensor or vector type. `data` holds
** the elements packed little-endian (i1 as one byte each); nbytes equal to
** one element's size makes a splat. The data is copied. Returns NULL (and
** reports) when nbytes fits neither. */
GILT_API GiltAttr *gilt_dense_elements_attr_get(GiltType *type,
                                                const void *data,
                                                size_t nbytes);
/* A named blob held once by the context, printed by reference as
** `dense_resource<name>`; the bytes are copied. Naming a blob that already
** exists with other contents gets a fresh name (`name_1`, ...). */
GILT_API GiltAttr *gilt_dense_resource_attr_get(GiltType *type,
                                                const char *name,
                                                const void *data,
                                                size_t nbytes);
/* A dense array, `array<i32: 1, 2, 3>` (MLIR's DenseArrayAttr): n scalars
** of `elem_type`, packed little-endian as for dense elements (i1 as one
** byte each, 0 or 1); data may be NULL when n is 0. The element type is
** i1, an integer of 8 to 64 bits whose width is a multiple of 8 (signless,
** si or ui), or a float type. The data is copied. Returns NULL (and
** reports at an unknown location) for any other element type. */
GILT_API GiltAttr *gilt_dense_array_attr_get(GiltType *elem_type, size_t n,
                                             const void *data);
/* Releases bytes handed to gilt_dense_resource_attr_take. */
typedef void (*GiltBlobDeleter)(void *user, void *data, size_t nbytes);
/* As gilt_dense_resource_attr_get, without the copy: the context takes the
** `nbytes` bytes at `data` (which it never writes) and calls
** `deleter(user, data, nbytes)` exactly once when it needs them no more:
** when the context is destroyed; at once when a blob of that name holds
** the same bytes already (the attribute refers to that one); and at once
** when the call fails. The call consumes `data` even when it fails. A
** NULL deleter leaves the bytes with the caller, who keeps them alive and
** unchanged as long as the context. The bytes need no alignment (readers
** of dense data copy elements out with memcpy), so they may lie anywhere
** in a mapped file. Returns NULL (and reports) when `type` is not a
** statically shaped tensor or vector of integers or floats, or when
** `nbytes` is not the size of its elements. */
GILT_API GiltAttr *gilt_dense_resource_attr_take(GiltType *type,
                                                 const char *name,
                                                 void *data, size_t nbytes,
                                                 GiltBlobDeleter deleter,
                                                 void *user);
/* How many resource blobs the context has made so far: a mark for
** gilt_context_release_blobs. */
GILT_API size_t gilt_context_get_num_blobs(GiltContext *ctx);
/* Gives back (through their deleters) the bytes of every blob the context
** made after the first `since` that no attribute of `root`, or of an op
** inside it, refers to; returns how many bytes that was. Their attributes
** stay, without data, as a `dense_resource` parsed without its blob:
** printing names them, reading their elements reports that there is no
** data. For a caller that owns those blobs: gilt_model_create lets go of
** the weights a model's lowering repacked into new ones. */
GILT_API size_t gilt_context_release_blobs(GiltContext *ctx, size_t since,
                                           GiltOp *root);
/* `strided<[s0, s1], offset: o>`; GILT_DYNAMIC prints as `?`. */
GILT_API GiltAttr *gilt_strided_layout_attr_get(GiltContext *ctx,
                                                int64_t offset, size_t rank,
                                                const int64_t *strides);

GILT_API GiltContext *gilt_attr_get_context(GiltAttr *a);
GILT_API GiltAttrKind gilt_attr_get_kind(GiltAttr *a);
/* The type of typed attributes (integer, float, dense, TYPE's value for
** type attributes, the element type of dense arrays); NULL for the
** others. */
GILT_API GiltType *gilt_attr_get_type(GiltAttr *a);
GILT_API int64_t gilt_integer_attr_get_value(GiltAttr *a);
GILT_API double gilt_float_attr_get_value(GiltAttr *a);
GILT_API bool gilt_bool_attr_get_value(GiltAttr *a);
GILT_API const char *gilt_string_attr_get_value(GiltAttr *a, size_t *len);
GILT_API size_t gilt_array_attr_get_size(GiltAttr *a);
GILT_API GiltAttr *gilt_array_attr_get_element(GiltAttr *a, size_t i);
GILT_API size_t gilt_dictionary_attr_get_size(GiltAttr *a);
GILT_API GiltNamedAttr gilt_dictionary_attr_get_entry(GiltAttr *a, size_t i);
/* NULL when absent. */
GILT_API GiltAttr *gilt_dictionary_attr_lookup(GiltAttr *a, const char *name);
GILT_API GiltType *gilt_type_attr_get_value(GiltAttr *a);
GILT_API const char *gilt_symbol_ref_attr_get_root(GiltAttr *a);
/* Whether a dense elements attribute holds one value for all elements. */
GILT_API bool gilt_dense_attr_is_splat(GiltAttr *a);
/* Raw little-endian element bytes of a dense elements or dense resource
** attribute (one element for a splat). No alignment is promised: read
** elements with memcpy. */
GILT_API const void *gilt_dense_attr_get_data(GiltAttr *a, size_t *nbytes);
/* Number of elements of a dense array. */
GILT_API size_t gilt_dense_array_attr_get_size(GiltAttr *a);
/* Its packed element bytes (borrowed; NULL or any pointer when empty). */
GILT_API const void *gilt_dense_array_attr_get_data(GiltAttr *a,
                                                    size_t *nbytes);
/* Element i (i < size) as an integer (signless and si sign-extended, ui
** and i1 zero-extended) or as a double (integers converted). */
GILT_API int64_t gilt_dense_array_attr_get_int(GiltAttr *a, size_t i);
GILT_API double gilt_dense_array_attr_get_float(GiltAttr *a, size_t i);
GILT_API void gilt_attr_print(GiltAttr *a, GiltStringCallback cb, void *user);

/* Attributes a dialect defines (`#graph.layout<"NCHW16c">`), the
** counterpart of dialect-defined types above, with the same contract:
** NULL after an error at `loc` for an unknown dialect or mnemonic, a NULL
** parameter, or parameters the definition's verify hook rejects. */
GILT_API GiltAttr *gilt_dialect_attr_get(GiltContext *ctx,
                                         const char *dialect,
                                         const char *mnemonic,
                                         size_t num_params,
                                         GiltAttr *const *params,
                                         GiltLocation *loc);
GILT_API bool gilt_attr_is_dialect(GiltAttr *a);
GILT_API bool gilt_attr_is_dialect_attr(GiltAttr *a, const char *dialect,
                                        const char *mnemonic);
GILT_API const char *gilt_dialect_attr_get_dialect(GiltAttr *a);
GILT_API const char *gilt_dialect_attr_get_mnemonic(GiltAttr *a);
GILT_API size_t gilt_dialect_attr_get_num_params(GiltAttr *a);
GILT_API GiltAttr *gilt_dialect_attr_get_param(GiltAttr *a, size_t i);

/* ------------------------------------------------------------------------ */
/* Locations                                                                */
/* ------------------------------------------------------------------------ */

GILT_API GiltLocation *gilt_location_unknown_get(GiltContext *ctx);
GILT_API GiltLocation *gilt_location_file_line_col_get(GiltContext *ctx,
                                                       const char *file,
                                                       unsigned line,
                                                       unsigned col);
/* `loc("name"(child))`; child may be NULL (unknown). */
GILT_API GiltLocation *gilt_location_name_get(GiltContext *ctx,
                                              const char *name,
                                              GiltLocation *child);
/* `loc(fused<metadata>[a, b])`; metadata may be NULL. */
GILT_API GiltLocation *gilt_location_fused_get(GiltContext *ctx, size_t n,
                                               GiltLocation *const *locs,
                                               GiltAttr *metadata);
GILT_API GiltContext *gilt_location_get_context(GiltLocation *loc);
/* The first file:line:col position inside `loc` (looking through names,
** fusions and call sites). Returns false, leaving the outputs alone, when
** there is none. *file is borrowed from the context. */
GILT_API bool gilt_location_get_file_line_col(GiltLocation *loc,
                                              const char **file,
                                              unsigned *line, unsigned *col);
/* The name location (an ONNX node) that `loc` stands for, as diagnostics
** print it: the innermost name on the way to the file:line:col position
** that gilt_location_get_file_line_col finds; when that way has none, the
** first name anywhere in `loc` (a call site's callee before its caller,
** fused locations in order). NULL when `loc` holds no name. Borrowed from
** the context. */
GILT_API const char *gilt_location_get_name(GiltLocation *loc);
GILT_API void gilt_location_print(GiltLocation *loc, GiltStringCallback cb,
                                  void *user);

/* ------------------------------------------------------------------------ */
/* Operations                                                               */
/* ------------------------------------------------------------------------ */

/* What an operation is made from. Arrays are borrowed for the call to
** gilt_op_create. Regions are created empty. */
typedef struct GiltOpState {
  const char *name;
  GiltLocation *loc;
  size_t num_operands;
  GiltValue *const *operands;
  size_t num_results;
  GiltType *const *result_types;
  size_t num_attrs;
  const GiltNamedAttr *attrs;
  size_t num_regions;
  size_t num_successors;
  GiltBlock *const *successors;
  /* Ask the op's result type inference for the result types instead. */
  bool infer_result_types;
} GiltOpState;

/* A zeroed state with `name` and `loc` filled in. */
GILT_API GiltOpState gilt_op_state_get(const char *name, GiltLocation *loc);
/* Creates a detached op owned by the caller. Reports and returns NULL when
** the name is unregistered (and unregistered dialects are not allowed) or
** result type inference fails. */
GILT_API GiltOp *gilt_op_create(GiltContext *ctx, const GiltOpState *state);
/* Destroys an op and everything it owns; unlinks it from its block first.
** Its results must have no uses left. */
GILT_API void gilt_op_destroy(GiltOp *op);
/* Unlinks the op from its block; the caller owns it afterwards. */
GILT_API void gilt_op_remove_from_parent(GiltOp *op);
/* Deep copy (regions included) owned by the caller. Operands defined
** outside the op keep referring to the same values. */
GILT_API GiltOp *gilt_op_clone(GiltOp *op);
GILT_API void gilt_op_move_before(GiltOp *op, GiltOp *before);
GILT_API void gilt_op_move_after(GiltOp *op, GiltOp *after);

GILT_API GiltContext *gilt_op_get_context(GiltOp *op);
GILT_API const char *gilt_op_get_name(GiltOp *op);
GILT_API bool gilt_op_is_registered(GiltOp *op);
GILT_API GiltLocation *gilt_op_get_location(GiltOp *op);
GILT_API void gilt_op_set_location(GiltOp *op, GiltLocation *loc);
GILT_API GiltBlock *gilt_op_get_block(GiltOp *op);
GILT_API GiltOp *gilt_op_get_parent_op(GiltOp *op);
GILT_API GiltOp *gilt_op_get_next(GiltOp *op);
GILT_API GiltOp *gilt_op_get_prev(GiltOp *op);
GILT_API size_t gilt_op_get_num_operands(GiltOp *op);
GILT_API GiltValue *gilt_op_get_operand(GiltOp *op, size_t i);
GILT_API void gilt_op_set_operand(GiltOp *op, size_t i, GiltValue *v);
GILT_API size_t gilt_op_get_num_results(GiltOp *op);
GILT_API GiltValue *gilt_op_get_result(GiltOp *op, size_t i);
/* The operands of one group of a registered op's declared signature (a
** name in its table row, counted from 0: group 2 of "lbs*, ubs*, steps*"
** is `steps`): returns the index of the group's first operand and sets
** *count to the number of its operands (0 for an absent optional one).
** The count of operands or, on an op with `operandSegmentSizes`, that
** attribute decides. When the group cannot be found (no such group, an
** unregistered op, operands that do not verify), returns the number of
** operands and sets *count to 0. */
GILT_API size_t gilt_op_get_operand_group(GiltOp *op, size_t group,
                                          size_t *count);
/* The same for results (`resultSegmentSizes`). */
GILT_API size_t gilt_op_get_result_group(GiltOp *op, size_t group,
                                         size_t *count);
GILT_API size_t gilt_op_get_num_regions(GiltOp *op);
GILT_API GiltRegion *gilt_op_get_region(GiltOp *op, size_t i);
GILT_API size_t gilt_op_get_num_successors(GiltOp *op);
GILT_API GiltBlock *gilt_op_get_successor(GiltOp *op, size_t i);
/* The sorted attribute dictionary (never NULL). */
GILT_API GiltAttr *gilt_op_get_attr_dictionary(GiltOp *op);
GILT_API GiltAttr *gilt_op_get_attr(GiltOp *op, const char *name);
GILT_API void gilt_op_set_attr(GiltOp *op, const char *name, GiltAttr *attr);
/* Returns whether the attribute was present. */
GILT_API bool gilt_op_remove_attr(GiltOp *op, const char *name);

typedef enum GiltWalkOrder { GILT_WALK_PRE_ORDER, GILT_WALK_POST_ORDER } GiltWalkOrder;
typedef enum GiltWalkResult {
  GILT_WALK_ADVANCE,   /* keep going */
  GILT_WALK_SKIP,      /* (pre-order) do not visit this op's regions */
  GILT_WALK_INTERRUPT  /* stop the walk */
} GiltWalkResult;
typedef GiltWalkResult (*GiltWalkFn)(GiltOp *op, void *user);
/* Visits `op` and every op nested in it. Post-order walks may erase the
** visited op. Returns GILT_WALK_INTERRUPT if the callback interrupted. */
GILT_API GiltWalkResult gilt_op_walk(GiltOp *op, GiltWalkOrder order,
                                     GiltWalkFn fn, void *user);

/* Checks the op and everything nested in it; reports every problem found
** with its location. */
GILT_API GiltStatus gilt_op_verify(GiltOp *op);

typedef struct GiltPrintFlags {
  bool generic;           /* generic form for every op */
  bool debug_info;        /* print locations */
  /* Print dense elements with more elements than this as
  ** `dense_resource<__elided__>`; 0 prints everything. */
  int64_t elide_elements_larger_than;
  /* The op is known to verify: skip the verification that otherwise picks
  ** the generic form for invalid IR (MLIR's assumeVerified). */
  bool assume_verified;
} GiltPrintFlags;
/* Prints the op (and, for a top-level op, the resource blobs it uses).
** IR that does not verify is printed in the generic form, since custom
** printers may rely on what the verifier checks. flags may be NULL for the
** defaults. */
GILT_API void gilt_op_print(GiltOp *op, const GiltPrintFlags *flags,
                            GiltStringCallback cb, void *user);
/* Prints to stderr, for debuggers. */
GILT_API void gilt_op_dump(GiltOp *op);

/* ------------------------------------------------------------------------ */
/* Blocks and regions                                                       */
/* ------------------------------------------------------------------------ */

/* A detached block owned by the caller; locs may be NULL (unknown). */
GILT_API GiltBlock *gilt_block_create(GiltContext *ctx, size_t num_args,
                                      GiltType *const *arg_types,
                                      GiltLocation *const *arg_locs);
/* Destroys a detached block and its ops. */
GILT_API void gilt_block_destroy(GiltBlock *block);
GILT_API GiltValue *gilt_block_add_argument(GiltBlock *block, GiltType *type,
                                            GiltLocation *loc);
/* The argument must have no uses. */
GILT_API void gilt_block_erase_argument(GiltBlock *block, size_t i);
GILT_API size_t gilt_block_get_num_arguments(GiltBlock *block);
GILT_API GiltValue *gilt_block_get_argument(GiltBlock *block, size_t i);
GILT_API GiltOp *gilt_block_get_first_op(GiltBlock *block);
GILT_API GiltOp *gilt_block_get_last_op(GiltBlock *block);
/* The last op if it is a terminator, else NULL. */
GILT_API GiltOp *gilt_block_get_terminator(GiltBlock *block);
GILT_API GiltRegion *gilt_block_get_parent(GiltBlock *block);
GILT_API GiltOp *gilt_block_get_parent_op(GiltBlock *block);
GILT_API GiltBlock *gilt_block_get_next(GiltBlock *block);
/* Insertion takes ownership of a detached op. */
GILT_API void gilt_block_append_op(GiltBlock *block, GiltOp *op);
GILT_API void gilt_block_insert_op_before(GiltOp *before, GiltOp *op);
GILT_API void gilt_block_insert_op_after(GiltOp *after, GiltOp *op);

GILT_API size_t gilt_region_get_num_blocks(GiltRegion *region);
GILT_API GiltBlock *gilt_region_get_first_block(GiltRegion *region);
GILT_API GiltOp *gilt_region_get_parent_op(GiltRegion *region);
/* Takes ownership of a detached block. */
GILT_API void gilt_region_append_block(GiltRegion *region, GiltBlock *block);
GILT_API void gilt_region_insert_block_before(GiltBlock *before,
                                              GiltBlock *block);
/* Unlinks a block; the caller owns it afterwards. */
GILT_API void gilt_block_remove_from_parent(GiltBlock *block);

/* ------------------------------------------------------------------------ */
/* Values                                                                   */
/* ------------------------------------------------------------------------ */

GILT_API GiltType *gilt_value_get_type(GiltValue *v);
GILT_API void gilt_value_set_type(GiltValue *v, GiltType *type);
GILT_API bool gilt_value_is_block_argument(GiltValue *v);
/* The op defining a result, NULL for a block argument. */
GILT_API GiltOp *gilt_value_get_defining_op(GiltValue *v);
/* The block owning a block argument, or the block of the defining op. */
GILT_API GiltBlock *gilt_value_get_parent_block(GiltValue *v);
/* Result number or argument number. */
GILT_API size_t gilt_value_get_index(GiltValue *v);
GILT_API bool gilt_value_has_uses(GiltValue *v);
GILT_API size_t gilt_value_get_num_uses(GiltValue *v);
/* Iterates uses: the first, then gilt_operand_get_next_use. */
GILT_API GiltOperand *gilt_value_get_first_use(GiltValue *v);
GILT_API GiltOperand *gilt_operand_get_next_use(GiltOperand *use);
GILT_API GiltOp *gilt_operand_get_owner(GiltOperand *use);
GILT_API size_t gilt_operand_get_index(GiltOperand *use);
/* Makes every use of `from` use `to` instead; O(uses). */
GILT_API void gilt_value_replace_all_uses_with(GiltValue *from, GiltValue *to);
/* Replaces every result of `op` with the corresponding value. */
GILT_API void gilt_op_replace_all_uses_with(GiltOp *op, GiltValue *const *values);

/* ------------------------------------------------------------------------ */
/* Builder                                                                  */
/* ------------------------------------------------------------------------ */

GILT_API GiltBuilder *gilt_builder_create(GiltContext *ctx);
GILT_API void gilt_builder_destroy(GiltBuilder *b);
GILT_API GiltContext *gilt_builder_get_context(GiltBuilder *b);
GILT_API void gilt_builder_set_insertion_point_to_start(GiltBuilder *b,
                                                        GiltBlock *block);
GILT_API void gilt_builder_set_insertion_point_to_end(GiltBuilder *b,
                                                      GiltBlock *block);
GILT_API void gilt_builder_set_insertion_point_before(GiltBuilder *b,
                                                      GiltOp *op);
GILT_API void gilt_builder_set_insertion_point_after(GiltBuilder *b,
                                                     GiltOp *op);
GILT_API GiltBlock *gilt_builder_get_insertion_block(GiltBuilder *b);
/* Inserts a detached op at the insertion point (after which the point
** stays, so consecutive inserts keep program order). */
GILT_API void gilt_builder_insert(GiltBuilder *b, GiltOp *op);
/* gilt_op_create + gilt_builder_insert; NULL on failure. */
GILT_API GiltOp *gilt_builder_create_op(GiltBuilder *b,
                                        const GiltOpState *state);

/* ------------------------------------------------------------------------ */
/* Builtin ops and symbols                                                  */
/* ------------------------------------------------------------------------ */

/* A `builtin.module` with one empty block, owned by the caller. */
GILT_API GiltOp *gilt_module_create(GiltContext *ctx, GiltLocation *loc);
GILT_API GiltBlock *gilt_module_get_body(GiltOp *module);
/* A `func.func` whose entry block has one argument per input. Needs the
** func dialect registered (NULL after an error otherwise). */
GILT_API GiltOp *gilt_func_create(GiltContext *ctx, GiltLocation *loc,
                                  const char *name, GiltType *function_type);
GILT_API GiltBlock *gilt_func_get_entry_block(GiltOp *func);
GILT_API GiltType *gilt_func_get_type(GiltOp *func);
/* The `sym_name` of a symbol op, NULL if it has none. */
GILT_API const char *gilt_symbol_get_name(GiltOp *op);
/* Looks `name` up among the ops directly in the symbol table op's region. */
GILT_API GiltOp *gilt_symbol_table_lookup(GiltOp *symbol_table_op,
                                          const char *name);

/* ------------------------------------------------------------------------ */
/* Parsing                                                                  */
/* ------------------------------------------------------------------------ */

/* Parses textual IR. If the text is not a single `builtin.module`, its
** top-level ops are wrapped in one. Returns a module owned by the caller,
** or NULL after reporting every error found. `filename` names the buffer in
** locations and diagnostics. The IR is not verified. */
GILT_API GiltOp *gilt_parse_source(GiltContext *ctx, const char *buf,
                                   size_t len, const char *filename);
GILT_API GiltType *gilt_type_parse(GiltContext *ctx, const char *str);
GILT_API GiltAttr *gilt_attr_parse(GiltContext *ctx, const char *str);
/* A location as it is written inside `loc(...)`: `"f.gilt":3:7`,
** `"node"("m.onnx":1:1)`, `fused[...]`, `unknown` (no aliases). NULL
** after reporting when it does not parse. */
GILT_API GiltLocation *gilt_location_parse(GiltContext *ctx,
                                           const char *str);

#ifdef __cplusplus
}
#endif

#endif /* GILT_IR_H */
