"""op_versions_table.py - writes the "Operator versions" table of
docs/onnx.md: every default-domain ONNX operator, its versions through
opset 21, and the graph op it imports into.

Versions up to opset 17 come from Debian's python3-onnx (1.12, whose
schemas end at 17); versions 18 to 21 from frontends/onnx/op_versions.c,
which also says which of them gilt imports; graph op names from
dialects/graph/*.def, by the importer's rule (MatMul -> graph.mat_mul)
or the rename of a version upgrade (Upsample -> graph.resize).
Run from the source tree with /usr/bin/python3; it rewrites the text
between the table's two marker comments in docs/onnx.md.
"""
import glob
import re

import onnx.defs

BEGIN = "<!-- op-versions-table: begin (test/onnx/op_versions_table.py) -->"
END = "<!-- op-versions-table: end -->"


def graph_name(op_type):
    """The importer's rule (frontends/onnx/importer.c, gilt_onnx_op_name)."""
    out = "graph."
    for i, c in enumerate(op_type):
        if i > 0 and c.isupper():
            prev = op_type[i - 1]
            nxt = op_type[i + 1] if i + 1 < len(op_type) else ""
            if prev.islower() or prev.isdigit() or (prev.isupper() and nxt.islower()):
                out += "_"
        out += c.lower()
    return out


def main():
    versions = {}
    for s in onnx.defs.get_all_schemas_with_history():
        if s.domain == "":
            versions.setdefault(s.name, {})[s.since_version] = True
    source = open("frontends/onnx/op_versions.c").read()
    for op, since, imported in re.findall(r'\{"(\w+)", (\d+), (true|false)\}', source):
        versions.setdefault(op, {})[int(since)] = imported == "true"
    # Operators a version upgrade renames (Upsample becomes graph.resize).
    renamed = dict(re.findall(r'\{"(\w+)", \d+, "(graph\.\w+)",',
                              open("frontends/onnx/version_upgrade.c").read()))
    ops = set()
    for path in glob.glob("dialects/graph/*.def"):
        ops |= set(re.findall(r'"(graph\.[a-z0-9_]+)"', open(path).read()))
    rows = ["| operator | versions | graph op |", "| --- | --- | --- |"]
    for op in sorted(versions, key=str.lower):
        name = renamed.get(op, graph_name(op))
        vs = ", ".join(
            str(v) if ok else "~~%d~~" % v for v, ok in sorted(versions[op].items()))
        rows.append("| `%s` | %s | %s |" % (
            op, vs, "`%s`" % name if name in ops else "none"))
    doc = open("docs/onnx.md").read()
    start, end = doc.index(BEGIN) + len(BEGIN), doc.index(END)
    open("docs/onnx.md", "w").write(doc[:start] + "\n" + "\n".join(rows) + "\n" + doc[end:])


if __name__ == "__main__":
    main()
