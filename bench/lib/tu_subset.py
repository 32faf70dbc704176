# Used by bench/tu_heldout.
# tu_subset.py SRC_FOLDER DS OUT_FOLDER ids...: writes the TU graphs with the given 1-based ids, in that
# order, into OUT_FOLDER (its name is the new data set name), nodes renumbered, with their node
# labels, node attributes, edge labels and edge attributes.
import sys, os
src, ds, out = sys.argv[1], sys.argv[2], sys.argv[3]
keep = [int(x) for x in sys.argv[4:]]
name = os.path.basename(out.rstrip('/'))
os.makedirs(out, exist_ok=True)
rd = lambda p: [l.rstrip('\n') for l in open(os.path.join(src, f"{ds}_{p}.txt"))]
ind = [int(x) for x in rd("graph_indicator")]
nodes_of = {}
for i, g in enumerate(ind, 1): nodes_of.setdefault(g, []).append(i)
newid = {}
for gi, g in enumerate(keep, 1):
    for v in nodes_of[g]: newid[v] = (len(newid) + 1, gi)
def w(p, lines): open(os.path.join(out, f"{name}_{p}.txt"), "w").write("".join(l + "\n" for l in lines))
w("graph_indicator", [str(newid[v][1]) for v in sorted(newid, key=lambda v: newid[v][0])])
gl = rd("graph_labels"); w("graph_labels", [gl[g - 1] for g in keep])
order = sorted(newid, key=lambda v: newid[v][0])
for opt in ("node_labels", "node_attributes"):
    if os.path.exists(os.path.join(src, f"{ds}_{opt}.txt")):
        L = rd(opt); w(opt, [L[v - 1] for v in order])
A = rd("A")
# per-edge files: line k belongs to line k of DS_A.txt
per_edge = {opt: rd(opt) for opt in ("edge_labels", "edge_attributes") if os.path.exists(os.path.join(src, f"{ds}_{opt}.txt"))}
a_out, e_out = [], {opt: [] for opt in per_edge}
for k, line in enumerate(A):
    u, v = [int(x) for x in line.split(",")]
    if u in newid:
        a_out.append(f"{newid[u][0]}, {newid[v][0]}")
        for opt, L in per_edge.items(): e_out[opt].append(L[k])
w("A", a_out)
for opt, lines in e_out.items(): w(opt, lines)
