import re, sys
text = open(sys.argv[1]).read()
out = []
for m in re.finditer(r'ptx = "((?:[^"\\]|\\.)*)"', text):
    s = m.group(1)
    s = re.sub(r'\\([0-9A-Fa-f]{2})', lambda h: chr(int(h.group(1), 16)), s)
    s = s.replace('\\\\', '\\').replace('\\"', '"')
    out.append(s)
sys.stdout.write("\n".join(out))
