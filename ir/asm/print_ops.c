/*
** print_ops.c - printing operations, regions and blocks.
**
** An op prints in its custom form when its definition has a print hook
** (and the generic form was not asked for), else in the generic form
** `%0:2 = "d.op"(%a, %b)[^bb1] ({...}) {attrs} : (types) -> (types)`,
** which every op has and the parser always reads. Layout follows MLIR's
** OperationPrinter exactly: two spaces of indentation per nesting level,
** block labels at the indentation of the op that holds the region, a
** `// pred: ^bb0` comment after the label of a block with predecessors,
** and a custom form that drops the enclosing op's default dialect from
** op names (`return` inside a func.func, `module` at the top level).
**
** Names come from print_names.c; this file only decides where they go.
*/
#include "ir/asm/printer.h"

#include <stdlib.h>
#include <string.h>

/* The dialect whose prefix custom forms drop inside an op's regions, as
** MLIR's OpAsmOpInterface::getDefaultDialect: the op's own, when its row
** says so (builtin.module and func.func, as in MLIR). */
static const char *default_dialect_of(GiltOp *op)
{
  if (!op->info->def || !gilt_op_has_trait(op, GILT_TRAIT_DEFAULT_DIALECT))
    return "";
  return op->info->dialect->name->str;
}

/* ---- values and blocks by name -------------------------------------------- */

static void print_block_name(GiltAsmPrinter *p, GiltBlock *b)
{
  uint32_t label, first_arg;
  if (!gilt_ssa_names_lookup_block(p->names, b, &label, &first_arg)) {
    gilt_printer_puts(p, "INVALIDBLOCK");
    return;
  }
  gilt_printer_puts(p, "^bb");
  gilt_printer_print_uint(p, label);
}

static bool is_entry_block(GiltBlock *b)
{
  return b->region && b->region->first == b;
}

void gilt_printer_print_value(GiltAsmPrinter *p, GiltValue *v,
                              bool print_result_no)
{
  uint32_t id, label;
  if (v->is_block_arg) {
    GiltBlock *b = v->owner.block;
    if (!gilt_ssa_names_lookup_block(p->names, b, &label, &id)) {
      gilt_printer_puts(p, "<<UNKNOWN SSA VALUE>>");
      return;
    }
    gilt_printer_puts(p, is_entry_block(b) ? "%arg" : "%");
    gilt_printer_print_uint(p, (uint64_t)id + v->index);
    return;
  }
  GiltOp *op = v->owner.op;
  if (!gilt_ssa_names_lookup_op(p->names, op, &id)) {
    gilt_printer_puts(p, "<<UNKNOWN SSA VALUE>>");
    return;
  }
  gilt_printer_putc(p, '%');
  gilt_printer_print_uint(p, id);
  if (print_result_no && op->num_results > 1) {
    gilt_printer_putc(p, '#');
    gilt_printer_print_uint(p, v->index);
  }
}

void gilt_printer_print_trailing_loc(GiltAsmPrinter *p, GiltLocation *loc)
{
  if (!p->flags.debug_info)
    return;
  gilt_printer_putc(p, ' ');
  gilt_printer_print_location(p, loc);
}

/* ---- blocks ------------------------------------------------------------------ */

static int compare_labels(const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* MLIR's `// pred: ^bb0`, `// 2 preds: ^bb0, ^bb1`, `// no predecessors`. */
static void print_predecessors(GiltAsmPrinter *p, GiltBlock *b)
{
  GILT_VEC(uint32_t) preds = {0};
  for (GiltBlockOperand *u = b->first_use; u; u = u->next_use) {
    uint32_t label = UINT32_MAX, first_arg;
    if (u->owner->block)
      gilt_ssa_names_lookup_block(p->names, u->owner->block, &label,
                                  &first_arg);
    gilt_vec_push(p->ctx, &preds, label);
  }
  if (preds.len == 0) {
    if (!is_entry_block(b))
      gilt_printer_puts(p, "  // no predecessors");
    return;
  }
  qsort(preds.data, preds.len, sizeof *preds.data, compare_labels);
  if (preds.len == 1) {
    gilt_printer_puts(p, "  // pred: ");
  } else {
    gilt_printer_puts(p, "  // ");
    gilt_printer_print_uint(p, preds.len);
    gilt_printer_puts(p, " preds: ");
  }
  for (size_t i = 0; i < preds.len; i++) {
    if (i)
      gilt_printer_write(p, ", ", 2);
    if (preds.data[i] == UINT32_MAX) {
      gilt_printer_puts(p, "INVALIDBLOCK");
    } else {
      gilt_printer_puts(p, "^bb");
      gilt_printer_print_uint(p, preds.data[i]);
    }
  }
  gilt_vec_free(p->ctx, &preds);
}

/* `^bb1(%0: i32, %1: f32):` and the predecessor comment. */
static void print_block_header(GiltAsmPrinter *p, GiltBlock *b)
{
  gilt_printer_indent(p);
  print_block_name(p, b);
  if (b->num_args) {
    gilt_printer_putc(p, '(');
    for (size_t i = 0; i < b->num_args; i++) {
      if (i)
        gilt_printer_write(p, ", ", 2);
      gilt_printer_print_value(p, b->args[i], false);
      gilt_printer_write(p, ": ", 2);
      gilt_printer_print_type(p, b->args[i]->type);
      gilt_printer_print_trailing_loc(p, *gilt_block_arg_loc(b->args[i]));
    }
    gilt_printer_putc(p, ')');
  }
  gilt_printer_putc(p, ':');
  print_predecessors(p, b);
  gilt_printer_putc(p, '\n');
}

static void print_block(GiltAsmPrinter *p, GiltBlock *b, bool print_header,
                        bool print_terminator)
{
  if (print_header)
    print_block_header(p, b);
  GiltOp *end = NULL;
  if (!print_terminator && b->last &&
      gilt_op_has_trait(b->last, GILT_TRAIT_TERMINATOR))
    end = b->last;
  p->indent += 2;
  for (GiltOp *op = b->first; op != end; op = op->next) {
    gilt_printer_print_op(p, op);
    gilt_printer_putc(p, '\n');
  }
  p->indent -= 2;
}

void gilt_printer_print_region(GiltAsmPrinter *p, GiltRegion *r,
                               bool print_entry_args, bool print_terminators,
                               bool print_empty_block)
{
  gilt_printer_write(p, "{\n", 2);
  GiltBlock *entry = r->first;
  if (entry) {
    const char *saved = p->default_dialect;
    p->default_dialect = r->op ? default_dialect_of(r->op) : "";
    bool header = (print_empty_block && !entry->first) ||
                  (print_entry_args && entry->num_args);
    print_block(p, entry, header, print_terminators);
    for (GiltBlock *b = entry->next; b; b = b->next)
      print_block(p, b, true, true);
    p->default_dialect = saved;
  }
  gilt_printer_indent(p);
  gilt_printer_putc(p, '}');
}

/* ---- operations ------------------------------------------------------------------ */

static void print_generic(GiltAsmPrinter *p, GiltOp *op)
{
  gilt_printer_print_string(p, op->info->name->str, op->info->name->len);
  gilt_printer_putc(p, '(');
  for (uint32_t i = 0; i < op->num_operands; i++) {
    if (i)
      gilt_printer_write(p, ", ", 2);
    gilt_printer_print_value(p, op->operands[i].value, true);
  }
  gilt_printer_putc(p, ')');
  if (op->num_successors) {
    gilt_printer_putc(p, '[');
    for (uint32_t i = 0; i < op->num_successors; i++) {
      if (i)
        gilt_printer_write(p, ", ", 2);
      print_block_name(p, gilt_op_successor_array(op)[i].block);
    }
    gilt_printer_putc(p, ']');
  }
  if (op->num_regions) {
    gilt_printer_write(p, " (", 2);
    for (uint32_t i = 0; i < op->num_regions; i++) {
      if (i)
        gilt_printer_write(p, ", ", 2);
      gilt_printer_print_region(p, &gilt_op_region_array(op)[i], true, true,
                                true);
    }
    gilt_printer_putc(p, ')');
  }
  gilt_printer_print_attr_dict(p, op->attrs, NULL, 0, false);
  gilt_printer_write(p, " : ", 3);
  gilt_asm_print_functional_type(p, op);
}

/* The op name without the default dialect's prefix, which MLIR drops only
** when the name has no other dot. */
static void print_custom_name(GiltAsmPrinter *p, GiltOp *op)
{
  const char *name = op->info->name->str;
  size_t dlen = strlen(p->default_dialect);
  if (dlen && !strncmp(name, p->default_dialect, dlen) && name[dlen] == '.' &&
      !strchr(name + dlen + 1, '.'))
    name += dlen + 1;
  gilt_printer_puts(p, name);
}

static void print_result_list(GiltAsmPrinter *p, GiltOp *op)
{
  gilt_printer_print_value(p, &gilt_op_result_array(op)[0], false);
  if (op->num_results > 1) {
    gilt_printer_putc(p, ':');
    gilt_printer_print_uint(p, op->num_results);
  }
  gilt_printer_write(p, " = ", 3);
}

void gilt_printer_print_op(GiltAsmPrinter *p, GiltOp *op)
{
  gilt_printer_indent(p);
  if (op->num_results)
    print_result_list(p, op);
  const GiltOpDef *def = op->info->def;
  if (!p->flags.generic && def && def->print) {
    print_custom_name(p, op);
    def->print(op, p);
  } else {
    print_generic(p, op);
  }
  gilt_printer_print_trailing_loc(p, op->loc);
}
