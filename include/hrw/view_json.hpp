// The one serialiser of a cluster view. Every path that copies a view — a staged plan's
// steps/NN/view.json, `hrw sample`'s views, Python pickling (and so Dask) — writes it with
// these functions and reads it back with parse_cluster_json / parse_view_cbor, so every
// field (seed, hash, version, rule, hierarchy, nodes with weights, labels and §9 cuts) survives
// every copy. Adding a field to ClusterSpec means one line here (view_json.cpp's
// document) and one in the reader (cluster_view.cpp).
#pragma once
#include <string>
#include <string_view>

#include "hrw/cluster_view.hpp"

namespace hrw {

// The spec a view was validated from, as the view holds it (nodes in id order, labels in
// name order): ClusterView(spec_of(v)) places every key as v does.
ClusterSpec spec_of(const ClusterView& view);

// The cluster file (README's JSON) of a spec, every field written; weights print so that
// they parse back to the same doubles. JSON strings are UTF-8: an id, label or seed with
// other bytes is an InputError naming it (a file cannot hold it; view_cbor can).
std::string view_json(const ClusterSpec& spec);
std::string view_json(const ClusterView& view);

// The same document as CBOR (RFC 8949), which carries any bytes in ids, labels and the
// seed: how Python pickles a view. parse_view_cbor (cluster_view.hpp) reads it back.
std::string view_cbor(const ClusterSpec& spec);

}  // namespace hrw
