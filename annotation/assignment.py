"""The assignment strategy, as pure functions (no database): which item next, in what order.

Rule (issue 3, §3): each participant gets ``per_participant`` items of each task, never
the same item twice, chosen toward their group's ``target_per_item``: the item with the
largest *shortfall* (target − answered − unexpired claims, counted for that group) first,
random among ties. When every item has reached its target the rule still holds (the
least-answered items come first), so a participant always gets their full quota.

Attention checks are served *on top of* ``per_participant``: every participant gets every
check item of a task once, at a uniformly random place among that task's questions
(:func:`serve_check_next`). Checks take no part in balancing.

Option order: when a study shuffles options, each participant sees a fixed random
permutation per option list (the task's kind says which lists an item has and which list
each field chooses from: ``studies.kinds``), stored as ``shown position -> canonical
index``; the browser only ever sees shown positions and :func:`to_canonical` maps an
answer back, so stored values are canonical and scoring needs no knowledge of the shuffle.

The thin ORM adapter that feeds these functions is ``annotation.services.claims``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from studies.kinds import KINDS
from studies.values import read_index


@dataclass(frozen=True)
class Candidate:
    item_id: int
    shortfall: int  # target − answered − live claims, for the participant's group


def pick(candidates: Sequence[Candidate], rng: random.Random) -> int | None:
    """The id of an item with the largest shortfall, chosen at random among ties."""
    if not candidates:
        return None
    best = max(c.shortfall for c in candidates)
    return rng.choice([c.item_id for c in candidates if c.shortfall == best])


def serve_check_next(regular_left: int, checks_left: int, rng: random.Random) -> bool:
    """Whether the next item of a task is an attention check.

    Drawing a check with probability checks_left / (all left) places each check at a
    uniformly random position among the task's remaining questions.
    """
    total = regular_left + checks_left
    if checks_left <= 0 or total <= 0:
        return False
    return rng.random() < checks_left / total


def task_order(slugs: Sequence[str], *, randomize: bool, rng: random.Random) -> list[str]:
    order = list(slugs)
    if randomize:
        rng.shuffle(order)
    return order


def option_order(
    kind: str,
    *,
    n_options: int,
    parts: Sequence[Mapping[str, Any]],
    shuffle: bool,
    rng: random.Random,
) -> dict[str, list[int]]:
    """Per option list, the canonical index shown at each position (empty = canonical order)."""
    if not shuffle:
        return {}
    return shuffled(option_lists(kind, n_options=n_options, parts=parts), rng)


def option_lists(
    kind: str, *, n_options: int, parts: Sequence[Mapping[str, Any]]
) -> dict[str, int]:
    """The item's option lists and their sizes (the task's kind says which: ``studies.kinds``)."""
    return dict(KINDS[kind].option_lists(n_options=n_options, parts=parts))


def shuffled(lists: Mapping[str, int], rng: random.Random) -> dict[str, list[int]]:
    """A uniformly random permutation per option list, each drawn independently. Drawn
    for lists of these sizes before the item is known (``annotation.services.claims``:
    the claim in one statement), it is as random as one drawn after: a permutation does
    not depend on which item it is shown with."""
    return {key: rng.sample(range(n), n) for key, n in lists.items()}


def order_fits(
    kind: str,
    order: Mapping[str, Sequence[int]],
    *,
    n_options: int,
    parts: Sequence[Mapping[str, Any]],
) -> bool:
    """Whether a claim's shuffle still fits the item: each shuffled list has as many
    options as the item has now (a reload can change that: ``studies.loading.reshape``)."""
    lists = KINDS[kind].option_lists(n_options=n_options, parts=parts)
    return all(lists.get(key) == len(perm) for key, perm in order.items())


def refit_order(
    kind: str,
    order: Mapping[str, Sequence[int]],
    *,
    n_options: int,
    parts: Sequence[Mapping[str, Any]],
    rng: random.Random,
) -> dict[str, list[int]]:
    """A shuffle for the item as it is now: lists that still fit keep their order, the
    others are shuffled afresh (an unshuffled claim stays unshuffled)."""
    if not order:
        return {}
    lists = KINDS[kind].option_lists(n_options=n_options, parts=parts)
    return {
        key: list(order[key]) if len(order.get(key) or ()) == n else rng.sample(range(n), n)
        for key, n in lists.items()
    }


def shown(order: Mapping[str, list[int]], key: str, n: int) -> list[int]:
    """Canonical indices in display order for one option list."""
    perm = order.get(key)
    return list(perm) if perm and len(perm) == n else list(range(n))


def _map(perm: Sequence[int] | None, raw: Any) -> Any:
    """Shown position -> canonical index; anything unmappable passes through unchanged
    so that the one answer rule (``studies.kinds.parse_answer``) reports it. Every spelling
    that rule would read as an option is mapped here, so none can slip past the shuffle."""
    if not perm:
        return raw
    position = read_index(raw)
    if position is None or not 0 <= position < len(perm):
        return raw
    return perm[position]


def to_canonical(kind: str, order: Mapping[str, list[int]], answer: Any) -> Any:
    """An answer given in shown positions, with option indices made canonical."""
    declared = KINDS[kind]

    def canonical(field: str, raw: Any) -> Any:
        key = declared.options_key(field)
        return _map(order.get(key) if key else None, raw)

    if isinstance(answer, dict):
        return {field: canonical(field, raw) for field, raw in answer.items()}
    if answer is None or declared.bare_field is None:
        return answer
    return canonical(declared.bare_field, answer)
