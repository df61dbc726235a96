/*
** parse_ops.c - operations, regions and blocks.
**
**   operation ::= (result (`,` result)* `=`)? (generic | custom) trailing-loc?
**   result    ::= `%`name (`:` count)?
**   generic   ::= string `(` uses `)` (`[` successors `]`)?
**                 (`<` attr-dict `>`)? (`(` region (`,` region)* `)`)?
**                 attr-dict? `:` function-type
**   custom    ::= bare-id, then whatever the op's parse hook reads
**   region    ::= `{` block* `}`   block ::= (`^`name (`(` args `)`)? `:`)? op*
**
** An op is built in a GiltOpBuild that owns its regions until the op exists,
** so a failure anywhere discards exactly what that op had; ops already
** built are owned by their block. Results are named after the op (and its
** trailing location) is complete, as in MLIR. What names mean and when
** they resolve is parse_ssa.c's business; the syntax of a custom form is
** its op's parse hook's.
*/
#include "ir/asm/parser.h"

#include <string.h>


GiltStatus gilt_parser_parse_ssa_use(GiltAsmParser *p,
                                     GiltUnresolvedOperand *u,
                                     GiltSrcPos *pos, bool allow_number)
{
  if (p->tok.kind != GILT_TOK_PERCENT_ID)
    return gilt_parser_wrong_token(p, "expected SSA operand");
  *u = (GiltUnresolvedOperand){p->tok.ptr + 1, p->tok.len - 1, 0, NULL};
  *pos = p->tok.pos;
  gilt_parser_advance(p);
  if (p->tok.kind != GILT_TOK_HASH_ID)
    return GILT_SUCCESS;
  if (!allow_number)
    return gilt_parser_error(p, "result number not allowed in argument list");
  GiltToken num = p->tok;
  uint64_t n;
  num.ptr++;
  num.len--;
  for (size_t i = 0; i < num.len; i++)
    if (!gilt_is_digit((unsigned char)num.ptr[i]))
      return gilt_parser_error(p, "invalid SSA value result number");
  if (!gilt_token_get_uint64(&num, &n) || n > UINT32_MAX)
    return gilt_parser_error(p, "invalid SSA value result number");
  u->number = (unsigned)n;
  gilt_parser_advance(p);
  return GILT_SUCCESS;
}

/* ---- regions and blocks ------------------------------------------------- */

/* Ops until the next block label or the end of the region. */
static GiltStatus parse_block_body(GiltAsmParser *p, GiltBlock *block)
{
  p->block = block;
  while (p->tok.kind != GILT_TOK_CARET_ID &&
         p->tok.kind != GILT_TOK_RBRACE)
    if (gilt_parser_parse_operation(p))
      return GILT_FAILURE;
  return GILT_SUCCESS;
}

/* `(` `%a: type loc(...)` , ... `)` of a block label. */
static GiltStatus parse_block_args(GiltAsmParser *p, GiltBlock *block)
{
  gilt_parser_advance(p);
  if (gilt_parser_consume_if(p, GILT_TOK_RPAREN))
    return GILT_SUCCESS;
  do {
    GiltUnresolvedOperand u;
    GiltSrcPos pos;
    if (gilt_parser_parse_ssa_use(p, &u, &pos, true) ||
        gilt_parser_expect(p, GILT_TOK_COLON,
                           "expected ':' and type for SSA operand"))
      return GILT_FAILURE;
    GiltType *t = gilt_parser_parse_type(p);
    if (!t)
      return GILT_FAILURE;
    GiltValue *v = gilt_block_add_argument(block, t, gilt_parser_loc(p, pos));
    if (gilt_parser_parse_trailing_location(p, gilt_block_arg_loc(v)) ||
        gilt_parser_define_value(p, &u, pos, v))
      return GILT_FAILURE;
  } while (gilt_parser_consume_if(p, GILT_TOK_COMMA));
  return gilt_parser_expect(p, GILT_TOK_RPAREN, "expected ')'");
}

/* A block: its label (optional for the entry block, passed as `entry`)
** and its ops. */
static GiltStatus parse_block(GiltAsmParser *p, GiltBlock *entry)
{
  if (entry && p->tok.kind != GILT_TOK_CARET_ID)
    return parse_block_body(p, entry);
  /* Block bodies end at a label or `}`, and the caller stops at `}`. */
  GILT_ASSERT(p->tok.kind == GILT_TOK_CARET_ID);
  GiltToken name = p->tok;
  GiltBlock *block = gilt_parser_define_block(p, &name, entry);
  if (!block)
    return GILT_FAILURE;
  gilt_parser_advance(p);
  if (p->tok.kind == GILT_TOK_LPAREN && parse_block_args(p, block))
    return GILT_FAILURE;
  if (gilt_parser_expect(p, GILT_TOK_COLON, "expected ':' after block name"))
    return GILT_FAILURE;
  return parse_block_body(p, block);
}

/* Where an argument's name was written, from the location made for it. */
static GiltSrcPos arg_pos(const GiltAsmArgument *a)
{
  GiltLocation *l = a->ssa.loc;
  if (l && l->kind == GILT_LOC_FILE_LINE_COL)
    return (GiltSrcPos){l->flc.line, l->flc.col};
  return (GiltSrcPos){0, 0};
}

/* The entry block with the arguments an op's custom form declared. */
static GiltStatus add_entry_args(GiltAsmParser *p, GiltBlock *entry,
                                 const GiltAsmArgument *args, size_t n)
{
  if (n && args[0].ssa.len && p->tok.kind == GILT_TOK_CARET_ID)
    return gilt_parser_error(p, "invalid block name in region with named "
                                "arguments");
  for (size_t i = 0; i < n; i++) {
    GILT_ASSERT(args[i].type && "region arguments need types");
    GiltLocation *loc = args[i].loc ? args[i].loc : args[i].ssa.loc;
    GiltValue *v = gilt_block_add_argument(entry, args[i].type, loc);
    if (args[i].ssa.len &&
        gilt_parser_define_value(p, &args[i].ssa, arg_pos(&args[i]), v))
      return GILT_FAILURE;
  }
  return GILT_SUCCESS;
}

static GiltStatus parse_region_body(GiltAsmParser *p, GiltRegion *region,
                                    const GiltAsmArgument *args, size_t n)
{
  GiltBlock *entry = gilt_block_create(p->ctx, 0, NULL, NULL);
  gilt_region_append_block(region, entry);
  if (add_entry_args(p, entry, args, n) || parse_block(p, entry))
    return GILT_FAILURE;
  if (n && gilt_block_get_num_arguments(entry) > n)
    return gilt_parser_error(p, "entry block arguments were already "
                                "defined");
  while (p->tok.kind != GILT_TOK_RBRACE)
    if (parse_block(p, NULL))
      return GILT_FAILURE;
  return GILT_SUCCESS;
}

GiltStatus gilt_parser_parse_region(GiltAsmParser *p, GiltRegion *region,
                                    const GiltAsmArgument *args,
                                    size_t num_args)
{
  if (p->failed || gilt_parser_enter(p))
    return GILT_FAILURE;
  GiltBlock *outer = p->block;
  GiltStatus st = gilt_parser_expect(p, GILT_TOK_LBRACE,
                                     "expected '{' to begin a region");
  if (!st) {
    gilt_parser_push_scope(p, region);
    /* `{}` is a region without blocks, unless the op gave arguments. */
    if (num_args || p->tok.kind != GILT_TOK_RBRACE)
      st = parse_region_body(p, region, args, num_args);
    if (!st) {
      gilt_parser_advance(p); /* the `}` */
      st = gilt_parser_pop_scope(p);
    }
  }
  p->block = outer;
  gilt_parser_leave(p);
  return st;
}

/* ---- generic operations ------------------------------------------------- */

/* Pushes the operands onto p->uses. */
static GiltStatus parse_uses(GiltAsmParser *p)
{
  if (gilt_parser_expect(p, GILT_TOK_LPAREN,
                         "expected '(' to start operand list"))
    return GILT_FAILURE;
  if (p->tok.kind == GILT_TOK_PERCENT_ID) {
    do {
      GiltParsedUse use;
      if (gilt_parser_parse_ssa_use(p, &use.u, &use.pos, true))
        return GILT_FAILURE;
      gilt_vec_push(p->ctx, &p->uses, use);
    } while (gilt_parser_consume_if(p, GILT_TOK_COMMA));
  }
  return gilt_parser_expect(p, GILT_TOK_RPAREN,
                            "expected ')' to end operand list");
}

static GiltStatus parse_successors(GiltAsmParser *p, GiltOpBuild *b)
{
  const GiltOpDef *def = b->info->def;
  if (def && !(def->traits & GILT_TRAIT_TERMINATOR))
    return gilt_parser_error(p, "successors in non-terminator");
  gilt_parser_advance(p);
  if (p->tok.kind == GILT_TOK_RSQUARE)
    return gilt_parser_wrong_token(p, "expected list element");
  do {
    if (p->tok.kind != GILT_TOK_CARET_ID)
      return gilt_parser_wrong_token(p, "expected block name");
    gilt_vec_push(p->ctx, &b->successors, gilt_parser_use_block(p, &p->tok));
    gilt_parser_advance(p);
  } while (gilt_parser_consume_if(p, GILT_TOK_COMMA));
  return gilt_parser_expect(p, GILT_TOK_RSQUARE, "expected ',' or ']'");
}

/* MLIR's `<{...}>` properties. gilt keeps everything in the attribute
** dictionary, so the entries join the attributes, and a name given in both
** is the duplicate gilt_op_build_finish reports. The printer never writes
** properties: this is for reading mlir-opt's generic output. (MLIR lets
** an unregistered op's properties be any attribute; gilt has nowhere to
** keep one that is not a dictionary.) */
static GiltStatus parse_properties(GiltAsmParser *p, GiltOpBuild *b)
{
  gilt_parser_advance(p);
  if (p->tok.kind != GILT_TOK_LBRACE)
    return gilt_parser_wrong_token(p, "expected a dictionary of properties: "
                                      "gilt keeps them as attributes");
  if (gilt_parser_parse_attr_dict(p, GILT_VEC_FIELDS(&b->attrs)))
    return GILT_FAILURE;
  return gilt_parser_expect(p, GILT_TOK_GREATER,
                            "expected '>' to close properties");
}

static GiltStatus parse_regions(GiltAsmParser *p, GiltOpBuild *b)
{
  do {
    if (gilt_parser_parse_region(p, gilt_op_build_add_region(b), NULL, 0))
      return GILT_FAILURE;
  } while (gilt_parser_consume_if(p, GILT_TOK_COMMA));
  return gilt_parser_expect(p, GILT_TOK_RPAREN,
                            "expected ')' to end region list");
}

/* `: (inputs) -> results`, then the operands resolved against the inputs. */
static GiltStatus parse_signature(GiltAsmParser *p, GiltOpBuild *b,
                                  size_t first_use)
{
  if (gilt_parser_expect(p, GILT_TOK_COLON,
                         "expected ':' followed by operation type"))
    return GILT_FAILURE;
  GiltSrcPos pos = p->tok.pos;
  GiltType *fn = gilt_parser_parse_type(p);
  if (!fn)
    return GILT_FAILURE;
  if (gilt_type_get_kind(fn) != GILT_TYPE_FUNCTION)
    return gilt_parser_error_at(p, pos, "expected function type");
  size_t num_inputs = gilt_function_type_get_num_inputs(fn);
  size_t n = p->uses.len - first_use;
  if (num_inputs != n)
    return gilt_parser_error_at(p, pos,
                                "expected %zu operand type%s but had %zu", n,
                                n == 1 ? "" : "s", num_inputs);
  for (size_t i = 0; i < n; i++) {
    const GiltParsedUse *use = &p->uses.data[first_use + i];
    GiltValue *v = gilt_parser_resolve_value(
        p, &use->u, use->pos, gilt_function_type_get_input(fn, i));
    if (!v)
      return GILT_FAILURE;
    gilt_vec_push(p->ctx, &b->operands, v);
  }
  for (size_t i = 0; i < gilt_function_type_get_num_results(fn); i++)
    gilt_vec_push(p->ctx, &b->result_types,
                  gilt_function_type_get_result(fn, i));
  return GILT_SUCCESS;
}

static GiltStatus parse_generic_body(GiltAsmParser *p, GiltOpBuild *b)
{
  /* Nested ops push their operands above ours and pop them again. */
  size_t first_use = p->uses.len;
  GiltStatus st = GILT_FAILURE;
  if (parse_uses(p))
    goto done;
  if (p->tok.kind == GILT_TOK_LSQUARE && parse_successors(p, b))
    goto done;
  if (p->tok.kind == GILT_TOK_LESS && parse_properties(p, b))
    goto done;
  if (gilt_parser_consume_if(p, GILT_TOK_LPAREN) && parse_regions(p, b))
    goto done;
  if (p->tok.kind == GILT_TOK_LBRACE &&
      gilt_parser_parse_attr_dict(p, GILT_VEC_FIELDS(&b->attrs)))
    goto done;
  st = parse_signature(p, b, first_use);
done:
  p->uses.len = first_use;
  return st;
}

static GiltOp *finish(GiltAsmParser *p, GiltOpBuild *b, GiltStatus st)
{
  if (st) {
    gilt_op_build_discard(b);
    return NULL;
  }
  GiltOp *op = gilt_op_build_finish(b);
  if (!op) {
    gilt_parser_note_failure(p);
    return NULL;
  }
  gilt_block_append_op(p->block, op);
  return op;
}

static GiltOp *parse_generic(GiltAsmParser *p, GiltSrcPos op_pos)
{
  GiltStrBuf name;
  gilt_strbuf_init(&name, p->ctx);
  gilt_parser_string_value(&p->tok, &name);
  const GiltOpInfo *info = NULL;
  if (name.len == 0)
    gilt_parser_error(p, "empty operation name is invalid");
  else if (memchr(name.data, 0, name.len))
    gilt_parser_error(p, "null character not allowed in operation name");
  else if (!(info = gilt_context_get_op_info(p->ctx, name.data, name.len,
                                             gilt_parser_loc(p, p->tok.pos))))
    gilt_parser_note_failure(p);
  gilt_strbuf_free(&name);
  if (!info)
    return NULL;
  gilt_parser_advance(p);
  GiltOpBuild b;
  gilt_op_build_init(&b, p->ctx, info, gilt_parser_loc(p, op_pos));
  return finish(p, &b, parse_generic_body(p, &b));
}

/* ---- custom operations -------------------------------------------------- */

/* The registered op a custom form names. A name without a dialect is
** looked up, as MLIR's default dialects do, in the dialect of the custom op
** whose region is being parsed (`return` in a func.func body), then in
** builtin (`module`). `tried` gets the names tried besides the bare one. */
static const GiltOpInfo *lookup_custom(GiltAsmParser *p, const GiltToken *t,
                                       GiltStrBuf *tried)
{
  const GiltOpInfo *info = gilt_context_lookup_op(p->ctx, t->ptr, t->len);
  if (info || memchr(t->ptr, '.', t->len))
    return info;
  const char *outer = p->custom_op ? p->custom_op : "";
  const char *dot = strchr(outer, '.');
  const char *prefix[2];
  int prefix_len[2], n = 0;
  if (dot && strncmp(outer, "builtin.", 8)) {
    prefix[n] = outer;
    prefix_len[n++] = (int)(dot - outer);
  }
  prefix[n] = "builtin";
  prefix_len[n++] = 7;
  GiltStrBuf name;
  gilt_strbuf_init(&name, p->ctx);
  for (int i = 0; i < n && !info; i++) {
    name.len = 0;
    gilt_strbuf_printf(&name, "%.*s.%.*s", prefix_len[i], prefix[i],
                       (int)t->len, t->ptr);
    gilt_strbuf_printf(tried, "%s'%s'", tried->len ? " and " : "", name.data);
    info = gilt_context_lookup_op(p->ctx, name.data, name.len);
  }
  gilt_strbuf_free(&name);
  return info;
}

static GiltOp *parse_custom(GiltAsmParser *p, GiltSrcPos op_pos)
{
  GiltToken name = p->tok;
  GiltStrBuf tried;
  gilt_strbuf_init(&tried, p->ctx);
  const GiltOpInfo *info = lookup_custom(p, &name, &tried);
  if (!info || !info->def->parse) {
    if (tried.len)
      gilt_parser_error(p, "custom op '%.*s' is unknown (tried %s as well)",
                        (int)name.len, name.ptr, tried.data);
    else
      gilt_parser_error(p, "custom op '%.*s' is unknown", (int)name.len,
                        name.ptr);
    info = NULL;
  }
  gilt_strbuf_free(&tried);
  if (!info)
    return NULL;
  gilt_parser_advance(p);
  GiltOpBuild b;
  gilt_op_build_init(&b, p->ctx, info, gilt_parser_loc(p, op_pos));
  const char *outer = p->custom_op;
  size_t errors = gilt_context_get_error_count(p->ctx);
  p->custom_op = info->name->str;
  GiltStatus st = info->def->parse(p, &b);
  p->custom_op = outer;
  /* A hook may report through gilt_emit_error and still return success,
  ** or fail without a word: both must end the parse with an error. */
  if (gilt_context_get_error_count(p->ctx) > errors)
    gilt_parser_note_failure(p);
  if (st && !p->failed)
    gilt_parser_error(p, "custom op '%s' failed to parse", info->name->str);
  return finish(p, &b, st || p->failed ? GILT_FAILURE : GILT_SUCCESS);
}

/* ---- operations --------------------------------------------------------- */

/* Pushes the result groups onto p->results. */
static GiltStatus parse_result_groups(GiltAsmParser *p)
{
  do {
    if (p->tok.kind != GILT_TOK_PERCENT_ID)
      return gilt_parser_wrong_token(p, "expected valid ssa identifier");
    GiltResultGroup g = {p->tok, 1};
    gilt_parser_advance(p);
    if (gilt_parser_consume_if(p, GILT_TOK_COLON)) {
      uint64_t n;
      if (p->tok.kind != GILT_TOK_INTEGER)
        return gilt_parser_wrong_token(p,
                                       "expected integer number of results");
      if (!gilt_token_get_uint64(&p->tok, &n) || n < 1 || n > UINT32_MAX)
        return gilt_parser_error(
            p, "expected named operation to have at least 1 result");
      g.count = (uint32_t)n;
      gilt_parser_advance(p);
    }
    gilt_vec_push(p->ctx, &p->results, g);
  } while (gilt_parser_consume_if(p, GILT_TOK_COMMA));
  return gilt_parser_expect(p, GILT_TOK_EQUAL, "expected '=' after SSA name");
}

static GiltStatus define_results(GiltAsmParser *p, GiltOp *op,
                                 GiltSrcPos op_pos, size_t first_group)
{
  const GiltResultGroup *groups = p->results.data + first_group;
  size_t num_groups = p->results.len - first_group;
  size_t total = 0, n = gilt_op_get_num_results(op), r = 0;
  for (size_t i = 0; i < num_groups; i++)
    total += groups[i].count;
  if (n == 0)
    return gilt_parser_error_at(p, op_pos,
                                "cannot name an operation with no results");
  if (total != n)
    return gilt_parser_error_at(
        p, op_pos, "operation defines %zu results but was provided %zu to "
                   "bind", n, total);
  for (size_t i = 0; i < num_groups; i++) {
    for (uint32_t k = 0; k < groups[i].count; k++) {
      GiltUnresolvedOperand u = {groups[i].name.ptr + 1,
                                 groups[i].name.len - 1, k, NULL};
      if (gilt_parser_define_value(p, &u, groups[i].name.pos,
                                   gilt_op_get_result(op, r++)))
        return GILT_FAILURE;
    }
  }
  return GILT_SUCCESS;
}

GiltStatus gilt_parser_parse_operation(GiltAsmParser *p)
{
  if (p->failed)
    return GILT_FAILURE;
  GiltSrcPos op_pos = p->tok.pos;
  size_t first_group = p->results.len;
  GiltStatus st = GILT_FAILURE;
  GiltOp *op = NULL;
  if (p->tok.kind == GILT_TOK_PERCENT_ID && parse_result_groups(p))
    goto done;
  if (p->tok.kind == GILT_TOK_STRING)
    op = parse_generic(p, op_pos);
  else if (p->tok.kind == GILT_TOK_BARE_ID)
    op = parse_custom(p, op_pos);
  else
    gilt_parser_wrong_token(p, "expected operation name in quotes");
  if (!op || gilt_parser_parse_trailing_location(p, &op->loc))
    goto done;
  st = p->results.len > first_group ? define_results(p, op, op_pos,
                                                     first_group)
                                    : GILT_SUCCESS;
done:
  p->results.len = first_group;
  return st;
}
