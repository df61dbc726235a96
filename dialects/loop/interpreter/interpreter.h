/*
** interpreter.h - the internals of the loop dialect's reference
** interpreter (the public entry is gilt/interpreter.h).
**
** A func.func is compiled once per gilt_interpret_function call into a
** flat program (compile.c): every SSA value owns consecutive cells of a
** frame (a scalar one, a vector one per lane, a memref a descriptor of
** 2 + 2 * rank cells: base, offset, sizes, strides), and every op becomes
** an Instr naming its handler (chosen at compile time for its element
** type), its operand and result cells and its immediates. Region bodies
** are sub-programs that the handler of their op runs in a C loop. Nothing
** is looked up by name while running.
**
** The cell of an integer of width N holds it sign-extended from N bits
** (i1 is 0 or 1; dialects/loop/int_semantics.h, which also says what the
** integer ops compute); an f32, f16, bf16 or 8-bit float lane holds a C float
** (already rounded to its type), an f64 a double. Buffers hold elements
** in gilt/tensor.h's storage format.
**
** This header is not a public interface: it is the contract between
** compile.c, run.c, control.c, scalar.c, cast.c, memory.c and vector.c.
*/
#ifndef GILT_DIALECTS_LOOP_INTERPRETER_INTERPRETER_H
#define GILT_DIALECTS_LOOP_INTERPRETER_INTERPRETER_H

#include <math.h>

#include "dialects/loop/int_semantics.h"
#include "dialects/loop/loop.h"
#include "gilt/interpreter.h"
#include "ir/support/alloc.h"
#include "ir/support/ptr_map.h"

typedef union Cell {
  int64_t i;
  uint64_t u;
  float f;
  double d;
  char *p;
} Cell;

/* A cell holding a float, all 8 bytes written: a 4-byte store read back
** as a whole cell (by a move of loop-carried values) would stall the
** store forwarding of x86 cores. */
static inline Cell interp_cell_f(float v)
{
  Cell c;
  c.u = 0;
  c.f = v;
  return c;
}

/* A memref's descriptor, from its first cell m: f[m].p is the base of
** the elements, f[m + 1].i the offset (in elements), then the sizes and
** the strides (in elements). */
#define DESC_BASE(f, m) ((f)[(m)].p)
#define DESC_OFFSET(f, m) ((f)[(m) + 1].i)
#define DESC_SIZE(f, m, d) ((f)[(m) + 2 + (d)].i)
#define DESC_STRIDE(f, m, rank, d) ((f)[(m) + 2 + (rank) + (d)].i)
#define DESC_CELLS(rank) (2 + 2 * (rank))

/* How a lane's cell and a buffer's element hold a scalar type. */
typedef enum ElemClass {
  ELEM_SINT,  /* signless or si integer, index */
  ELEM_UINT,  /* ui integer: stored zero-extended */
  ELEM_F32,
  ELEM_F64,
  ELEM_SMALL, /* f16, bf16, the 8-bit floats: a float cell */
} ElemClass;

typedef struct InterpElem {
  uint8_t cls;   /* ElemClass */
  uint8_t fkind; /* GiltFloatKind of a float */
  uint8_t width; /* bits: 1 to 64 */
  uint8_t bytes; /* storage size in a buffer */
} InterpElem;

typedef struct Interp Interp;
typedef struct InterpBlock InterpBlock;
typedef struct Instr Instr;

/* Runs one instruction on frame f; false after reporting an error. */
typedef bool (*InterpHandler)(Cell *f, const Instr *in, Interp *it);

struct Instr {
  InterpHandler fn;
  uint32_t dst, a, b, c; /* result and operand cells */
  uint32_t n;            /* lanes (1 for a scalar), a rank, a count */
  int32_t imm;           /* a predicate, a position, an alignment */
  InterpElem elem;       /* the element type the op computes in */
  InterpElem elem2;      /* the result's, for casts */
  const uint32_t *list;  /* more cells: indices, operands */
  const void *aux;       /* a sub-program, a callee, a global */
  GiltOp *op;            /* where errors are reported */
};

typedef struct InterpProgram {
  Instr *code;
  size_t len;
} InterpProgram;

/* Copies of n cells, src[i] to dst[i], as if all at once: when a source
** is also a destination, through the scratch cells. */
typedef struct InterpMoves {
  uint32_t n;
  uint32_t scratch; /* UINT32_MAX: copy directly */
  const uint32_t *src, *dst;
} InterpMoves;

/* One func.func, compiled on first use. */
typedef struct InterpFunction {
  GiltOp *func;
  bool compiled;
  bool waits_at_barriers;      /* a kernel with gpu.barrier (gpu.c) */
  InterpProgram body;
  uint32_t num_cells;
  Cell *init;                  /* the constants in place, zeros elsewhere */
  uint32_t num_arg_cells, num_result_cells;
  const uint32_t *arg_cells;    /* the entry block's arguments' cells */
  const uint32_t *result_cells; /* func.return's operands' cells */
  /* Where each argument and each returned value starts in those lists. */
  const uint32_t *arg_first, *result_first;
} InterpFunction;

/* One gilt_interpret_function call: the compiled functions, the buffers
** it allocated (freed at the end) and the globals it materialized. */
struct Interp {
  GiltContext *ctx;
  GiltOp *module;
  GiltArena arena;          /* programs and their tables */
  GiltPtrMap functions;     /* func.func -> index in funcs */
  GILT_VEC(InterpFunction *) funcs;
  GiltPtrMap globals;       /* loop.global -> index in global_data + 1 */
  GILT_VEC(char *) global_data;
  GiltPtrMap allocations;   /* aligned data -> the block to free, marked
                            ** (memory.c) */
  size_t num_freed;         /* buffers loop.dealloc freed */
  unsigned depth;           /* of nested func.call */
  /* The thread a gpu.launch_func runs: what gpu.thread_id, block_id,
  ** block_dim and grid_dim read, per dimension (GpuIdKind, x y z). */
  int64_t gpu_ids[4][3];
  GiltPtrMap shared;          /* the block's shared buffers: alloc's
                              ** instruction -> data (memory.c) */
  struct InterpBlock *block;  /* the block in lockstep, or NULL (gpu.c) */
};

/* The rows of Interp's gpu_ids. */
typedef enum GpuIdKind {
  GPU_ID_THREAD,
  GPU_ID_BLOCK,
  GPU_ID_BLOCK_DIM,
  GPU_ID_GRID_DIM
} GpuIdKind;

/* ---- compile.c ------------------------------------------------------------ */

/* The function's program, compiled on first use; NULL after reporting
** an unsupported op or type. */
GILT_INTERNAL InterpFunction *interp_function_get(Interp *it, GiltOp *func);
/* The element description of an integer, index or float type. */
GILT_INTERNAL InterpElem interp_elem_of(GiltType *t);
/* Cells a value of type t occupies; 0 for a type the interpreter cannot
** hold. */
GILT_INTERNAL uint32_t interp_cells_of(GiltType *t);

/* ---- run.c -------------------------------------------------------------- */

/* Runs the instructions in order; false at the first error. */
static inline bool interp_run(Cell *f, const InterpProgram *p, Interp *it)
{
  for (const Instr *in = p->code, *end = in + p->len; in < end; in++)
    if (!in->fn(f, in, it))
      return false;
  return true;
}

GILT_INTERNAL void interp_moves_through_scratch(Cell *f, const InterpMoves *m);

/* Inline: a loop moves its carried values every iteration. */
static inline void interp_moves_apply(Cell *f, const InterpMoves *m)
{
  if (m->scratch != UINT32_MAX) {
    interp_moves_through_scratch(f, m);
    return;
  }
  for (uint32_t i = 0; i < m->n; i++)
    f[m->dst[i]] = f[m->src[i]];
}
/* Runs fn on a fresh frame whose arguments are args[] (cells) and copies
** its results into results[]. */
GILT_INTERNAL bool interp_call(Interp *it, InterpFunction *fn, GiltOp *at,
                               const Cell *args, Cell *results);

/* ---- buffers (memory.c) ------------------------------------------------- */

/* A block of `bytes` aligned to `align` (a power of two, at least 64),
** filled with 0xFF bytes (loop.alloc's contents are undefined: a float
** read before a write is NaN, an integer -1), registered for loop.dealloc
** and freed at the end of the call; NULL after reporting at op. */
GILT_INTERNAL char *interp_buffer_alloc(Interp *it, GiltOp *op,
                                        int64_t bytes, int64_t align);
GILT_INTERNAL void interp_free_all(Interp *it);
/* Marks the buffer at data freed, as loop.dealloc does (a block's shared
** buffer at the block's end). */
GILT_INTERNAL void interp_buffer_retire(Interp *it, char *data);
/* Whether the buffer at base is one loop.dealloc freed; reports the use
** at op when it is. */
GILT_INTERNAL bool interp_buffer_freed(Interp *it, GiltOp *op,
                                       const char *base);

/* Whether the buffer at base may be used by op: false after reporting a
** use after loop.dealloc. Inline: every load and store asks, and until
** the first loop.dealloc the answer costs a compare. */
static inline bool interp_buffer_live(Interp *it, GiltOp *op,
                                      const char *base)
{
  return it->num_freed == 0 || !interp_buffer_freed(it, op, base);
}
/* The cell value of the element at p, and the element stored from c. */
GILT_INTERNAL Cell interp_elem_read(InterpElem e, const char *p);
GILT_INTERNAL void interp_elem_write(InterpElem e, Cell c, char *p);
/* Offset (in elements) of the element the `rank` indices (cells idx) of
** the memref at cell m name; false after reporting at in->op when one is
** outside. `last_extra` widens the last dimension's check to `lanes`
** consecutive elements. */
GILT_INTERNAL bool interp_out_of_bounds(Cell *f, const Instr *in,
                                        uint32_t m, const uint32_t *idx,
                                        uint32_t rank, int64_t lanes);

static inline bool interp_address(Cell *f, const Instr *in, uint32_t m,
                                  const uint32_t *idx, uint32_t rank,
                                  int64_t lanes, int64_t *off)
{
  int64_t o = DESC_OFFSET(f, m);
  for (uint32_t d = 0; d < rank; d++) {
    int64_t i = f[idx[d]].i, size = DESC_SIZE(f, m, d);
    if (d + 1 == rank ? i < 0 || i > size - lanes : (uint64_t)i >= (uint64_t)size)
      return interp_out_of_bounds(f, in, m, idx, rank, lanes);
    o += i * DESC_STRIDE(f, m, rank, d);
  }
  *off = o;
  return true;
}

/* ---- handler selection ------------------------------------------------- */

/* Fills in->fn for op (already compiled into in: cells, lanes, element
** types, immediates); false when the op is not theirs. */
GILT_INTERNAL bool interp_select_scalar(LoopOpId id, Instr *in);
GILT_INTERNAL bool interp_select_cast(LoopOpId id, Instr *in);
GILT_INTERNAL bool interp_select_memory(LoopOpId id, Instr *in);
GILT_INTERNAL bool interp_select_vector(LoopOpId id, Instr *in);

/* Control flow (control.c); their aux is built by compile.c. */
typedef struct InterpFor {
  InterpProgram body;
  uint32_t iv;
  InterpMoves init, next;
} InterpFor;

typedef struct InterpParallel {
  InterpProgram body;
  uint32_t dims;
  const uint32_t *lower, *upper, *step, *ivs;
} InterpParallel;

typedef struct InterpIf {
  InterpProgram then_body, else_body;
  InterpMoves then_out, else_out;
} InterpIf;

typedef struct InterpWhile {
  InterpProgram before, after;
  uint32_t cond;
  InterpMoves init, pass, next; /* inits -> before's args; condition's
                                ** args -> after's args (the results);
                                ** after's yield -> before's args */
} InterpWhile;

typedef struct InterpCallee {
  GiltOp *func;
  InterpFunction *fn; /* compiled at the first call */
} InterpCallee;

GILT_INTERNAL bool interp_for(Cell *f, const Instr *in, Interp *it);
GILT_INTERNAL bool interp_parallel(Cell *f, const Instr *in, Interp *it);
GILT_INTERNAL bool interp_if(Cell *f, const Instr *in, Interp *it);
GILT_INTERNAL bool interp_while(Cell *f, const Instr *in, Interp *it);
GILT_INTERNAL bool interp_call_op(Cell *f, const Instr *in, Interp *it);
/* gpu.launch_func: list holds the grid's 6 cells, then every cell of the
** kernel's arguments (n in all); aux an InterpCallee of the gpu.func. */
GILT_INTERNAL bool interp_launch_func(Cell *f, const Instr *in, Interp *it);
/* gpu.thread_id and friends: imm is GpuIdKind * 3 + dimension. */
GILT_INTERNAL bool interp_gpu_id(Cell *f, const Instr *in, Interp *it);
/* gpu.barrier: in a kernel that waits at barriers, whose blocks run in
** lockstep. */
GILT_INTERNAL bool interp_gpu_barrier(Cell *f, const Instr *in, Interp *it);
GILT_INTERNAL bool interp_assert(Cell *f, const Instr *in, Interp *it);

/* LLVM's minimum/maximum: NaN wins, -0 is below +0. */
#define MINIMUM(x, y)                                                        \
  (isnan(x) || isnan(y) ? (x) + (y)                                          \
   : (x) < (y)          ? (x)                                                \
   : (y) < (x)          ? (y)                                                \
   : signbit(x)         ? (x)                                                \
                        : (y))
#define MAXIMUM(x, y)                                                        \
  (isnan(x) || isnan(y) ? (x) + (y)                                          \
   : (x) > (y)          ? (x)                                                \
   : (y) > (x)          ? (y)                                                \
   : signbit(x)         ? (y)                                                \
                        : (x))

/* A float of a small kind rounded to it (f16, bf16, 8-bit). */
GILT_INTERNAL float interp_round_small(unsigned kind, double v);

#endif /* GILT_DIALECTS_LOOP_INTERPRETER_INTERPRETER_H */
