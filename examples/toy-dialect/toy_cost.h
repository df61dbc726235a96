/*
** toy_cost.h - toy-cost, an op interface defined outside gilt: how many
** arithmetic operations an op costs per element.
**
** An interface is an identity (a GiltInterface, compared by address) and
** a table of functions; this is the whole definition.
*/
#ifndef TOY_COST_H
#define TOY_COST_H

#include <gilt/dialect.h>

typedef struct ToyCostMethods {
  int (*cost)(GiltOp *op);
} ToyCostMethods;

extern const GiltInterface toy_cost_interface;

#endif /* TOY_COST_H */
