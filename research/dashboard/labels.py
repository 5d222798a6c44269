"""The report's codes in the reader's language: task titles, dimension and part labels,
group names, rater sets, coefficients, statistics and column headers (gettext, Chinese
first). One ``Labels`` per study and request; every template and chart goes through it.

``*`` in the report means "all": all parts right (a field), every source, condition or
form pooled (a split column); ``explain_star`` says which.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from research.dashboard.reasons import translate_reason
from scoring.report.paper import SUBSET, subset_name
from scoring.report.sets import HUMANS, KEY, MODELS, SetName, show_model, show_set_name
from studies.kinds import ALL_PARTS
from studies.models import Study

#: Coefficients and statistics by the report's name (docs/statistics.md defines each).
METRICS = {
    "percent_agreement": gettext_lazy("percent agreement"),
    "krippendorff_alpha": gettext_lazy("Krippendorff's α"),
    "fleiss_kappa": gettext_lazy("Fleiss' κ"),
    "cohen_kappa": gettext_lazy("Cohen's κ"),
    "gwet_ac1": gettext_lazy("Gwet's AC1"),
    "gwet_ac2": gettext_lazy("Gwet's AC2"),
    "brennan_prediger": gettext_lazy("Brennan–Prediger"),
    "conger_kappa": gettext_lazy("Conger's κ"),
    "fleiss_category_kappa": gettext_lazy("Fleiss' κ per category"),
    "cronbach_alpha": gettext_lazy("Cronbach's α"),
    "accuracy": gettext_lazy("accuracy"),
    "precision": gettext_lazy("precision"),
    "recall": gettext_lazy("recall"),
    "f1": gettext_lazy("F1"),
    "phi": gettext_lazy("Pearson φ"),
    "pearson": gettext_lazy("Pearson r"),
    "spearman": gettext_lazy("Spearman ρ"),
    "kendall": gettext_lazy("Kendall τ"),
    "mean_diff": gettext_lazy("mean difference"),
    "rate": gettext_lazy("rate"),
    "mean": gettext_lazy("mean"),
}
WEIGHTS = {
    "linear": gettext_lazy("linear weights"),
    "quadratic": gettext_lazy("quadratic weights"),
    "ordinal": gettext_lazy("ordinal weights"),
    "radical": gettext_lazy("radical weights"),
    "ratio": gettext_lazy("ratio weights"),
    "circular": gettext_lazy("circular weights"),
    "bipolar": gettext_lazy("bipolar weights"),
    "items=raters": gettext_lazy("raters as items"),
    "items=units": gettext_lazy("units as items"),
}
LEVELS = {
    "nominal": gettext_lazy("nominal"),
    "ordinal": gettext_lazy("ordinal"),
    "interval": gettext_lazy("interval"),
    "ratio": gettext_lazy("ratio"),
}
#: Rule metrics by the name the rule raters write (scoring/prosody/api.py ``CI_METRICS``,
#: ``SHI_METRICS``, ``COUPLET_METRICS``; docs/prosody.md defines each).
RULE_METRICS = {
    "structural": gettext_lazy("structure"),
    "tonal": gettext_lazy("tones"),
    "rhyme": gettext_lazy("rhyme"),
    "rhyme_lenient": gettext_lazy("rhyme (lenient)"),
    "structural_fuxi": gettext_lazy("structure (FuxiBench)"),
    "structural_standard": gettext_lazy("structure (standard form)"),
    "tonal_standard": gettext_lazy("tones (standard form)"),
    "structural_variant": gettext_lazy("structure (variant forms)"),
    "tonal_variant": gettext_lazy("tones (variant forms)"),
    "pattern": gettext_lazy("tone pattern"),
    "pattern_licensed": gettext_lazy("tone pattern (licensed variants)"),
    "faults": gettext_lazy("metrical faults"),
    "length": gettext_lazy("length"),
    "tone_opposition": gettext_lazy("tone opposition"),
    "ending": gettext_lazy("line endings"),
    "pos_parallelism_heuristic": gettext_lazy("parallelism of word classes (heuristic)"),
}
#: Rule families (scoring/prosody/families.py) by name, as a rule rater names them.
RULE_FAMILIES = {
    "classical": gettext_lazy("classical tones"),
    "modern": gettext_lazy("modern tones"),
    "ccv": gettext_lazy("CCiV's definitions"),
}
#: Rater sets named by a word (scoring/report/sets.py), and reference sets' suffixes.
SET_WORDS = {
    KEY: gettext_lazy("answer key"),
    HUMANS: gettext_lazy("all people"),
    MODELS: gettext_lazy("all models"),
}
SET_SUFFIXES = {"majority": gettext_lazy("majority"), "mean": gettext_lazy("mean")}
#: Column headers of every table the dashboard shows (unlisted columns keep their name).
COLUMNS = {
    "task": gettext_lazy("Task"),
    "field": gettext_lazy("Part or dimension"),
    "rater_set": gettext_lazy("Rater set"),
    "n_raters": gettext_lazy("Raters"),
    "n_responses": gettext_lazy("Responses"),
    "n_items": gettext_lazy("Items"),
    "n_ratings": gettext_lazy("Ratings"),
    "n_units": gettext_lazy("Units"),
    "value": gettext_lazy("Value"),
    "mean": gettext_lazy("Mean"),
    "sd": gettext_lazy("SD"),
    "ci": gettext_lazy("CI"),
    "ci_method": gettext_lazy("Interval"),
    "se": gettext_lazy("Standard error (analytic)"),
    "t_low": gettext_lazy("t interval, low"),
    "t_high": gettext_lazy("t interval, high"),
    "design_effect": gettext_lazy("Design effect"),
    "icc_person": gettext_lazy("ICC (people)"),
    "icc_item": gettext_lazy("ICC (items)"),
    "model_ci": gettext_lazy("Model's CI"),
    "group_ci": gettext_lazy("Group's CI"),
    "value_a": gettext_lazy("Value of a"),
    "value_b": gettext_lazy("Value of b"),
    "cohens_h": gettext_lazy("Cohen's h"),
    "test": gettext_lazy("Test"),
    "p_holm": gettext_lazy("p (Holm)"),
    "p_bh": gettext_lazy("p (Benjamini–Hochberg)"),
    "rank": gettext_lazy("Rank"),
    "best_set": gettext_lazy("Cannot be told apart from the best"),
    "others_diff": gettext_lazy("Other judges' difference"),
    "controlled_diff": gettext_lazy("Difference controlled for quality"),
    "controlled_ci": gettext_lazy("Its CI"),
    "controlled_reason": gettext_lazy("Note (controlled)"),
    "rule": gettext_lazy("Rule metric"),
    "version": gettext_lazy("Version"),
    "source": gettext_lazy("Source"),
    "condition": gettext_lazy("Condition"),
    "sample": gettext_lazy("Sample"),
    "form": gettext_lazy("Form"),
    "category": gettext_lazy("Category"),
    "n": gettext_lazy("n"),
    "kind": gettext_lazy("Statistic"),
    "successes": gettext_lazy("Passing"),
    "scope": gettext_lazy("Scope"),
    "left_out": gettext_lazy("Left out"),
    "judge": gettext_lazy("Judge"),
    "reference": gettext_lazy("Reference"),
    "generator": gettext_lazy("Generating model"),
    "positive": gettext_lazy("Positive option"),
    "average": gettext_lazy("Averaging"),
    "metric": gettext_lazy("Coefficient"),
    "set_a": gettext_lazy("Set a"),
    "set_b": gettext_lazy("Set b"),
    "summary": gettext_lazy("Row"),
    "rater_a": gettext_lazy("Rater a"),
    "rater_b": gettext_lazy("Rater b"),
    "weights": gettext_lazy("Weights"),
    "n_pairs": gettext_lazy("Pairs"),
    "min": gettext_lazy("Min"),
    "max": gettext_lazy("Max"),
    "reason": gettext_lazy("Note"),
    "setting": gettext_lazy("Setting"),
    "planned": gettext_lazy("Planned"),
    "actual": gettext_lazy("Actual"),
    "first_seen_after": gettext_lazy("First seen after (answers)"),
    "first_seen_at": gettext_lazy("First seen at"),
    "threshold": gettext_lazy("Pass threshold"),
    "poems": gettext_lazy("Poems"),
    "judges": gettext_lazy("Judges"),
    "people": gettext_lazy("People"),
    "n_pass": gettext_lazy("n passing"),
    "n_fail": gettext_lazy("n failing"),
    "judges_gap": gettext_lazy("Judges' gap"),
    "people_gap": gettext_lazy("People's gap"),
    "difference": gettext_lazy("Difference"),
    "model": gettext_lazy("Model"),
    "n_own": gettext_lazy("n own"),
    "n_other": gettext_lazy("n other"),
    "mean_own": gettext_lazy("Own poems"),
    "mean_other": gettext_lazy("Others' poems"),
    "diff": gettext_lazy("Difference"),
    "measure": gettext_lazy("Measure"),
    "length": gettext_lazy("Length (characters)"),
    "statistic": gettext_lazy("Statistic"),
    "p_value": gettext_lazy("p"),
    "run": gettext_lazy("Run"),
    "published": gettext_lazy("Published"),
    "n_published": gettext_lazy("n published"),
    "computed": gettext_lazy("Computed"),
    "computed_as": gettext_lazy("Computed as"),
    "match": gettext_lazy("Match"),
    "a": gettext_lazy("Set a"),
    "b": gettext_lazy("Set b"),
    "pearson": gettext_lazy("Pearson r"),
    "spearman": gettext_lazy("Spearman ρ"),
    "kendall": gettext_lazy("Kendall τ"),
    "mean_diff": gettext_lazy("Mean difference a − b"),
    "model_value": gettext_lazy("Model's accuracy"),
    "group": gettext_lazy("Group"),
    "group_value": gettext_lazy("Group's accuracy"),
    "n_members": gettext_lazy("Members"),
    "percentile": gettext_lazy("Percentile of the model among the members"),
    "mean_pass": gettext_lazy("Mean, passing"),
    "mean_fail": gettext_lazy("Mean, failing"),
}
#: Field names every study shares (the others are a task's own dimension or part keys).
FIELDS = {
    "answer": gettext_lazy("answer"),
    "best": gettext_lazy("best"),
    "worst": gettext_lazy("worst"),
}
#: Text values the report writes that a reader should see translated.
VALUES = {
    "machine": gettext_lazy("machine-written"),
    "all": gettext_lazy("all"),
    "pair": gettext_lazy("pair"),
    "group pair": gettext_lazy("pair of groups"),
    "task": gettext_lazy("per task"),
    "pooled": gettext_lazy("pooled"),
    "without": gettext_lazy("one left out"),
    "binary": gettext_lazy("positive option"),
    "macro": gettext_lazy("macro-average"),
    "key": gettext_lazy("answer key"),
    "matched": gettext_lazy("matched"),
    "no match": gettext_lazy("no match"),
    "human": gettext_lazy("human poets"),
    "wilson": gettext_lazy("Wilson"),
    "t over item means": gettext_lazy("t over item means"),
    "Fisher z": gettext_lazy("Fisher z"),
    "mean": gettext_lazy("mean"),
    "rate": gettext_lazy("rate"),
    "item bootstrap (percentile)": gettext_lazy("item bootstrap (percentile)"),
    "stratified item bootstrap (percentile)": gettext_lazy(
        "stratified item bootstrap (percentile)"
    ),
    "item-cluster bootstrap (percentile)": gettext_lazy("item-cluster bootstrap (percentile)"),
    "normal over ratings (mean ± z·SE)": gettext_lazy("normal over ratings (mean ± z·SE)"),
    "item bootstrap of the mean over pairs (percentile)": gettext_lazy(
        "item bootstrap of the mean over pairs (percentile)"
    ),
    "paired item × person bootstrap (percentile)": gettext_lazy(
        "paired item × person bootstrap (percentile)"
    ),
    "t over answers": gettext_lazy("t over answers"),
    # crossed.clustered_mean's method when no interval could be had and nothing clustered
    "independent answers": gettext_lazy("independent answers"),
    "t over paired differences": gettext_lazy("t over paired differences"),
    "Welch's t": gettext_lazy("Welch's t"),
    "Welch's t, skewness-corrected (Hall 1992)": gettext_lazy(
        "Welch's t, skewness-corrected (Hall 1992)"
    ),
    "McNemar exact": gettext_lazy("McNemar exact"),
    "bootstrap Wald": gettext_lazy("bootstrap Wald"),
    "every table": gettext_lazy("every table"),
    "person+item-clustered Wilson (CGM)": gettext_lazy("person+item-clustered Wilson (CGM)"),
    "person+item-clustered t (CGM)": gettext_lazy("person+item-clustered t (CGM)"),
    "person-clustered Wilson (CGM)": gettext_lazy("person-clustered Wilson (CGM)"),
    "person-clustered t (CGM)": gettext_lazy("person-clustered t (CGM)"),
    "item-clustered Wilson (CGM)": gettext_lazy("item-clustered Wilson (CGM)"),
    "item-clustered t (CGM)": gettext_lazy("item-clustered t (CGM)"),
    "one-way random, single rater": gettext_lazy("one-way random, single rater"),
    "two-way random, absolute agreement, single rater": gettext_lazy(
        "two-way random, absolute agreement, single rater"
    ),
    "two-way mixed, consistency, single rater": gettext_lazy(
        "two-way mixed, consistency, single rater"
    ),
    "one-way random, mean of k raters": gettext_lazy("one-way random, mean of k raters"),
    "two-way random, absolute agreement, mean of k raters": gettext_lazy(
        "two-way random, absolute agreement, mean of k raters"
    ),
    "two-way mixed, consistency, mean of k raters": gettext_lazy(
        "two-way mixed, consistency, mean of k raters"
    ),
}
#: Columns holding a note the report writes in English (shown through ``reasons``).
NOTE_COLUMNS = ("reason", "controlled_reason", "computed_as", "subset", "why")


class Labels:
    """Reader-facing names of one study's tasks, dimensions, groups and rater sets."""

    def __init__(self, study: Study) -> None:
        self.tasks: dict[str, str] = {}
        self.fields: dict[tuple[str, str], str] = {}
        self.kinds: dict[str, str] = {}
        for t in study.tasks.order_by("position", "slug"):
            self.tasks[t.slug] = t.title or t.slug
            self.kinds[t.slug] = t.kind
            for key, label in t.dimension_labels().items():
                self.fields[(t.slug, key)] = label
        self.groups: dict[str, str] = dict(study.groups.values_list("slug", "name"))

    def task(self, slug: Any) -> str:
        if slug in (None, ""):
            return ""
        if slug == "*":
            return _("all tasks")
        return self.tasks.get(slug, str(slug))

    def field(self, task: Any, field: Any) -> str:
        if field == ALL_PARTS:
            return _("all parts right (*)")
        if field in (None, ""):
            return ""
        if field in FIELDS:
            return str(FIELDS[field])
        if (task, field) in self.fields:
            return self.fields[(task, field)]
        if field in RULE_METRICS:  # the rule tables' field is the rule metric
            return str(RULE_METRICS[field])
        return str(field)

    def rater_set(self, name: Any) -> str:
        """``group:A`` → the group's name; ``humans`` → all people; ``model:x@run`` → x
        (run); reference sets with " majority" / " mean" keep that suffix, translated."""
        if name in (None, ""):
            return ""
        return rater_set_label(str(name), self.groups)

    @staticmethod
    def model(name: Any) -> str:
        """A model as every table and chart names it: ``x`` or ``x@run`` (a rater set's
        ``model:x@run``, a published figure's model and run) → ``x (run)``."""
        return show_model(str(name or ""))

    @staticmethod
    def source(value: Any) -> str:
        """A poem source as every table names it: a model's (``model:x@run``) as
        ``model`` names it, any other as written."""
        text = str(value)
        return Labels.model(text) if text.startswith("model:") else text

    @staticmethod
    def rule(name: Any) -> str:
        """A rule rater (``prosody:classical``, ``ccv``), or one of its metrics with or
        without a version (``prosody:classical/structural_fuxi``,
        ``prosody:classical/prosody-1.3/rhyme``; ``rule:`` in front or not) in words:
        结构(标准) · 古典声调."""
        text = str(name or "").removeprefix("rule:")
        parts = text.split("/")
        rater, metric = parts[0], parts[-1] if len(parts) > 1 else ""
        family = rater.removeprefix("prosody:")
        shown = str(RULE_FAMILIES.get(family, rater))
        if not metric:
            return shown
        return f"{RULE_METRICS.get(metric, metric)} · {shown}"

    @staticmethod
    def metric(name: Any, weights: Any = None) -> str:
        text = str(METRICS.get(name, name)) if name else ""
        if weights and weights != "none" and weights in WEIGHTS:
            text += f" ({WEIGHTS[weights]})"
        return text

    def value(self, column: str, value: Any, row: dict[str, Any]) -> Any:
        """A cell as the reader should see it (codes named; numbers left to the template)."""
        if value is None:
            return None
        if column == "task" or column == "left_out":
            return self.task(value)
        if column == SUBSET:  # a derived key of the paper layouts (fuxi-table6)
            return subset_name(
                str(value), _("with all categories"), _("without %(task)s"), self.task
            )
        if column == "field":
            return self.field(row.get("task"), value)
        if column in ("rater_set", "judge", "reference", "set_a", "set_b", "judges", "people"):
            return self.rater_set(value)
        if column == "metric":
            return self.metric(value, row.get("weights"))
        if column in NOTE_COLUMNS:
            return translate_reason(value, self.rater_set)
        if column in ("rule", "measure", "rate_metric"):
            return self.rule(value) if isinstance(value, str) and value else value
        if column in ("level",):
            return str(LEVELS.get(value, value))
        if column in ("source", "condition", "form", "category", "generator") and value == "*":
            return _("all (*)")
        if isinstance(value, str) and value in VALUES:
            return str(VALUES[value])
        if isinstance(value, bool):
            return _("yes") if value else _("no")
        return value


def rater_set_label(name: str, groups: Mapping[str, str]) -> str:
    """A rater set's name in words, its groups named by ``groups`` (slug → name):
    ``Labels.rater_set``, also for a chart that has the study's groups only."""

    def part(set_name: SetName) -> str:
        if set_name.kind in SET_WORDS:
            return str(SET_WORDS[set_name.kind])
        if set_name.kind == "group":
            return groups.get(set_name.key) or set_name.key
        if set_name.kind == "model":
            return Labels.model(set_name.key)
        if set_name.kind == "rule":
            return Labels.rule(set_name.key)
        return set_name.text

    return show_set_name(name, part, _suffixed)


def _suffixed(shown: str, suffix: str) -> str:
    return f"{shown} ({SET_SUFFIXES[suffix]})"


#: The report settings' choices (scoring/report/settings.py ``RATINGS_CI``, ``CLUSTERS``).
SETTING_VALUES = {
    "crossed": gettext_lazy("people and items crossed"),
    "t": gettext_lazy("t over item means"),
    "bootstrap": gettext_lazy("item bootstrap"),
    "normal": gettext_lazy("normal over ratings"),
    "person+item": gettext_lazy("people and items"),
    "person+prompt": gettext_lazy("people and prompts"),
    "person": gettext_lazy("people"),
    "item": gettext_lazy("items"),
    "prompt": gettext_lazy("prompts"),
    "none": gettext_lazy("none (answers independent)"),
}


def setting_label(value: str) -> str:
    """A report setting's choice in words, with its value (what the CLI and API take)."""
    name = SETTING_VALUES.get(value)
    return f"{name} ({value})" if name is not None else value


def column_label(name: str) -> str:
    return str(COLUMNS.get(name, name))


def explain_star() -> str:
    return _(
        "* means all: a field * is the share of items with all parts right; a source, "
        "condition or form * pools every value."
    )
