#!/usr/bin/env python3
"""The 10 zones x 10 racks x 100 nodes cluster of docs/hierarchy.md and its four changes,
as hrw cluster views (no hierarchy in the files: `--hierarchy zone,rack` makes them
hierarchical, so one file serves flat and tree) and as CRUSH text maps (straw2 buckets,
one rule descending root -> zone -> rack -> osd) for crushtool. Benchmark-only.

  bench/tree_cluster.py OUT_DIR [--weighted]

writes OUT_DIR/{base,add-node,add-rack,remove-zone,reweight}.{json,crush.txt}.
Node i is node-<i:04> in zone z<i/1000>, rack r<i/100%10>; CRUSH osd i is the same node.
Weighted: node i weighs 1 + 0.25 (i mod 5), as src/jobs/bench/workload.cpp's weight_of."""
import json
import os
import sys


def base_nodes(weighted):
    nodes = []
    for i in range(10000):
        n = {"id": f"node-{i:04d}", "zone": f"z{i // 1000}", "rack": f"r{i // 100 % 10}"}
        n["weight"] = 1 + 0.25 * (i % 5) if weighted else 1.0
        nodes.append(n)
    return nodes


def changes(weighted):
    base = base_nodes(weighted)
    add_node = base + [{"id": "node-10000", "zone": "z0", "rack": "r0", "weight": 1.0}]
    add_rack = base + [{"id": f"node-{10000 + k}", "zone": "z0", "rack": "r10", "weight": 1.0}
                       for k in range(100)]
    remove_zone = [n for n in base if n["zone"] != "z9"]
    reweight = [dict(n) for n in base]
    reweight[0]["weight"] = reweight[0]["weight"] * 2
    return {"base": base, "add-node": add_node, "add-rack": add_rack,
            "remove-zone": remove_zone, "reweight": reweight}


def view_json(nodes, version, weighted):
    out = []
    for n in nodes:
        m = {"id": n["id"], "zone": n["zone"], "rack": n["rack"]}
        if weighted or n["weight"] != 1.0:
            m["weight"] = n["weight"]
        out.append(m)
    return json.dumps({"version": version, "nodes": out}, indent=0)


def crush_map(nodes):
    """osd ids are the node numbers; bucket ids negative; weights in CRUSH's 16.16 fixed
    point (crushtool reads decimals). All buckets straw2, hash rjenkins1 (0)."""
    lines = ["tunable choose_local_tries 0", "tunable choose_local_fallback_tries 0",
             "tunable choose_total_tries 50", "tunable chooseleaf_descend_once 1",
             "tunable chooseleaf_vary_r 1", "tunable chooseleaf_stable 1",
             "tunable straw_calc_version 1", "tunable allowed_bucket_algs 54", ""]
    for n in nodes:
        i = int(n["id"].split("-")[1])
        lines.append(f"device {i} osd.{i}")
    lines += ["", "type 0 osd", "type 1 rack", "type 2 zone", "type 3 root", ""]
    zones = {}
    for n in nodes:
        zones.setdefault(n["zone"], {}).setdefault(n["rack"], []).append(n)
    # Bucket ids from the names (straw2 hashes each child's id): a change keeps the ids
    # of the buckets it does not touch, as Ceph does.
    def zone_id(z):
        return -(10 + int(z[1:]))

    def rack_id(z, r):
        return -(100 + 100 * int(z[1:]) + int(r[1:]))

    zone_entries = []
    for z in sorted(zones):
        rack_entries = []
        for r in sorted(zones[z]):
            rid = rack_id(z, r)
            w = sum(n["weight"] for n in zones[z][r])
            items = "\n".join(f"\titem osd.{int(n['id'].split('-')[1])} weight {n['weight']:.5f}"
                              for n in zones[z][r])
            lines.append(f"rack {z}-{r} {{\n\tid {rid}\n\talg straw2\n\thash 0\n{items}\n}}")
            rack_entries.append((f"{z}-{r}", w))
        zid = zone_id(z)
        items = "\n".join(f"\titem {name} weight {w:.5f}" for name, w in rack_entries)
        lines.append(f"zone {z} {{\n\tid {zid}\n\talg straw2\n\thash 0\n{items}\n}}")
        zone_entries.append((z, sum(w for _, w in rack_entries)))
    items = "\n".join(f"\titem {name} weight {w:.5f}" for name, w in zone_entries)
    lines.append(f"root default {{\n\tid -1\n\talg straw2\n\thash 0\n{items}\n}}")
    lines.append("rule place {\n\tid 0\n\ttype replicated\n\tmin_size 1\n\tmax_size 10\n"
                 "\tstep take default\n\tstep choose firstn 1 type zone\n"
                 "\tstep choose firstn 1 type rack\n\tstep choose firstn 1 type osd\n"
                 "\tstep emit\n}")
    return "\n".join(lines) + "\n"


def main():
    out = sys.argv[1]
    weighted = "--weighted" in sys.argv[2:]
    os.makedirs(out, exist_ok=True)
    for version, (name, nodes) in enumerate(changes(weighted).items(), start=1):
        with open(os.path.join(out, f"{name}.json"), "w") as f:
            f.write(view_json(nodes, version, weighted))
        with open(os.path.join(out, f"{name}.crush.txt"), "w") as f:
            f.write(crush_map(nodes))


if __name__ == "__main__":
    main()
