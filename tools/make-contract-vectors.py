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


def replicas(ranking, nodes, r, distinct):
    label_of = {n["id"]: n.get(distinct) for n in nodes} if distinct else {}
    taken, out = set(), []
    for row in ranking:
        if len(out) == r:
            break
        if distinct:
            value = label_of[row["node"]]
            domain = ("label", value) if value is not None else ("node", row["node"])
            if domain in taken:
                continue
            taken.add(domain)
        out.append(row["node"])
    return {"r": r, "distinct": distinct, "nodes": out, "partial": len(out) < r}


def vector(name, key, nodes, seed="", hash_mode="fnv1a-fmix", replica_requests=()):
    k, s = key.encode(), seed.encode()
    ranking = rank(s, k, hash_mode, nodes)
    return {
        "name": name, "key": key, "seed": seed, "hash": hash_mode, "nodes": nodes,
        "ranking": ranking,
        "replicas": [replicas(ranking, nodes, r, d) for r, d in replica_requests],
    }


def ids(*names):
    return [{"id": n} for n in names]


ZONED = [{"id": "node-1", "zone": "a"}, {"id": "node-2", "zone": "a"},
         {"id": "node-3", "zone": "b"}, {"id": "node-4", "zone": "b"},
         {"id": "node-5", "zone": "c"}, {"id": "node-6"}]
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
]

doc = {
    "contract": "docs/placement-contract.md, v2 (sections 2 and 3)",
    "generator": "tools/make-contract-vectors.py",
    "fields": {
        "key, seed": "UTF-8 strings; their bytes are hashed",
        "nodes": "the view: id, optional weight (the view is weighted when any node has one), labels",
        "ranking": "every node, best first: fnv = FNV1a32(seed|key|id), r (after fmix32 or not), "
                   "score (r unweighted; u^(1/w) weighted, u = (r+1)/2^32; compare with 1e-15 relative)",
        "replicas": "top-R requests: r, distinct (label or null), the accepted nodes in order, "
                    "partial (fewer domains than r)",
    },
    "vectors": vectors,
}
print(json.dumps(doc, indent=1))
