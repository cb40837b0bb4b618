#!/usr/bin/python3
"""Writes docs/contract-vectors.json: the contract's test vectors as data.

An implementation independent of the C++ one (Python integers, the formulas of
docs/placement-contract.md), so the vectors check hrw rather than restate it. Weighted
rankings use math.log: the generator refuses a vector whose order would hinge on the last
bits (relative gap < 1e-9 between neighbours), where det::ln and libm could disagree.

Usage: /usr/bin/python3 tools/make-contract-vectors.py > docs/contract-vectors.json
"""
import json
import math

PRIME, BASIS = 0x01000193, 0x811C9DC5


def fnv1a32(data: bytes, h: int = BASIS) -> int:
    for b in data:
        h = ((h ^ b) * PRIME) & 0xFFFFFFFF
    return h


def fmix32(h: int) -> int:
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & 0xFFFFFFFF
    h ^= h >> 16
    return h


def rank(seed: bytes, key: bytes, hash_mode: str, nodes):
    weighted = any("weight" in n for n in nodes)
    rows = []
    for n in nodes:
        fnv = fnv1a32(seed + key + n["id"].encode())
        r = fmix32(fnv) if hash_mode == "fnv1a-fmix" else fnv
        if weighted:
            w = n.get("weight", 1.0)
            u = (r + 1) / 2**32
            order_key = math.log(u) / w
            score = u ** (1 / w)
        else:
            order_key = float(r)
            score = float(r)
        rows.append((order_key, n["id"], fnv, r, score))
    # Higher first; ties: the memcmp-smaller id first.
    rows.sort(key=lambda t: (-t[0], t[1].encode()))
    if weighted:
        for a, b in zip(rows, rows[1:]):
            if a[0] != b[0] and abs(a[0] - b[0]) < 1e-9 * abs(a[0]):
                raise SystemExit(f"order of {a[1]} and {b[1]} hinges on the last bits")
    return [{"node": t[1], "fnv": t[2], "r": t[3], "score": t[4]} for t in rows]


def check_gaps(keys_and_names):
    for (a, an), (b, bn) in zip(keys_and_names, keys_and_names[1:]):
        if a != b and abs(a - b) < 1e-9 * abs(a):
            raise SystemExit(f"order of {an} and {bn} hinges on the last bits")


def rank_tree(seed, key, hash_mode, nodes, hierarchy):
    """Contract §6: buckets by det-free ln(u)/W (checked for gaps), depth first."""
    weighted = any("weight" in n for n in nodes)

    def bucket_rows(level, members):
        groups = {}
        for n in members:
            name = "/".join(f"{l}={n[l]}" for l in hierarchy[: level + 1])
            groups.setdefault(name, []).append(n)
        rows = []
        for name, group in groups.items():
            # W: the sum in memcmp order of the ids (Python floats are binary64).
            w = 0.0
            for n in sorted(group, key=lambda n: n["id"].encode()):
                w += n.get("weight", 1.0)
            fnv = fnv1a32(seed + key + name.encode())
            r = fmix32(fnv) if hash_mode == "fnv1a-fmix" else fnv
            u = (r + 1) / 2**32
            rows.append((math.log(u) / w, name, group, fnv, r, u ** (1 / w)))
        rows.sort(key=lambda t: (-t[0], t[1].encode()))
        check_gaps([(t[0], t[1]) for t in rows])
        return rows

    def walk(level, members, path):
        out = []
        for t in bucket_rows(level, members):
            entry = {"level": hierarchy[level], "bucket": t[1], "fnv": t[3], "r": t[4], "score": t[5]}
            if level + 1 == len(hierarchy):
                sub = [dict(n) for n in t[2]]
                if weighted:
                    for n in sub:
                        n.setdefault("weight", 1.0)
                out.append((path + [entry], rank(seed, key, hash_mode, sub)))
            else:
                out.extend(walk(level + 1, t[2], path + [entry]))
        return out

    leaves = walk(0, nodes, [])
    return leaves[0][0], [row for _, rows in leaves for row in rows]


def claim_domain(taken, label_of, node):
    """Contract §3, distinct: a node's failure domain is its label value, or the node itself when it
    has none; False when another replica already holds that domain."""
    value = label_of[node]
    domain = ("label", value) if value is not None else ("node", node)
    if domain in taken:
        return False
    taken.add(domain)
    return True


def replicas(ranking, nodes, r, distinct, hierarchy=None):
    label_of = {n["id"]: n.get(distinct) for n in nodes} if distinct else {}
    if hierarchy and distinct:
        depth = hierarchy.index(distinct) + 1
        label_of = {n["id"]: tuple(n[l] for l in hierarchy[:depth]) for n in nodes}
    taken, out = set(), []
    for row in ranking:
        if len(out) == r:
            break
        if distinct and not claim_domain(taken, label_of, row["node"]):
            continue
        out.append(row["node"])
    return {"r": r, "distinct": distinct, "nodes": out, "partial": len(out) < r}


def vector(name, key, nodes, seed="", hash_mode="fnv1a-fmix", replica_requests=(),
           hierarchy=None):
    k, s = key.encode(), seed.encode()
    out = {"name": name, "key": key, "seed": seed, "hash": hash_mode}
    if hierarchy:
        path, ranking = rank_tree(s, k, hash_mode, nodes, hierarchy)
        out["hierarchy"] = hierarchy
    else:
        path, ranking = None, rank(s, k, hash_mode, nodes)
    out["nodes"] = nodes
    if path:
        out["path"] = path
    out["ranking"] = ranking
    out["replicas"] = [replicas(ranking, nodes, r, d, hierarchy) for r, d in replica_requests]
    return out


def ids(*names):
    return [{"id": n} for n in names]


ZONED = [{"id": "node-1", "zone": "a"}, {"id": "node-2", "zone": "a"},
         {"id": "node-3", "zone": "b"}, {"id": "node-4", "zone": "b"},
         {"id": "node-5", "zone": "c"}, {"id": "node-6"}]
# Racks named alike (r1) in two zones are two buckets; one rack holds a single node.
TREE = [{"id": "n1", "zone": "eu-1a", "rack": "r1"}, {"id": "n2", "zone": "eu-1a", "rack": "r1"},
        {"id": "n3", "zone": "eu-1a", "rack": "r2"}, {"id": "n4", "zone": "eu-1b", "rack": "r1"},
        {"id": "n5", "zone": "eu-1b", "rack": "r1"}, {"id": "n6", "zone": "eu-1b", "rack": "r3"},
        {"id": "n7", "zone": "us-1", "rack": "r1"}, {"id": "n8", "zone": "us-1", "rack": "r1"}]
CACHES = [{"id": f"cache-{c}", "weight": float(w)} for c, w in zip("abcd", (1, 2, 3, 4))]

vectors = [
    vector("unweighted, fmix", "user:42", ids("node-1", "node-2", "node-3", "node-4"),
           replica_requests=[(2, None), (3, None)]),
    vector("unweighted, raw fnv1a", "user:42", ids("node-1", "node-2", "node-3", "node-4"),
           hash_mode="fnv1a"),
    vector("seeded", "user:42", ids("node-1", "node-2", "node-3", "node-4"), seed="eu-prod"),
    vector("empty key, listed out of order", "", ids("c", "a", "b")),
    vector("weighted, fmix", "k7", CACHES, replica_requests=[(2, None)]),
    vector("weighted, raw fnv1a", "k8", CACHES, hash_mode="fnv1a"),
    vector("distinct zone, a node without the label", "order:1001", ZONED,
           replica_requests=[(1, "zone"), (3, "zone"), (4, "zone"), (5, "zone"), (3, None)]),
    vector("distinct zone, weighted", "session:xyz",
           [dict(n, weight=w) for n, w in zip(ZONED, (1.0, 3.0, 0.5, 2.0, 1.0, 1.5))],
           seed="s1", replica_requests=[(2, "zone"), (4, "zone")]),
    vector("hierarchy zone/rack, unweighted", "user:42", TREE, hierarchy=["zone", "rack"],
           replica_requests=[(3, None), (2, "zone"), (3, "rack")]),
    vector("hierarchy zone/rack, weighted, raw fnv1a", "order:7",
           [dict(n, weight=w) for n, w in zip(TREE, (1.0, 2.0, 0.5, 4.0, 1.0, 1.0, 3.0, 0.25))],
           hash_mode="fnv1a", seed="prod", hierarchy=["zone", "rack"],
           replica_requests=[(2, "zone"), (4, "rack"), (4, "zone")]),
    vector("hierarchy, one level, values with / and =", "k/=", [
        {"id": "a", "dc": "x/y"}, {"id": "b", "dc": "x/y"}, {"id": "c", "dc": "k=v"},
        {"id": "d", "dc": "="}], hierarchy=["dc"], replica_requests=[(3, "dc")]),
]

# ---- section 8: the rule carried in the view, and distinct labels no node / some nodes lack ----

def rule_vector(name, key, nodes, rule, seed="", hash_mode="fnv1a-fmix", hierarchy=None):
    """A view with a rule: its placement is the rule's top-R (distinct walk when it names a
    label), exactly what the flags --replicas/--distinct/--partial would give."""
    base = vector(name, key, nodes, seed, hash_mode, hierarchy=hierarchy)
    out = {"name": name, "key": key, "seed": seed, "hash": hash_mode}
    if hierarchy:
        out["hierarchy"] = hierarchy
    out["rule"] = rule
    out["nodes"] = nodes
    placed = replicas(base["ranking"], nodes, rule.get("replicas", 1), rule.get("distinct"), hierarchy)
    out["placement"] = {"nodes": placed["nodes"], "partial": placed["partial"]}
    return out


def distinct_check(name, nodes, label):
    """Section 8 on one label: refused when no node carries it (listing the view's labels in
    memcmp order), a warning naming the count and the first node (memcmp order of ids) that
    lacks it when some do, else ok."""
    names = sorted({f for n in nodes for f in n if f not in ("id", "weight", "cut")}, key=str.encode)
    lacking = sorted((n["id"] for n in nodes if label not in n), key=str.encode)
    out = {"name": name, "label": label, "nodes": nodes}
    if len(lacking) == len(nodes):
        out.update(outcome="refused", labels=names)
    elif lacking:
        out.update(outcome="warning", lacking=len(lacking), first=lacking[0])
    else:
        out["outcome"] = "ok"
    return out


def section8():
    rules = [
        rule_vector("rule: replicas 3 distinct zone", "order:1001", ZONED[:5],
                    {"replicas": 3, "distinct": "zone", "partial": False}),
        rule_vector("rule: replicas 2, no distinct, weighted", "k7", CACHES, {"replicas": 2}),
        rule_vector("rule: partial, more replicas than zones", "order:1001", ZONED[:5],
                    {"replicas": 4, "distinct": "zone", "partial": True}),
        rule_vector("rule: hierarchy, distinct rack", "user:42", TREE,
                    {"replicas": 3, "distinct": "rack"}, hierarchy=["zone", "rack"]),
    ]
    misspelt = ZONED[:5] + [{"id": "node-0", "zon": "c"}]
    checks = [
        distinct_check("a label no node carries (case differs)", ZONED, "Zone"),
        distinct_check("a label no node carries (no labels at all)", ids("a", "b"), "zone"),
        distinct_check("a label some nodes lack", ZONED, "zone"),
        distinct_check("a misspelt label on one node", misspelt, "zone"),
        distinct_check("every node carries it", ZONED[:5], "zone"),
    ]
    return rules, checks


RULE_VECTORS, DISTINCT_CHECKS = section8()


# ---- Contract v3 §9: capacity cuts (their own vectors, under "cuts") ----

def cut_place(ranking, nodes, r, distinct):
    """§9 placement: first the nodes that clear (r >= cut), then the others, ranking order."""
    cut = {n["id"]: n.get("cut", 0) for n in nodes}
    label_of = {n["id"]: n.get(distinct) for n in nodes} if distinct else {}
    taken, out, overflow = set(), [], False
    for clearing in (True, False):
        for row in ranking:
            if len(out) == r:
                break
            if (row["r"] >= cut[row["node"]]) != clearing:
                continue
            if distinct and not claim_domain(taken, label_of, row["node"]):
                continue
            out.append(row["node"])
            overflow = overflow or not clearing
    return {"r": r, "distinct": distinct, "nodes": out, "overflow": overflow,
            "partial": len(out) < r}


def cut_vector(name, key, nodes, seed="", hash_mode="fnv1a-fmix", requests=((1, None),)):
    ranking = rank(seed.encode(), key.encode(), hash_mode, [{k: v for k, v in n.items() if k != "cut"} for n in nodes])
    cut = {n["id"]: n.get("cut", 0) for n in nodes}
    for row in ranking:
        row["clears"] = row["r"] >= cut[row["node"]]
    return {"name": name, "key": key, "seed": seed, "hash": hash_mode, "nodes": nodes,
            "ranking": ranking, "placements": [cut_place(ranking, nodes, r, d) for r, d in requests]}


def balanced_vector(name, nodes, keys, loads, eps, seed="", hash_mode="fnv1a-fmix"):
    """§9 balanced cuts: key-proposing deferred acceptance, straight from the text."""
    total = sum(loads)
    sum_w = 0.0
    for n in sorted(nodes, key=lambda n: n["id"].encode()):
        sum_w += n.get("weight", 1.0)
    capacity = {n["id"]: int(math.floor((1.0 + eps) * (n.get("weight", 1.0) / sum_w) * float(total)))
                for n in nodes}
    rankings = [rank(seed.encode(), k.encode(), hash_mode, nodes) for k in keys]
    proposers = {n["id"]: [] for n in nodes}   # (r, key bytes, key index)
    held = {n["id"]: set() for n in nodes}
    nxt = [0] * len(keys)
    free = list(range(len(keys)))
    while free:
        k = free.pop(0)
        if nxt[k] == len(nodes):
            continue
        row = rankings[k][nxt[k]]
        nxt[k] += 1
        node = row["node"]
        proposers[node].append((row["r"], keys[k].encode(), k))
        proposers[node].sort(key=lambda t: (-t[0], t[1]))
        before, now = 0, set()
        for r, _, j in proposers[node]:
            if before < capacity[node]:
                now.add(j)
            before += loads[j]
        for j in (held[node] | {k}) - now:
            free.append(j)
        held[node] = now
    cuts, load, holder = {}, {}, [None] * len(keys)
    for n in nodes:
        i = n["id"]
        load[i] = sum(loads[j] for j in held[i])
        for j in held[i]:
            holder[j] = i
        if len(held[i]) < len(proposers[i]):
            cuts[i] = min(r for r, _, j in proposers[i] if j in held[i]) if held[i] else 0xFFFFFFFF
        else:
            cuts[i] = 0
    return {"name": name, "seed": seed, "hash": hash_mode, "nodes": nodes, "keys": keys,
            "loads": loads, "max_overload": eps, "total_load": total, "capacity": capacity,
            "cuts": cuts, "load": load, "holder": holder,
            "overflow_keys": sum(1 for h in holder if h is None)}


def cut_vectors():
    eight = ids(*[f"node-{i}" for i in range(8)])
    cut8 = [dict(n, cut=c) for n, c in zip(eight, (0, 3000000000, 0, 4294967295, 1500000000, 0,
                                                   4000000000, 2000000000))]
    zoned = [dict(n, cut=c) for n, c in zip(ZONED, (4294967295, 0, 3500000000, 0, 4294967295, 0))]
    weighted = [dict(n, cut=c) for n, c in zip(CACHES, (0, 3900000000, 0, 4100000000))]
    all_high = [dict(n, cut=4294967295) for n in ids("a", "b", "c")]
    placement = [
        cut_vector("cuts, unweighted", "user:42", cut8, requests=[(1, None), (3, None)]),
        cut_vector("cuts, unweighted, other key", "user:7", cut8, requests=[(1, None), (2, None)]),
        cut_vector("cuts, weighted", "k7", weighted, requests=[(1, None), (2, None)]),
        cut_vector("cuts, distinct zone", "order:1001", zoned,
                   requests=[(1, None), (3, "zone"), (4, "zone"), (5, "zone")]),
        cut_vector("cuts, nothing clears: overflow, rank 1", "x", all_high,
                   requests=[(1, None), (2, None)]),
        cut_vector("cuts all 0: as without cuts", "user:42",
                   [dict(n, cut=0) for n in ids("node-1", "node-2", "node-3")], hash_mode="fnv1a"),
    ]
    balanced = [
        balanced_vector("balanced, 4 nodes, 40 unit keys, eps 0", ids("a", "b", "c", "d"),
                        [f"k{i}" for i in range(40)], [1] * 40, 0.0),
        balanced_vector("balanced, 4 nodes, 43 unit keys, eps 0: overflow", ids("a", "b", "c", "d"),
                        [f"k{i}" for i in range(43)], [1] * 43, 0.0),
        balanced_vector("balanced, weighted, sizes, eps 0.01", CACHES,
                        [f"obj:{i}" for i in range(120)], [1 + (i * 7919) % 97 for i in range(120)], 0.01),
        balanced_vector("balanced, a key larger than a capacity", ids("n1", "n2", "n3"),
                        [f"s{i}" for i in range(30)], [1000 if i == 4 else 1 for i in range(30)], 0.1),
    ]
    return {"placement": placement, "balanced": balanced}


doc = {
    "contract": "docs/placement-contract.md, v3 (sections 2, 3, 6, 8 and 9)",
    "generator": "tools/make-contract-vectors.py",
    "fields": {
        "key, seed": "UTF-8 strings; their bytes are hashed",
        "nodes": "the view: id, optional weight (the view is weighted when any node has one), labels",
        "ranking": "every node, best first: fnv = FNV1a32(seed|key|id), r (after fmix32 or not), "
                   "score (r unweighted; u^(1/w) weighted, u = (r+1)/2^32; compare with 1e-15 relative)",
        "replicas": "top-R requests: r, distinct (label or null), the accepted nodes in order, "
                    "partial (fewer domains than r); with a hierarchy a label's domains are its buckets",
        "hierarchy, path": "section 6: the hierarchy labels, top first; path: the owner's bucket at "
                           "each level (name, fnv, r, score u^(1/W)); ranking: the tree ranking",
    },
    "vectors": vectors,
    "rule_fields": {
        "rule": "section 8: the view's rule (replicas, distinct, partial)",
        "placement": "the key's replicas under the rule: nodes in order, partial",
    },
    "rule_vectors": RULE_VECTORS,
    "distinct_fields": {
        "outcome": "refused (no node carries the label; labels: the view's, memcmp order), "
                   "warning (lacking: how many nodes lack it, first: the first such id, memcmp "
                   "order) or ok",
    },
    "distinct_checks": DISTINCT_CHECKS,
    "cuts": dict(cut_vectors(), fields={
        "placement": "section 9: nodes carry cut; ranking rows add clears (r >= cut); placements: "
                     "r, distinct, nodes (clearing nodes first, then the others), overflow, partial",
        "balanced": "section 9 balanced cuts, R = 1: keys (UTF-8), loads, max_overload eps; "
                    "capacity, cuts, load per node id; holder per key (null: overflow)"}),
}
print(json.dumps(doc, indent=1))
