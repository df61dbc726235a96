/*
** toy.h - an out-of-tree dialect built against an installed gilt: the
** `toy` dialect, its `toy-lower` pass and the interface it attaches to a
** gilt op.
**
** It uses only gilt's public headers (<gilt/...>), found through
** `pkg-config gilt`, as a custom frontend or a new level would. See
** docs/dialects.md, which walks through these files.
*/
#ifndef TOY_H
#define TOY_H

#include <gilt/pass.h>

/* Registers the toy dialect and the toy-lower pass in `ctx`, and attaches
** the toy-cost interface to graph.add (so the graph dialect must be
** registered first). */
GiltStatus toy_register(GiltContext *ctx);

/* toy-lower (toy_lower.c). */
extern const GiltPassDef toy_lower_pass;

#endif /* TOY_H */
