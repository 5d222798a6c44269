"""The pure balancing strategy (annotation.assignment): no database involved."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from annotation.assignment import (
    Candidate,
    option_order,
    pick,
    serve_check_next,
    shown,
    task_order,
    to_canonical,
)


def test_pick_takes_the_largest_shortfall() -> None:
    rng = random.Random(1)
    candidates = [Candidate(1, 0), Candidate(2, 3), Candidate(3, 1), Candidate(4, -2)]
    assert {pick(candidates, rng) for _ in range(50)} == {2}


def test_pick_is_random_among_ties() -> None:
    rng = random.Random(2)
    counts = Counter(
        pick([Candidate(1, 2), Candidate(2, 2), Candidate(3, 1)], rng) for _ in range(600)
    )
    assert set(counts) == {1, 2}
    assert 200 < counts[1] < 400


def test_pick_with_no_candidates_is_none() -> None:
    assert pick([], random.Random(0)) is None


def test_checks_are_spread_uniformly_over_the_task() -> None:
    rng = random.Random(3)
    positions: Counter[int] = Counter()
    for _ in range(3000):
        regular, checks, pos = 4, 1, 0
        while True:
            if serve_check_next(regular, checks, rng):
                positions[pos] += 1
                break
            regular, pos = regular - 1, pos + 1
    assert set(positions) == {0, 1, 2, 3, 4}
    assert all(450 < n < 750 for n in positions.values())


def test_no_check_is_served_when_none_is_left() -> None:
    assert not serve_check_next(3, 0, random.Random(0))


def test_task_order_is_fixed_unless_randomised() -> None:
    slugs = ["a", "b", "c", "d", "e"]
    assert task_order(slugs, randomize=False, rng=random.Random(0)) == slugs
    orders = {tuple(task_order(slugs, randomize=True, rng=random.Random(s))) for s in range(20)}
    assert len(orders) > 1 and all(sorted(o) == slugs for o in orders)


def test_option_order_is_a_permutation_per_field() -> None:
    rng = random.Random(4)
    order = option_order("choice", n_options=5, parts=[], shuffle=True, rng=rng)
    assert sorted(order["answer"]) == [0, 1, 2, 3, 4]
    parts = [{"key": "a", "options": [1, 2, 3]}, {"key": "b", "options": [1, 2]}]
    order = option_order("multi", n_options=0, parts=parts, shuffle=True, rng=rng)
    assert sorted(order["a"]) == [0, 1, 2] and sorted(order["b"]) == [0, 1]
    assert option_order("choice", n_options=5, parts=[], shuffle=False, rng=rng) == {}
    assert option_order("rating", n_options=0, parts=[], shuffle=True, rng=rng) == {}


def test_shown_positions_map_back_to_canonical_indices() -> None:
    order = {"answer": [2, 0, 1]}
    assert shown(order, "answer", 3) == [2, 0, 1]
    assert to_canonical("choice", order, 0) == 2
    assert to_canonical("choice", order, "1") == 0
    assert to_canonical("best_worst", order, {"best": 0, "worst": 2}) == {"best": 2, "worst": 1}
    assert to_canonical("multi", {"a": [1, 0]}, {"a": 0, "b": 1}) == {"a": 1, "b": 1}


def test_unmappable_answers_pass_through_for_the_answer_rule_to_report() -> None:
    order = {"answer": [2, 0, 1]}
    assert to_canonical("choice", order, 7) == 7
    assert to_canonical("choice", order, "x") == "x"
    assert to_canonical("choice", order, None) is None
    assert to_canonical("choice", order, True) is True


@given(st.permutations(list(range(6))), st.integers(min_value=0, max_value=5))
def test_any_shown_position_maps_to_canonical_and_back(perm: list[int], position: int) -> None:
    order = {"answer": list(perm)}
    canonical = to_canonical("choice", order, position)
    assert canonical == perm[position]
    assert shown(order, "answer", 6).index(canonical) == position
