"""An argument of the wrong type is a TypeError naming its keyword and what it takes, never
pybind11's dump of every overload; bounds are the library's, worded with the keyword."""
import numpy as np
import pytest

import hrw

VIEW = hrw.ClusterView.from_dict({"version": 1, "nodes": [{"id": "a", "zone": "z1"}, {"id": "b", "zone": "z2"}]})
NEXT = hrw.ClusterView.from_dict({"version": 2, "nodes": [{"id": "a", "zone": "z1"}, {"id": "c", "zone": "z2"}]})

CASES = [
    (lambda: hrw.place(VIEW, [b"k"], partial="yes"), TypeError, "^partial must be True or False, got str$"),
    (lambda: hrw.place(VIEW, [b"k"], replicas="2"), TypeError,
     "^replicas must be a non-negative integer or None, got str$"),
    (lambda: hrw.place(VIEW, [b"k"], threads=-1), TypeError, "^threads must be a non-negative integer, got -1$"),
    (lambda: hrw.place(VIEW, [b"k"], threads=999), ValueError, "^threads: must be an integer from 0 to 256, got 999$"),
    (lambda: hrw.place(VIEW, [b"k"], distinct=3), TypeError, "^distinct must be a str or None, got int$"),
    (lambda: hrw.select(VIEW, b"k", partial="yes"), TypeError, "^partial must be True or False, got str$"),
    (lambda: hrw.plan(VIEW, NEXT, [b"k"], replicas=1.5), TypeError,
     "^replicas must be a non-negative integer or None, got float$"),
    (lambda: hrw.plan(VIEW, NEXT, [b"k"], allow_single_copy="no"), TypeError,
     "^allow_single_copy must be True or False, got str$"),
    (lambda: hrw.plan(VIEW, NEXT, [b"k"], threads=300), ValueError,
     "^threads: must be an integer from 0 to 256, got 300$"),
]


@pytest.mark.parametrize("index", range(len(CASES)))
def test_a_wrong_argument_names_its_keyword(index):
    call, error, pattern = CASES[index]
    with pytest.raises(error, match=pattern):
        call()


def test_numpy_values_of_the_right_kind_are_taken():
    assert hrw.place(VIEW, [b"k"], partial=np.bool_(False), threads=np.uint8(1)).shape == (1,)
