"""Reloaded items whose options change (their order, a text or their number): what a
reload may do.

Answers are stored as option positions (canonical indices into the item's option lists),
and a volunteer's click arrives as a *shown* position, mapped through the shuffle drawn
for their claim (``Assignment.option_order``) over the options as they were. A reload
that changes an option list (reorders it, edits a text, adds or drops an option) would
silently give every stored answer and every open claim another meaning: 甲 chosen, 戊
stored. So a reload that changes an item's options is

* refused, naming the line, the item and how many raters have answered it and how many
  claims are open on it, when the item has either;
* allowed with an explicit remap (``--remap``, docs/loading.md): for each such item and
  option list, the new position of each old option (``null``: dropped, allowed only when
  no stored answer chose it). ``jobs.loads`` then rewrites the stored answers (and the
  answered claims' orders) through it in the load's transaction, regrades them and says
  how many it remapped;
* allowed when the item has neither.

An item whose options change is marked ``reshaped``: the load releases its open claims
(``annotation.services.claims_release``), so whoever held one gets a freshly shuffled
question. The answer rule refuses any answer whose order does not fit the item it maps
into, whatever the path.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from django.db.models import Count, Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from studies.kinds import ANSWER, KINDS
from studies.loading.fields import canonical_hash
from studies.loading.problems import Collector
from studies.models import Item
from studies.values import Text, with_params

BATCH = 500
# external id -> option list key -> new position of each old option (None: dropped)
Remap = dict[str, dict[str, list[int | None]]]
# item pk -> option list key -> new position of each old option
RemapByItem = dict[int, dict[str, list[int | None]]]


def shape(kind: str, options: Sequence[Any], parts: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Option list key -> number of options, as the shuffle sees an item."""
    return KINDS[kind].option_lists(n_options=len(options), parts=parts)


def options_hash(kind: str, options: Sequence[Any], parts: Sequence[Mapping[str, Any]]) -> str:
    """A digest of an item's option lists (order and content)."""
    return canonical_hash(KINDS[kind].option_contents(options=options, parts=parts))


def parse_remap(raw: Any, collector: Collector) -> Remap:
    """``--remap``'s JSON: ``{"item id": [new position of old option 0, of 1, ...]}``,
    or, per option list, ``{"item id": {"part key": [...], ...}}`` (multi-part items)."""
    if not isinstance(raw, dict):
        collector.add(None, "remap", _('must be a JSON object: {"item id": [new positions]}'))
        return {}
    remap: Remap = {}
    for ext, lists in raw.items():
        if isinstance(lists, list):
            lists = {ANSWER: lists}
        if not isinstance(lists, dict) or not lists:
            collector.add(None, f"remap.{ext}", _("must be a list of new positions, or an object"))
            continue
        remap[ext] = {}
        for key, positions in lists.items():
            ok = isinstance(positions, list) and all(
                p is None or (isinstance(p, int) and not isinstance(p, bool)) for p in positions
            )
            if not ok:
                collector.add(
                    None,
                    f"remap.{ext}.{key}",
                    _(
                        "must be a list of whole numbers (the new position of each old option, "
                        "counting from 0) or null (the option is dropped)"
                    ),
                )
                continue
            remap[ext][key] = positions
    return remap


def check_reshaped_batch(
    changed: Sequence[tuple[int, Any]],
    kinds: Mapping[int, str],
    collector: Collector,
    remap: Remap,
    checked: RemapByItem,
    moved: set[str],
) -> None:
    """Of ``changed`` (stored item pk, its spec in the file: at most ``BATCH`` items whose
    content changes), mark the specs whose options change (``reshaped``); refuse those
    with answers or open claims unless ``remap`` says where each old option went. A spec
    has ``line``, ``external_id``, ``options_hash``, ``shape`` and ``reshaped``. Adds the
    checked remaps to ``checked`` (by item pk) and the reshaped items' ids to ``moved``."""
    batch = dict(changed)
    before: dict[int, tuple[str, dict[str, list[Any]]]] = {}
    rows = (
        Item.objects.filter(pk__in=batch)
        .order_by()
        .values_list("pk", "options", "parts", "task_id")
    )
    for pk, options, parts, task_id in rows:
        kind = kinds[task_id]
        if options_hash(kind, options or [], parts or []) != batch[pk].options_hash:
            contents = KINDS[kind].option_contents(options=options or [], parts=parts or [])
            before[pk] = (kind, contents)
    raters, claims = _answers_and_claims(list(before))
    for pk, (kind, lists) in before.items():
        spec = batch[pk]
        moved.add(spec.external_id)
        spec.reshaped = True
        if spec.external_id in remap:
            mapping = _check_mapping(pk, kind, lists, spec, remap[spec.external_id], collector)
            if mapping is not None:
                checked[pk] = mapping
        elif raters.get(pk) or claims.get(pk):
            collector.add(
                spec.line,
                "options" if set(lists) == {ANSWER} else "parts",
                _refusal(spec.external_id, raters.get(pk, 0), claims.get(pk, 0), lists, spec),
            )


def check_remap_used(
    remap: Remap, lines: Mapping[str, int], moved: set[str], collector: Collector
) -> None:
    """Every item a remap names must be in the file (``lines``: its id -> line) and have
    options that change (``moved``)."""
    for ext in remap:
        if ext not in lines:
            collector.add(
                None,
                f"remap.{ext}",
                with_params(_("item %(item)r is not in this file"), item=ext),
            )
        elif ext not in moved:
            collector.add(
                lines[ext],
                "remap",
                with_params(
                    _(
                        "item %(item)r: its options do not change in this file; leave it out "
                        "of the remap"
                    ),
                    item=ext,
                ),
            )


def _answers_and_claims(pks: list[int]) -> tuple[dict[int, int], dict[int, int]]:
    """Per item: how many raters answered it, how many open claims it has."""
    if not pks:
        return {}, {}
    items = Item.objects.filter(pk__in=pks)
    raters = dict(
        items.filter(responses__isnull=False)
        .annotate(n=Count("responses__rater", distinct=True))
        .values_list("pk", "n")
    )
    open_claim = Q(assignments__status="claimed")
    claims = dict(items.filter(open_claim).annotate(n=Count("assignments")).values_list("pk", "n"))
    return raters, claims


def _refusal(ext: str, raters: int, claims: int, lists: dict[str, list[Any]], spec: Any) -> Text:
    answered = ngettext_lazy("%(n)s rater answered it", "%(n)s raters answered it", raters)
    claimed = ngettext_lazy("%(n)s open claim on it", "%(n)s open claims on it", claims)
    held: Text = with_params(answered, n=raters) if raters else ""
    if claims:
        on_it = with_params(claimed, n=claims)
        held = with_params(_("%(a)s and %(b)s"), a=held, b=on_it) if raters else on_it
    sizes = {key: len(options) for key, options in lists.items()}
    return with_params(
        _(
            "item %(item)r already has answers or claims (%(held)s), so its options cannot "
            "change: order, text or number (%(now)s now, %(new)s in this file); answers are "
            "stored as option positions. Give --remap with the new position of each old "
            "option (docs/loading.md), or load the changed item under a new id."
        ),
        item=ext,
        held=held,
        now=_sizes(sizes),
        new=_sizes(spec.shape),
    )


def _check_mapping(
    pk: int,
    kind: str,
    lists: dict[str, list[Any]],
    spec: Any,
    given: dict[str, list[int | None]],
    collector: Collector,
) -> dict[str, list[int | None]] | None:
    """The remap of one item, checked against its old and new option lists; a list the
    remap leaves out must be unchanged in size (it is kept as it is)."""
    ext, ok = spec.external_id, True
    mapping: dict[str, list[int | None]] = {}

    def problem(key: str | None, message: Text) -> None:
        nonlocal ok
        ok = False
        collector.add(spec.line, f"remap.{ext}" + (f".{key}" if key else ""), message)

    for key in given:
        if key not in lists:
            problem(
                key,
                with_params(
                    _("is not an option list of item %(item)r (%(lists)s)"),
                    item=ext,
                    lists=", ".join(lists),
                ),
            )
    chosen = _chosen(pk, kind)
    values = getattr(spec, "values", {})
    now = KINDS[kind].option_contents(
        options=values.get("options") or [], parts=values.get("parts") or []
    )
    for key, old in lists.items():
        new_size = spec.shape.get(key)
        if new_size is None:
            problem(key, _("this option list is not in the file's version of the item"))
            continue
        positions = given.get(key)
        if positions is None:
            if new_size != len(old):
                problem(
                    key,
                    with_params(
                        _("the list changes size (%(old)s to %(new)s): remap it"),
                        old=len(old),
                        new=new_size,
                    ),
                )
            positions = list(range(len(old)))
        if len(positions) != len(old):
            problem(
                key,
                with_params(
                    _("gives %(given)s positions for %(old)s old options"),
                    given=len(positions),
                    old=len(old),
                ),
            )
            continue
        kept = [p for p in positions if p is not None]
        if any(p < 0 or p >= new_size for p in kept) or len(set(kept)) != len(kept):
            problem(
                key,
                with_params(
                    _("each new position must be a different number from 0 to %(last)s"),
                    last=new_size - 1,
                ),
            )
            continue
        for old_index, found in _moved_from_its_text(old, now.get(key, []), positions, chosen, key):
            problem(
                key,
                with_params(
                    _(
                        "moves old option %(option)s, which %(n)s stored answer(s) chose, to "
                        "position %(new)s, but its text is at position %(found)s in the file"
                    ),
                    option=old_index,
                    n=chosen[(key, old_index)],
                    new=positions[old_index],
                    found=found,
                ),
            )
        for old_index, p in enumerate(positions):
            if p is None and chosen[(key, old_index)]:
                n = chosen[(key, old_index)]
                problem(
                    key,
                    with_params(
                        _("drops old option %(option)s, which %(n)s stored answer(s) chose"),
                        option=old_index,
                        n=n,
                    ),
                )
        mapping[key] = positions
    return mapping if ok else None


def _moved_from_its_text(
    old: Sequence[Any],
    new: Sequence[Any],
    positions: Sequence[int | None],
    chosen: Counter[tuple[str, int]],
    key: str,
) -> list[tuple[int, int]]:
    """(old option, where its text is now) for each chosen old option whose text is once
    in both lists, at another position than the remap sends it to: the remap would give
    its stored answers another option's meaning."""
    wrong: list[tuple[int, int]] = []
    for old_index, p in enumerate(positions):
        text = old[old_index]
        if p is None or not chosen[(key, old_index)]:
            continue
        if old.count(text) == 1 and new.count(text) == 1 and new[p] != text:
            wrong.append((old_index, list(new).index(text)))
    return wrong


def _chosen(pk: int, kind: str) -> Counter[tuple[str, int]]:
    """(option list, option) -> how many stored answers to item ``pk`` chose it."""
    counts: Counter[tuple[str, int]] = Counter()
    rows = (
        Item.objects.filter(pk=pk, responses__value__isnull=False)
        .values_list("responses__field", "responses__value")
        .annotate(n=Count("responses"))
    )
    for field, value, n in rows:
        key = KINDS[kind].options_key(field)
        if key is not None:
            counts[(key, int(value))] += n
    return counts


def _sizes(lists: Mapping[str, int]) -> str:
    if set(lists) == {ANSWER}:
        return str(lists[ANSWER])
    return ", ".join(f"{key}: {n}" for key, n in lists.items()) or "none"
