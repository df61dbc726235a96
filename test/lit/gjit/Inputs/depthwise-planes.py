# Writes test/lit/gjit/Inputs/depthwise-planes.gilt to stdout:
#   python3 depthwise-planes.py > depthwise-planes.gilt
cases = [
  # (name, N, C, H, W, K, strides, dilations, pads, residual)
  ("a", 2, 5, 13, 29, (5, 5), (1, 1), (1, 1), (2, 2, 2, 2), True),
  ("b", 1, 3, 20, 40, (7, 7), (2, 2), (1, 1), (3, 3, 3, 3), False),
  ("c", 1, 4, 17, 50, (5, 5), (3, 4), (2, 1), (1, 2, 3, 0), False),
]
def out(n, k, s, d, p0, p1):
    return (n + p0 + p1 - ((k - 1) * d + 1)) // s + 1
L = []
L.append("""// Inputs of gjit's depthwise-planes tests: depthwise convolutions of more
// than 3x3 taps (conv_depthwise_planes.c) against DeformConv with zero
// offsets and a mask of ones (deform_conv.c, an independent kernel), on
// inputs of cosines (times a run-time 1, so computed at run time) and
// weights of sines: the largest difference of each pair. (a) 5x5, its
// rows and columns not multiples of a group's or a vector's, a residual
// Add and a Relu fused as the epilogue; (b) 7x7 of stride 2; (c) strides
// 3 and 4, a dilation of 2 down, uneven padding. Written by
// depthwise-planes.py beside it.""")
rets = []
L.append("func.func @main(%one: tensor<f32>) -> (" + ", ".join(["tensor<f32>"] * len(cases)) + ") {")
L.append("  %start = graph.constant dense<0.0> : tensor<f32>")
L.append("  %delta = graph.constant dense<1.0> : tensor<f32>")
for (nm, N, C, H, W, K, S, D, P, res) in cases:
    OH = out(H, K[0], S[0], D[0], P[0], P[2]); OW = out(W, K[1], S[1], D[1], P[1], P[3])
    X = f"tensor<{N}x{C}x{H}x{W}xf32>"; Y = f"tensor<{N}x{C}x{OH}x{OW}xf32>"
    Wt = f"tensor<{C}x1x{K[0]}x{K[1]}xf32>"; nx = N*C*H*W; nw = C*K[0]*K[1]
    T = K[0]*K[1]
    attrs = f"dilations = [{D[0]}, {D[1]}], group = {C} : i64, pads = [{P[0]}, {P[1]}, {P[2]}, {P[3]}], strides = [{S[0]}, {S[1]}]"
    L.append(f"  %xl_{nm} = graph.constant dense<{nx}.0> : tensor<f32>")
    L.append(f"  %xs_{nm} = graph.constant dense<[{N}, {C}, {H}, {W}]> : tensor<4xi64>")
    L.append(f"  %xr_{nm} = graph.range(%start, %xl_{nm}, %delta) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<{nx}xf32>")
    L.append(f"  %xc_{nm} = graph.cos(%xr_{nm}) : (tensor<{nx}xf32>) -> tensor<{nx}xf32>")
    L.append(f"  %xk_{nm} = graph.reshape(%xc_{nm}, %xs_{nm}) : (tensor<{nx}xf32>, tensor<4xi64>) -> {X}")
    L.append(f"  %x_{nm} = graph.mul(%xk_{nm}, %one) : ({X}, tensor<f32>) -> {X}")
    L.append(f"  %wl_{nm} = graph.constant dense<{nw}.0> : tensor<f32>")
    L.append(f"  %ws_{nm} = graph.constant dense<[{C}, 1, {K[0]}, {K[1]}]> : tensor<4xi64>")
    L.append(f"  %wr_{nm} = graph.range(%start, %wl_{nm}, %delta) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<{nw}xf32>")
    L.append(f"  %wc_{nm} = graph.sin(%wr_{nm}) : (tensor<{nw}xf32>) -> tensor<{nw}xf32>")
    L.append(f"  %w_{nm} = graph.reshape(%wc_{nm}, %ws_{nm}) : (tensor<{nw}xf32>, tensor<4xi64>) -> {Wt}")
    L.append(f"  %b_{nm} = graph.constant dense<0.5> : tensor<{C}xf32>")
    L.append(f"  %o_{nm} = graph.constant dense<0.0> : tensor<{N}x{2*T}x{OH}x{OW}xf32>")
    L.append(f"  %m_{nm} = graph.constant dense<1.0> : tensor<{N}x{T}x{OH}x{OW}xf32>")
    L.append(f"  %c_{nm} = graph.conv(%x_{nm}, %w_{nm}, %b_{nm}) {{{attrs}}} : ({X}, {Wt}, tensor<{C}xf32>) -> {Y}")
    L.append(f"  %e_{nm} = graph.deform_conv(%x_{nm}, %w_{nm}, %o_{nm}, %b_{nm}, %m_{nm}) {{{attrs}, offset_group = 1 : i64}} : ({X}, {Wt}, tensor<{N}x{2*T}x{OH}x{OW}xf32>, tensor<{C}xf32>, tensor<{N}x{T}x{OH}x{OW}xf32>) -> {Y}")
    c, e = f"%c_{nm}", f"%e_{nm}"
    if res:
        L.append(f"  %cz_{nm} = graph.add(%c_{nm}, %x_{nm}) : ({Y}, {Y}) -> {Y}")
        L.append(f"  %cr_{nm} = graph.relu(%cz_{nm}) : ({Y}) -> {Y}")
        L.append(f"  %ez_{nm} = graph.add(%e_{nm}, %x_{nm}) : ({Y}, {Y}) -> {Y}")
        L.append(f"  %er_{nm} = graph.relu(%ez_{nm}) : ({Y}) -> {Y}")
        c, e = f"%cr_{nm}", f"%er_{nm}"
    L.append(f"  %d_{nm} = graph.sub({c}, {e}) : ({Y}, {Y}) -> {Y}")
    L.append(f"  %a_{nm} = graph.abs(%d_{nm}) : ({Y}) -> {Y}")
    L.append(f"  %r_{nm} = graph.reduce_max(%a_{nm}) {{keepdims = 0 : i64}} : ({Y}) -> tensor<f32>")
    rets.append(f"%r_{nm}")
L.append("  return " + ", ".join(rets) + " : " + ", ".join(["tensor<f32>"] * len(cases)))
L.append("}")
print("\n".join(L))
