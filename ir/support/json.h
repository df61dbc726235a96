/*
** json.h - writing JSON strings through a GiltStringCallback: what the
** tools' JSON reports (gjit --benchmark-format=json, --decisions) share.
** No parser and no document model: callers write their own structure.
*/
#ifndef GILT_IR_SUPPORT_JSON_H
#define GILT_IR_SUPPORT_JSON_H

#include "gilt/ir.h"
#include "ir/support/alloc.h"

/* `s` as a JSON string: quoted, with quotes, backslashes and control
** characters escaped; null for NULL. */
GILT_INTERNAL void gilt_json_put_string(GiltStringCallback cb, void *user,
                                        const char *s);

#endif /* GILT_IR_SUPPORT_JSON_H */
