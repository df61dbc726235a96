/*
** profile.c - loop.profile_begin and loop.profile_end (gjit --profile):
** calls of the runtime's clock and of its per-label accumulator
** (jit/abi.h's gilt_rt_profile_begin and gilt_rt_profile_end), the label
** a string global of the module.
*/
#include "transforms/loop_to_llvm/lowering.h"

GiltStatus l2l_lower_profile(L2L *l, GiltOp *op)
{
  if (loop_op_is(op, LOOP_OP_PROFILE_BEGIN)) {
    l2l_map(l, gilt_op_get_result(op, 0),
            l2l_call_extern(l, "gilt_rt_profile_begin", l->i64, 0, NULL));
    return GILT_SUCCESS;
  }
  const char *label =
      gilt_string_attr_get_value(gilt_op_get_attr(op, "label"), NULL);
  GiltValue *args[2] = {l2l_value(l, gilt_op_get_operand(op, 0)),
                        l2l_string(l, label)};
  l2l_call_extern(l, "gilt_rt_profile_end", NULL, 2, args);
  return GILT_SUCCESS;
}
