/*
** op_versions.c - which version of each ONNX operator a model's opset
** selects, for the operators whose definition changed after opset 17, and
** which of those versions gilt imports.
**
** The graph dialect was built on opset 17's semantics. An operator whose
** definition is the same at the model's opset as at 17 imports as it
** always has; one that changed (ReduceMean-18 takes its axes as an input,
** Resize-19 adds a coordinate mode) must not be read with the old meaning.
** So every version from 18 on is listed here, from ONNX's operator set
** definitions (onnx/defs/operator_sets.h, docs/Changelog.md), each marked
** with whether gilt imports it; a node whose selected version is not
** imported is reported, naming the version, instead of being misread.
** Adding support for a version means making the graph op carry its
** semantics (and upgrading the older versions into them,
** version_upgrade.c), then marking its row here.
**
** The rows not imported are operators gilt has no types for (optional,
** string, image); without unregistered dialects they are reported as
** unsupported operators before their version is looked at.
*/
#include "frontends/onnx/importer.h"

#include <string.h>

/* One version of one operator: available from opset `since`. */
typedef struct OpVersion {
  const char *op_type;
  int since;
  bool imported;
} OpVersion;

/* By opset, then as ONNX lists them. */
static const OpVersion versions[] = {
    /* opset 18 */
    {"Pad", 18, true},
    {"CenterCropPad", 18, true},
    {"Resize", 18, true},
    {"Mish", 18, true},
    {"OptionalGetElement", 18, false},
    {"OptionalHasElement", 18, false},
    {"Split", 18, true},
    {"Col2Im", 18, true},
    {"ScatterND", 18, true},
    {"ScatterElements", 18, true},
    {"ReduceSumSquare", 18, true},
    {"ReduceLogSum", 18, true},
    {"ReduceLogSumExp", 18, true},
    {"ReduceL1", 18, true},
    {"ReduceL2", 18, true},
    {"ReduceMax", 18, true},
    {"ReduceMin", 18, true},
    {"ReduceMean", 18, true},
    {"ReduceProd", 18, true},
    {"BitwiseAnd", 18, true},
    {"BitwiseOr", 18, true},
    {"BitwiseXor", 18, true},
    {"BitwiseNot", 18, true},
    {"GroupNormalization", 18, true},
    {"LpPool", 18, true},
    /* opset 19 */
    {"Equal", 19, true},
    {"AveragePool", 19, true},
    {"Cast", 19, true},
    {"CastLike", 19, true},
    {"Constant", 19, true},
    {"DeformConv", 19, true},
    {"DequantizeLinear", 19, true},
    {"Identity", 19, true},
    {"If", 19, true},
    {"Loop", 19, true},
    {"Pad", 19, true},
    {"QuantizeLinear", 19, true},
    {"Reshape", 19, true},
    {"Resize", 19, true},
    {"Scan", 19, true},
    {"Shape", 19, true},
    {"Size", 19, true},
    /* opset 20 */
    {"AffineGrid", 20, true},
    {"ConstantOfShape", 20, true},
    {"DFT", 20, true},
    {"Gelu", 20, true},
    {"GridSample", 20, true},
    {"ImageDecoder", 20, false},
    {"IsInf", 20, true},
    {"IsNaN", 20, true},
    {"ReduceMax", 20, true},
    {"ReduceMin", 20, true},
    {"RegexFullMatch", 20, false},
    {"StringConcat", 20, false},
    {"StringSplit", 20, false},
    /* opset 21 */
    {"Cast", 21, true},
    {"CastLike", 21, true},
    {"Constant", 21, true},
    {"ConstantOfShape", 21, true},
    {"DequantizeLinear", 21, true},
    {"Flatten", 21, true},
    {"GroupNormalization", 21, true},
    {"Identity", 21, true},
    {"If", 21, true},
    {"Loop", 21, true},
    {"Pad", 21, true},
    {"QLinearMatMul", 21, true},
    {"QuantizeLinear", 21, true},
    {"Reshape", 21, true},
    {"Scan", 21, true},
    {"Shape", 21, true},
    {"Size", 21, true},
    {"Squeeze", 21, true},
    {"Transpose", 21, true},
    {"Unsqueeze", 21, true},
};

#define NUM_VERSIONS (sizeof versions / sizeof *versions)

/* The newest listed version of op_type available at `opset`, or NULL
** when the operator is as it was at opset 17. */
static const OpVersion *selected(const char *op_type, int64_t opset)
{
  const OpVersion *best = NULL;
  for (size_t i = 0; i < NUM_VERSIONS; i++)
    if (versions[i].since <= opset && !strcmp(versions[i].op_type, op_type) &&
        (!best || versions[i].since > best->since))
      best = &versions[i];
  return best;
}

int gilt_onnx_unimported_version(const char *op_type, int64_t opset)
{
  const OpVersion *v = selected(op_type, opset);
  return v && !v->imported ? v->since : 0;
}
