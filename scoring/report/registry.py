"""The report's tables: one spec per table, the one place a table is named.

Everything else is derived from ``SPECS``: the report's ``TABLES`` and their order,
``PAPER_TABLES`` (the dashboard's paper panels), the files' columns (``writers``), the
dashboard's columns (``research.dashboard.tables``) and the API schema
(``research.api.serializers.ReportOut``). Adding a table is one ``TableSpec`` here, its
builder (a function of ``build.Context``, usually in ``scoring/report/tables.py``) and its
section in docs/report.md (a test checks each table has one): docs/architecture.md has a
worked example.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy

from scoring.report import (
    abilities,
    agreement,
    bws,
    classes,
    comparisons,
    icc,
    items,
    prereg,
    samples,
)
from scoring.report import tables as t
from scoring.report.data import aggregate_rows
from scoring.report.settings import BY_KEYS

if TYPE_CHECKING:
    from scoring.report.build import Context

Rows = list[dict[str, Any]]


@dataclass(frozen=True)
class TableSpec:
    """One table of the report.

    ``columns``: its known columns, in order (files have a header even when it is empty;
    other keys a row has follow them). ``shown``: the columns the dashboard shows
    (``ci`` stands for ci_low–ci_high; ``None``: the rows' own). ``native``: split keys
    the table has as columns of its own. ``accepts``: the split keys (``--by``) that mean
    something for this table; any other key asked for leaves it computed once on the whole
    study (``()``: one table for the whole study whatever ``by`` says; the report's
    ``provenance["by"]`` lists which tables were split by what). ``data_only``: the rows depend on the data (the tasks and
    ``by``) and on no other setting, so a cached copy serves any confidence, resamples,
    threshold… ``heavy``: costly enough (minutes of CPU at 1,000,000 responses) that the
    dashboard's report job leaves it to a job of its own (``jobs.reports``: the report is
    stored with it pending, and the dashboard shows it in its section when that job is
    done); the CLI and ``build_report`` without ``defer`` compute it in-process like any
    other. ``paper``: one of the tables the papers publish (the dashboard's paper
    panels, in this order). ``title``: what the table holds, in the reader's language
    (the dashboard's downloads are named by it).
    """

    name: str
    build: Callable[[Context], Rows]
    columns: tuple[str, ...]
    title: Promise | str = ""
    shown: tuple[str, ...] | None = None
    native: tuple[str, ...] = ()
    accepts: tuple[str, ...] = BY_KEYS
    data_only: bool = False
    heavy: bool = False
    paper: bool = False

    @property
    def split(self) -> bool:
        """Whether any ``--by`` key can split this table."""
        return bool(self.accepts)

    def split_keys(self, by: tuple[str, ...]) -> tuple[str, ...]:
        """The keys of ``by`` this table is split by: those it accepts and has no column of
        its own for (``native``)."""
        return tuple(k for k in by if k in self.accepts and k not in self.native)

    def own_keys(self, by: tuple[str, ...]) -> tuple[str, ...]:
        """The keys of ``by`` the table already has as columns of its own."""
        return tuple(k for k in by if k in self.native)


def _names(words: str) -> tuple[str, ...]:
    return tuple(words.split())


def _exclusions(c: Context) -> Rows:
    return c.data.exclusions


def _aggregates(c: Context) -> Rows:
    return aggregate_rows(c.data.study)


def _classes(c: Context) -> Rows:
    return c.class_tables[0]


def _confusion(c: Context) -> Rows:
    return c.class_tables[1]


def _samples(c: Context) -> Rows:
    return samples.sample_rows(c.data)


def _plan_deviations(c: Context) -> Rows:
    return prereg.deviation_rows(c.full.study, c.opts)


#: Every table of the report, in the report's order (docs/report.md describes each).
SPECS: tuple[TableSpec, ...] = (
    TableSpec(
        "exclusions",
        _exclusions,
        title=gettext_lazy("Exclusions"),
        columns=_names("reason basis n_participants n_responses applies_to"),
        accepts=(),
    ),
    TableSpec(
        "plan_deviations",
        _plan_deviations,
        title=gettext_lazy("Departures from the frozen plan"),
        columns=_names(
            "setting planned actual reason first_seen_after first_seen_at plan_sha256 frozen_at "
            "frozen_after"
        ),
        shown=_names("setting planned actual reason first_seen_after first_seen_at"),
        accepts=(),
    ),
    TableSpec(
        "accuracy",
        t.accuracy,
        title=gettext_lazy("Accuracy"),
        columns=_names(
            "task field rater_set n_raters n_responses value ci_low ci_high ci_method design_effect icc_person icc_item successes"
        ),
        shown=_names(
            "task field rater_set n_raters n_responses value ci ci_method design_effect icc_person icc_item"
        ),
    ),
    TableSpec(
        "model_vs_groups",
        t.model_vs_groups,
        title=gettext_lazy("Models against each group"),
        columns=_names(
            "task field model model_value model_ci_low model_ci_high group group_value group_ci_low group_ci_high n_members percentile ci_method design_effect icc_person icc_item"
        ),
        shown=_names(
            "task field model model_value model_ci group group_value group_ci n_members percentile ci_method design_effect"
        ),
    ),
    TableSpec(
        "comparisons",
        t.comparisons,
        title=gettext_lazy("Comparisons between rater sets"),
        columns=tuple(comparisons.COLUMNS),
        shown=_names(
            "kind task field summary a b n_items value_a value_b diff ci cohens_h test p_value p_holm p_bh rank best_set reason"
        ),
    ),
    TableSpec(
        "agreement",
        t.agreement,
        title=gettext_lazy("Agreement"),
        columns=tuple(agreement.COLUMNS),
    ),
    TableSpec(
        "correlation",
        t.correlation,
        title=gettext_lazy("Correlation"),
        columns=_names("task field a b pearson spearman kendall mean_diff n pearson_p"),
        shown=_names("task field a b pearson spearman kendall mean_diff n"),
    ),
    TableSpec(
        "rule_vs_rating",
        t.rule_vs_rating,
        title=gettext_lazy("Rules vs ratings"),
        columns=_names(
            "task field rule rater_set n_pass n_fail mean_pass mean_fail diff ci_low ci_high threshold ci_method reason"
        ),
        shown=_names("task field rule rater_set n_pass n_fail mean_pass mean_fail diff ci reason"),
    ),
    TableSpec(
        "rule_scores",
        t.rule_scores,
        title=gettext_lazy("Rule scores per form"),
        columns=_names("rule field form source n mean"),
        shown=_names("rule field form source n mean"),
        native=_names("form source"),
    ),
    TableSpec(
        "aggregates",
        _aggregates,
        title=gettext_lazy("Published results"),
        columns=_names("model task metric value n run source"),
        accepts=(),
    ),
    TableSpec(
        "ratings",
        t.ratings,
        title=gettext_lazy("Mean ratings"),
        columns=_names(
            "task field rater_set n_items n_raters n_ratings mean sd ci_low ci_high ci_method design_effect icc_person icc_item"
        ),
        shown=_names(
            "task field rater_set n_items n_raters n_ratings mean sd ci ci_method design_effect icc_person icc_item"
        ),
        paper=True,
    ),
    TableSpec(
        "rule_rates",
        t.rule_rates,
        title=gettext_lazy("Rule rates per source and condition"),
        columns=_names(
            "rule version field source condition n kind value ci_low ci_high ci_method design_effect icc_person icc_item successes"
        ),
        shown=_names(
            "rule version field source condition form n kind value ci ci_method design_effect"
        ),
        native=_names("source condition form"),
        paper=True,
    ),
    TableSpec(
        "samples",
        _samples,
        title=gettext_lazy("Repeated samples of a model"),
        columns=tuple(samples.COLUMNS),
        shown=_names(
            "rule field model condition summary sample n n_samples mean sd range kendall_w spearman_mean"
        ),
        native=_names("source condition"),
        # the spread across a poem's samples: split by sample it has one sample a poem
        accepts=_names("form category"),
    ),
    TableSpec(
        "validation",
        t.validation,
        title=gettext_lazy("Judges against a reference"),
        columns=_names(
            "scope task left_out field judge reference generator positive average metric value ci_low ci_high ci_method n n_items"
        ),
        shown=_names(
            "scope task left_out field judge reference generator positive metric value ci n n_items"
        ),
        # per generator (the poems' source) already: split by source, every subset
        # repeats one generator's rows
        accepts=_names("condition sample form category"),
        paper=True,
    ),
    TableSpec(
        "classes",
        _classes,
        title=gettext_lazy("Precision and recall per class"),
        columns=tuple(classes.COLUMNS),
        shown=_names("task field rater_set summary label support predicted precision recall f1"),
    ),
    TableSpec(
        "confusion",
        _confusion,
        title=gettext_lazy("Confusion matrices"),
        columns=tuple(classes.CONFUSION_COLUMNS),
        shown=_names("task field rater_set key_label chosen_label n"),
    ),
    TableSpec(
        "pairwise",
        t.pairwise,
        title=gettext_lazy("Pairwise agreement"),
        columns=_names(
            "task field set_a set_b summary rater_a rater_b metric weights value ci_low ci_high ci_method n n_pairs min max reason"
        ),
        shown=_names(
            "task field set_a set_b summary rater_a rater_b metric value ci n n_pairs min max reason"
        ),
        paper=True,
    ),
    TableSpec(
        "echo_chamber",
        t.echo_chamber,
        title=gettext_lazy("Echo chamber"),
        columns=_names(
            "task field rule threshold poems judges people n_pass n_fail judges_pass judges_fail judges_gap judges_ci_low judges_ci_high people_pass people_fail people_gap people_ci_low people_ci_high difference ci_low ci_high ci_method estimable reason"
        ),
        shown=_names(
            "task field rule poems judges people n_pass n_fail judges_gap people_gap difference ci reason"
        ),
        # machine-written poems against all: a split by source, condition or sample
        # separates them, leaving one kind of poem per subset
        accepts=_names("form category"),
        paper=True,
    ),
    TableSpec(
        "self_preference",
        t.self_preference,
        title=gettext_lazy("Self-preference"),
        columns=_names(
            "task field judge model n_own n_other mean_own mean_other diff ci_low ci_high ci_method reason others_diff controlled_diff controlled_ci_low controlled_ci_high n_controlled controlled_reason"
        ),
        shown=_names(
            "task field judge n_own n_other mean_own mean_other diff ci reason others_diff controlled_diff controlled_ci controlled_reason"
        ),
        native=_names("source"),
        # own model's poems against others': a split by sample leaves the humans' apart
        accepts=_names("condition form category"),
        paper=True,
    ),
    TableSpec(
        "form_length",
        t.form_length,
        title=gettext_lazy("Rate against the form's length"),
        columns=_names(
            "measure version rater_set source condition form length statistic value ci_low ci_high ci_method n p_value reason"
        ),
        shown=_names(
            "measure rater_set source condition form length statistic value ci n p_value reason"
        ),
        native=_names("form source condition"),
        paper=True,
    ),
    TableSpec(
        "published_vs_computed",
        t.published_vs_computed,
        title=gettext_lazy("Published beside computed"),
        columns=_names(
            "model task metric run published n_published computed n ci_low ci_high ci_method difference computed_as match reason"
        ),
        shown=_names(
            "model task metric run published n_published computed n ci difference computed_as match reason"
        ),
        accepts=(),
        paper=True,
    ),
    TableSpec(
        "icc",
        t.icc,
        title=gettext_lazy("Intraclass correlation"),
        columns=tuple(icc.COLUMNS),
    ),
    TableSpec(
        "bws",
        t.bws,
        title=gettext_lazy("Best–worst rankings"),
        columns=tuple(bws.COLUMNS),
    ),
    TableSpec(
        "item_analysis",
        t.item_analysis,
        title=gettext_lazy("Item quality"),
        columns=tuple(items.COLUMNS),
        data_only=True,
    ),
    TableSpec(
        "abilities",
        t.abilities,
        title=gettext_lazy("People and models on one ability scale"),
        columns=tuple(abilities.COLUMNS),
        data_only=True,
        heavy=True,  # IRT fits: about 28 s of CPU per task at 1,000,000 responses
    ),
)
BY_NAME: dict[str, TableSpec] = {spec.name: spec for spec in SPECS}
TABLES: tuple[str, ...] = tuple(spec.name for spec in SPECS)
#: The tables the papers publish beyond the first report (issue 12), in order.
PAPER_TABLES: tuple[str, ...] = tuple(spec.name for spec in SPECS if spec.paper)
#: The tables the dashboard's report job leaves to a job of their own (``TableSpec.heavy``).
HEAVY_TABLES: tuple[str, ...] = tuple(spec.name for spec in SPECS if spec.heavy)
