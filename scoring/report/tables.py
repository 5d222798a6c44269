"""Each table of the report as one function of a build context (``build.Context``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scoring.report import abilities as abilities_table
from scoring.report import accuracy as acc
from scoring.report import agreement as agr
from scoring.report import bws as bws_table
from scoring.report import comparisons as cmp
from scoring.report import correlation as cor
from scoring.report import echo, published, rule_tables
from scoring.report import form_length as length_table
from scoring.report import icc as icc_table
from scoring.report import items as items_table
from scoring.report import pairwise as pw
from scoring.report import ratings as rat
from scoring.report import rule_rates as rr
from scoring.report import validation as val

if TYPE_CHECKING:
    from scoring.report.build import Context

Rows = list[dict[str, Any]]


def accuracy(c: Context) -> Rows:
    o = c.opts
    return acc.accuracy_rows(
        c.data, c.sets, c.rates, confidence=o.confidence, cluster=o.cluster, answers=c.answers
    )


def model_vs_groups(c: Context) -> Rows:
    o = c.opts
    return acc.model_vs_groups(
        c.data, c.sets, c.rates, confidence=o.confidence, cluster=o.cluster, answers=c.answers
    )


def comparisons(c: Context) -> Rows:
    return cmp.comparison_rows(c.data, c.sets, c.opts)


def agreement(c: Context) -> Rows:
    o = c.opts
    return agr.agreement_rows(c.data, c.sets, n_boot=o.n_boot, seed=o.seed, confidence=o.confidence)


def correlation(c: Context) -> Rows:
    return cor.correlation_rows(c.data, c.sets)


def rule_vs_rating(c: Context) -> Rows:
    o = c.opts
    return rule_tables.rule_vs_rating_rows(
        c.data,
        c.sets,
        threshold=o.pass_threshold,
        confidence=o.confidence,
        min_side=o.min_side,
    )


def rule_scores(c: Context) -> Rows:
    return rule_tables.rule_score_rows(c.data, c.sets)


def ratings(c: Context) -> Rows:
    return rat.ratings_rows(c.data, c.sets, c.opts)


def rule_rates(c: Context) -> Rows:
    return rr.rule_rate_rows(c.data, c.sets, c.opts)


def validation(c: Context) -> Rows:
    return val.validation_rows(c.data, c.sets, c.opts)


def pairwise(c: Context) -> Rows:
    return pw.pairwise_rows(c.data, c.sets, c.opts)


def echo_chamber(c: Context) -> Rows:
    return echo.echo_chamber_rows(c.data, c.sets, c.opts)


def self_preference(c: Context) -> Rows:
    return echo.self_preference_rows(c.data, c.sets, c.opts)


def form_length(c: Context) -> Rows:
    return length_table.form_length_rows(c.data, c.sets, c.opts)


def published_vs_computed(c: Context) -> Rows:
    return published.published_rows(c.full, c.sets, c.opts)


def icc(c: Context) -> Rows:
    return icc_table.icc_rows(c.data, c.sets, c.opts)


def bws(c: Context) -> Rows:
    return bws_table.bws_rows(c.data, c.sets, c.opts)


def item_analysis(c: Context) -> Rows:
    return items_table.item_rows(c.data, c.sets)


def abilities(c: Context) -> Rows:
    return abilities_table.ability_rows(c.data, c.sets, c.starts)
