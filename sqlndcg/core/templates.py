"""The one seam between Python and the SQL templates: a function per macro entry point that Python calls.

Every call into ``sql/`` goes through here (tests/test_template_seam.py refuses a macro called by name anywhere
else), so what Python asks of the templates can be read, followed and typed in one file: each function names its
macro and file; one that returns SQL says so (``-> str``), one that returns data (a plan, a declaration, a list of
checks) returns what the macro's ``return(...)`` builds, typed where :mod:`sqlndcg.core.plan` mirrors it.
``dialect`` is the engine's: the macros render for it (render.call).
"""

from __future__ import annotations

from typing import Any

from . import render
from .plan import Plan


def account_sql(p, duplicates=False, bucket=None, unique=(), *, dialect: str = "duckdb") -> str:
    """``_account_sql`` (sql/macros/statements/account.sql): SQL."""
    return render.call('_account_sql', p, duplicates, bucket, unique, dialect=dialect)


def aggregate_labels_sql(p, *, dialect: str = "duckdb") -> str:
    """``_aggregate_labels_sql`` (sql/macros/judgments/agreement.sql): SQL."""
    return render.call('_aggregate_labels_sql', p, dialect=dialect)


def aggregate_methods(*, dialect: str = "duckdb") -> Any:
    """``_aggregate_methods`` (sql/macros/judgments/agreement.sql)."""
    return render.call('_aggregate_methods', dialect=dialect)


def aggregate_plan(judgments, given, *, dialect: str = "duckdb") -> Any:
    """``_aggregate_plan`` (sql/macros/judgments/agreement.sql)."""
    return render.call('_aggregate_plan', judgments, given, dialect=dialect)


def aggregate_ties(*, dialect: str = "duckdb") -> Any:
    """``_aggregate_ties`` (sql/macros/judgments/agreement.sql)."""
    return render.call('_aggregate_ties', dialect=dialect)


def agreement_plan(judgments, given, *, dialect: str = "duckdb") -> Any:
    """``_agreement_plan`` (sql/macros/judgments/agreement.sql)."""
    return render.call('_agreement_plan', judgments, given, dialect=dialect)


def agreement_sql(p, *, dialect: str = "duckdb") -> str:
    """``_agreement_sql`` (sql/macros/judgments/agreement.sql): SQL."""
    return render.call('_agreement_sql', p, dialect=dialect)


def agreement_source_tables(*, dialect: str = "duckdb") -> Any:
    """``_agreement_source_tables`` (sql/macros/judgments/sources.sql)."""
    return render.call('_agreement_source_tables', dialect=dialect)


def agreement_statistics(*, dialect: str = "duckdb") -> Any:
    """``_agreement_statistics`` (sql/macros/judgments/agreement.sql)."""
    return render.call('_agreement_statistics', dialect=dialect)


def all_rows(relation, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_all_rows`` (sql/local/session.sql): SQL."""
    return render.call('sqlndcg_all_rows', relation, dialect=dialect)


def any_row(name, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_any_row`` (sql/local/session.sql): SQL."""
    return render.call('sqlndcg_any_row', name, dialect=dialect)


def append(name, query, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_append`` (sql/local/session.sql): SQL."""
    return render.call('sqlndcg_append', name, query, dialect=dialect)


def assumed_facts(spec, run_sql, judgments_sql, id_type=None, *, dialect: str = "duckdb") -> dict:
    """``_assumed_facts`` (sql/macros/plan/plan.sql)."""
    return render.call('_assumed_facts', spec, run_sql, judgments_sql, id_type, dialect=dialect)


def bootstrap_suffixes(*, dialect: str = "duckdb") -> Any:
    """``_bootstrap_suffixes`` (sql/macros/outputs/outputs.sql)."""
    return render.call('_bootstrap_suffixes', dialect=dialect)


def click_labels_em_sql(cp, state, *, dialect: str = "duckdb") -> str:
    """``_click_labels_em_sql`` (sql/macros/online/click_labels.sql): SQL of the labels from an EM state table."""
    return render.call('_click_labels_em_sql', cp, state, dialect=dialect)


def click_labels_em_unrolled_sql(cp, *, dialect: str = "duckdb") -> str:
    """``_click_labels_em_unrolled_sql`` (sql/macros/online/click_labels.sql): SQL of the labels with the EM
    iterations unrolled."""
    return render.call('_click_labels_em_unrolled_sql', cp, dialect=dialect)


def click_labels_ips_sql(cp, *, dialect: str = "duckdb") -> str:
    """``_click_labels_ips_sql`` (sql/macros/online/click_labels.sql): SQL of the labels from clicks weighted by 1 / theta."""
    return render.call('_click_labels_ips_sql', cp, dialect=dialect)


def click_labels_plan(log, props, given, *, dialect: str = "duckdb") -> Any:
    """``_click_labels_plan`` (sql/macros/online/click_labels.sql)."""
    return render.call('_click_labels_plan', log, props, given, dialect=dialect)


def click_labels_unmatched(cp, limit=None, *, dialect: str = "duckdb") -> str:
    """``_click_labels_unmatched`` (sql/macros/online/click_labels.sql): SQL of shown positions without a propensity."""
    return render.call('_click_labels_unmatched', cp, limit, dialect=dialect)


def click_log_declared(*, dialect: str = "duckdb") -> dict:
    """``_click_log_declared`` (sql/macros/online/log.sql): the impression log's column settings and defaults."""
    return render.call('_click_log_declared', dialect=dialect)


def click_log_impressions(p, limit=None, *, dialect: str = "duckdb") -> str:
    """``_click_log_impressions`` (sql/macros/online/log.sql): SQL of impressions whose positions are not 1..n or
    that carry more than one query."""
    return render.call('_click_log_impressions', p, limit, dialect=dialect)


def click_log_plan(tool, log, s, needs=(), *, dialect: str = "duckdb") -> Any:
    """``_click_log_plan`` (sql/macros/online/log.sql): the impression log's plan and row checks."""
    return render.call('_click_log_plan', tool, log, s, list(needs), dialect=dialect)


def compare_parts(p, system, weights=None, *, dialect: str = "duckdb") -> Any:
    """``_compare_parts`` (sql/macros/statements/compare.sql)."""
    return render.call('_compare_parts', p, system, weights, dialect=dialect)


def compare_union_sql(inputs, columns, system, *, dialect: str = "duckdb") -> str:
    """``_compare_union_sql`` (sql/macros/statements/compare.sql): SQL."""
    return render.call('_compare_union_sql', inputs, columns, system, dialect=dialect)


def counterfactual_account_sql(cp, *, dialect: str = "duckdb") -> str:
    """``_counterfactual_account_sql`` (sql/macros/online/counterfactual_summary.sql): SQL of the rows read and left
    out, per group."""
    return render.call('_counterfactual_account_sql', cp, dialect=dialect)


def counterfactual_per_query_sql(cp, *, dialect: str = "duckdb") -> str:
    """``_counterfactual_per_query_sql`` (sql/macros/online/counterfactual_estimates.sql): SQL."""
    return render.call('_counterfactual_per_query_sql', cp, dialect=dialect)


def counterfactual_plan(log, run, baseline, props, given, *, dialect: str = "duckdb") -> Any:
    """``_counterfactual_plan`` (sql/macros/online/counterfactual.sql): the plan from the log's, the runs and the
    propensity table described."""
    return render.call('_counterfactual_plan', log, run, baseline, props, given, dialect=dialect)


def counterfactual_summary_sql(cp, *, dialect: str = "duckdb") -> str:
    """``_counterfactual_summary_sql`` (sql/macros/online/counterfactual_summary.sql): SQL."""
    return render.call('_counterfactual_summary_sql', cp, dialect=dialect)


def delimited_bad_lines(path, delimiter, limit, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_delimited_bad_lines`` (sql/local/readers.sql): SQL."""
    return render.call('sqlndcg_delimited_bad_lines', path, delimiter, limit, dialect=dialect)


def delimited_counts(path, delimiter, quoted, decimal, skip, comment, rows=True, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_delimited_counts`` (sql/local/readers.sql): SQL."""
    return render.call('sqlndcg_delimited_counts', path, delimiter, quoted, decimal, skip, comment, rows, dialect=dialect)


def delimited_open_quote(path, delimiter, quoted=True, decimal=None, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_delimited_open_quote`` (sql/local/readers.sql): SQL."""
    return render.call('sqlndcg_delimited_open_quote', path, delimiter, quoted, decimal, dialect=dialect)


def delimited_sniffed(path, delimiter, quoted=True, decimal=None, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_delimited_sniffed`` (sql/local/readers.sql): SQL."""
    return render.call('sqlndcg_delimited_sniffed', path, delimiter, quoted, decimal, dialect=dialect)


def drop(name, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_drop`` (sql/local/session.sql): SQL."""
    return render.call('sqlndcg_drop', name, dialect=dialect)


def duckdb_limits(*, dialect: str = "duckdb") -> str:
    """``sqlndcg_duckdb_limits`` (sql/local/session.sql): SQL."""
    return render.call('sqlndcg_duckdb_limits', dialect=dialect)


def duckdb_many_lists(p, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_duckdb_many_lists`` (sql/local/session.sql): SQL."""
    return render.call('sqlndcg_duckdb_many_lists', p, dialect=dialect)


def duckdb_relation_named(*, dialect: str = "duckdb") -> str:
    """``sqlndcg_duckdb_relation_named`` (sql/local/session.sql): SQL."""
    return render.call('sqlndcg_duckdb_relation_named', dialect=dialect)


def duckdb_reset(setting, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_duckdb_reset`` (sql/local/session.sql): SQL."""
    return render.call('sqlndcg_duckdb_reset', setting, dialect=dialect)


def duckdb_set(setting, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_duckdb_set`` (sql/local/session.sql): SQL."""
    return render.call('sqlndcg_duckdb_set', setting, dialect=dialect)


def duckdb_setting(name, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_duckdb_setting`` (sql/local/session.sql): SQL."""
    return render.call('sqlndcg_duckdb_setting', name, dialect=dialect)


def duplicates(relation, keys, limit=None, *, dialect: str = "duckdb") -> str:
    """``_duplicates`` (sql/macros/checks/checks.sql): SQL."""
    return render.call('_duplicates', relation, keys, limit, dialect=dialect)


def em_movement_sql(state, *, dialect: str = "duckdb") -> str:
    """``_em_movement_sql`` (sql/macros/online/em.sql): SQL of how far the last EM iteration moved theta."""
    return render.call('_em_movement_sql', state, dialect=dialect)


def em_result_sql(pp, state, *, dialect: str = "duckdb") -> str:
    """``_em_result_sql`` (sql/macros/online/em.sql): SQL of the propensities from an EM state table."""
    return render.call('_em_result_sql', pp, state, dialect=dialect)


def em_start_sql(pp, *, dialect: str = "duckdb") -> str:
    """``_em_start_sql`` (sql/macros/online/em.sql): SQL of EM's start state."""
    return render.call('_em_start_sql', pp, dialect=dialect)


def em_step(pp, previous, *, dialect: str = "duckdb") -> str:
    """``_em_step`` (sql/macros/online/em.sql): SQL of one EM iteration from the state ``previous``."""
    return render.call('_em_step', pp, previous, dialect=dialect)


def em_unrolled_sql(pp, *, dialect: str = "duckdb") -> str:
    """``_em_unrolled_sql`` (sql/macros/online/em.sql): SQL of EM with its iterations unrolled, as dbt runs it."""
    return render.call('_em_unrolled_sql', pp, dialect=dialect)


def facts(spec, run, judgments, *, dialect: str = "duckdb") -> dict:
    """``_facts`` (sql/macros/plan/plan.sql)."""
    return render.call('_facts', spec, run, judgments, dialect=dialect)


def file_options_declared(*, dialect: str = "duckdb") -> dict[str, dict]:
    """``_file_options_declared`` (sql/macros/spec/settings.sql)."""
    return render.call('_file_options_declared', dialect=dialect)


def first_fields(path, within=None, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_first_fields`` (sql/local/readers.sql): SQL."""
    return render.call('sqlndcg_first_fields', path, within, dialect=dialect)


def first_lines(path, limit, within=1000, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_first_lines`` (sql/local/readers.sql): SQL."""
    return render.call('sqlndcg_first_lines', path, limit, within, dialect=dialect)


def frame_copy(name, columns, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_frame_copy`` (sql/local/frames.sql): SQL."""
    return render.call('sqlndcg_frame_copy', name, columns, dialect=dialect)


def frame_create(name, columns, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_frame_create`` (sql/local/frames.sql): SQL."""
    return render.call('sqlndcg_frame_create', name, columns, dialect=dialect)


def frame_drop(name, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_frame_drop`` (sql/local/frames.sql): SQL."""
    return render.call('sqlndcg_frame_drop', name, dialect=dialect)


def frame_insert(name, columns, placeholder, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_frame_insert`` (sql/local/frames.sql): SQL."""
    return render.call('sqlndcg_frame_insert', name, columns, placeholder, dialect=dialect)


def diversity_plan(run, judgments, given, facts=None, *, dialect: str = "duckdb") -> Any:
    """``_diversity_plan`` (sql/macros/diversity/diversity.sql): the plan of the intent-aware measures."""
    return render.call('_diversity_plan', run, judgments, given, facts, dialect=dialect)


def diversity_sql(p, *, dialect: str = "duckdb") -> str:
    """``_diversity_sql`` (sql/macros/diversity/diversity.sql): SQL of the measures per query."""
    return render.call('_diversity_sql', p, dialect=dialect)


def diversity_summary_sql(p, per_query=None, *, dialect: str = "duckdb") -> str:
    """``_diversity_summary_sql`` (sql/macros/diversity/diversity.sql): SQL of their means over the queries."""
    return render.call('_diversity_summary_sql', p, per_query, dialect=dialect)


def diversity_table_plan(p, *, dialect: str = "duckdb") -> Any:
    """``_diversity_table_plan`` (sql/macros/diversity/diversity.sql): the per-query table as summary.sql reads one."""
    return render.call('_diversity_table_plan', p, dialect=dialect)


def diversity_ad_hoc_sql(judgments, query_id, doc_id, rel, *, dialect: str = "duckdb") -> str:
    """``_diversity_ad_hoc_sql`` (sql/macros/diversity/diversity.sql): ad hoc judgments, the max over intents."""
    return render.call('_diversity_ad_hoc_sql', judgments, query_id, doc_id, rel, dialect=dialect)


def diversity_rows_sql(p, relation, *, dialect: str = "duckdb") -> str:
    """``_diversity_rows_sql`` (sql/macros/diversity/diversity.sql): SQL reading a kept per-query table back."""
    return render.call('_diversity_rows_sql', p, relation, dialect=dialect)


def diversity_facts_sql(p, *, dialect: str = "duckdb") -> str:
    """``_diversity_facts_sql`` (sql/macros/diversity/diversity.sql): SQL of what bounds the greedy ideal."""
    return render.call('_diversity_facts_sql', p, dialect=dialect)


def diversity_is_metric(name, *, dialect: str = "duckdb") -> Any:
    """``_diversity_is_metric`` (sql/macros/diversity/diversity.sql): whether a name is a diversity measure's."""
    return render.call('_diversity_is_metric', name, dialect=dialect)


def exposure_plan(run, items, judgments, target, given, *, dialect: str = "duckdb") -> Any:
    """``_exposure_plan`` (sql/macros/fairness/exposure.sql): the plan of the exposure fairness measures."""
    return render.call('_exposure_plan', run, items, judgments, target, given, dialect=dialect)


def exposure_sql(p, *, dialect: str = "duckdb") -> str:
    """``_exposure_sql`` (sql/macros/fairness/exposure_outputs.sql): SQL of the measures per query."""
    return render.call('_exposure_sql', p, dialect=dialect)


def exposure_groups_sql(p, *, dialect: str = "duckdb") -> str:
    """``_exposure_groups_sql`` (sql/macros/fairness/exposure_outputs.sql): SQL of each group's exposure per query."""
    return render.call('_exposure_groups_sql', p, dialect=dialect)


def exposure_summary_sql(p, *, dialect: str = "duckdb") -> str:
    """``_exposure_summary_sql`` (sql/macros/fairness/exposure_outputs.sql): SQL of the means and intervals."""
    return render.call('_exposure_summary_sql', p, dialect=dialect)


def exposure_account_sql(p, *, dialect: str = "duckdb") -> str:
    """``_exposure_account_sql`` (sql/macros/fairness/exposure_outputs.sql): SQL of what was read."""
    return render.call('_exposure_account_sql', p, dialect=dialect)


def exposure_facts_sql(p, *, dialect: str = "duckdb") -> str:
    """``_exposure_facts_sql`` (sql/macros/fairness/exposure_outputs.sql): SQL of the facts checked first."""
    return render.call('_exposure_facts_sql', p, dialect=dialect)


def input_checks(role, spec, columns, shared=(), *, dialect: str = "duckdb") -> Any:
    """``_input_checks`` (sql/macros/checks/checks.sql)."""
    return render.call('_input_checks', role, spec, columns, shared, dialect=dialect)


def interleave_plan(runs, teams, impressions, given, *, dialect: str = "duckdb") -> Any:
    """``_interleave_plan`` (sql/macros/online/interleaving.sql): the plan of team-draft interleaving (two runs)
    or multileaving (more)."""
    return render.call('_interleave_plan', list(runs), list(teams), impressions, given, dialect=dialect)


def interleave_sql(p, *, dialect: str = "duckdb") -> str:
    """``_interleave_sql`` (sql/macros/online/interleaving.sql): SQL of the interleaved lists."""
    return render.call('_interleave_sql', p, dialect=dialect)


def interleave_account_sql(p, *, dialect: str = "duckdb") -> str:
    """``_interleave_account_sql`` (sql/macros/online/interleaving.sql): SQL of the queries in one run only."""
    return render.call('_interleave_account_sql', p, dialect=dialect)


def interleaving_credit_plan(log, lp, no_clicks, teams=None, *, dialect: str = "duckdb") -> Any:
    """``_interleaving_credit_plan`` (sql/macros/online/interleaving_credit.sql): the credit's plan from the log's."""
    return render.call('_interleaving_credit_plan', log, lp, no_clicks, None if teams is None else list(teams),
                       dialect=dialect)


def interleaving_credit_sql(p, *, dialect: str = "duckdb") -> str:
    """``_interleaving_credit_sql`` (sql/macros/online/interleaving_credit.sql): SQL of the wins per group."""
    return render.call('_interleaving_credit_sql', p, dialect=dialect)


def overlap_plan(run, given, *, dialect: str = "duckdb") -> Any:
    """``_overlap_plan`` (sql/macros/beyond/overlap.sql): the plan of the overlap between systems' rankings."""
    return render.call('_overlap_plan', run, given, dialect=dialect)


def overlap_sql(p, *, dialect: str = "duckdb") -> str:
    """``_overlap_sql`` (sql/macros/beyond/overlap.sql): SQL of the per-query overlap table."""
    return render.call('_overlap_sql', p, dialect=dialect)


def overlap_account_sql(p, *, dialect: str = "duckdb") -> str:
    """``_overlap_account_sql`` (sql/macros/beyond/overlap.sql): SQL of the account per group and system."""
    return render.call('_overlap_account_sql', p, dialect=dialect)


def overlap_systems_sql(p, *, dialect: str = "duckdb") -> str:
    """``_overlap_systems_sql`` (sql/macros/beyond/overlap.sql): SQL of the run's systems, the baseline first."""
    return render.call('_overlap_systems_sql', p, dialect=dialect)


def overlap_systems_problem(p, rows, *, dialect: str = "duckdb") -> str:
    """``_overlap_systems_problem`` (sql/macros/beyond/overlap.sql): what is wrong with the systems (a message), or
    ''."""
    return render.call('_overlap_systems_problem', p, [list(r) for r in rows], dialect=dialect)


def labels_plan(events, impressions, given, *, dialect: str = "duckdb") -> Any:
    """``_labels_plan`` (sql/macros/judgments/labels.sql)."""
    return render.call('_labels_plan', events, impressions, given, dialect=dialect)


def labels_resolutions(*, dialect: str = "duckdb") -> Any:
    """``_labels_resolutions`` (sql/macros/judgments/labels.sql)."""
    return render.call('_labels_resolutions', dialect=dialect)


def labels_sql(p, *, dialect: str = "duckdb") -> str:
    """``_labels_sql`` (sql/macros/judgments/labels.sql): SQL."""
    return render.call('_labels_sql', p, dialect=dialect)


def labels_zero_denominators(p, limit=None, *, dialect: str = "duckdb") -> str:
    """``_labels_zero_denominators`` (sql/macros/judgments/labels.sql): SQL."""
    return render.call('_labels_zero_denominators', p, limit, dialect=dialect)


def materialize(name, query, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_materialize`` (sql/local/session.sql): SQL."""
    return render.call('sqlndcg_materialize', name, query, dialect=dialect)


def max_exponential_rel(*, dialect: str = "duckdb") -> Any:
    """``_max_exponential_rel`` (sql/macros/spec/spec.sql)."""
    return render.call('_max_exponential_rel', dialect=dialect)


def max_k(*, dialect: str = "duckdb") -> Any:
    """``_max_k`` (sql/macros/spec/spec.sql)."""
    return render.call('_max_k', dialect=dialect)


def measures(*, dialect: str = "duckdb") -> Any:
    """``_measures`` (sql/macros/measures/registry.sql)."""
    return render.call('_measures', dialect=dialect)


def missing_weights_sql(per_query, p, w, limit=None, *, dialect: str = "duckdb") -> str:
    """``_missing_weights_sql`` (sql/macros/statements/weights.sql): SQL."""
    return render.call('_missing_weights_sql', per_query, p, w, limit, dialect=dialect)


def no_rows(relation, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_no_rows`` (sql/local/session.sql): SQL."""
    return render.call('sqlndcg_no_rows', relation, dialect=dialect)


def not_numbers(relation, column, columns, limit, *, dialect: str = "duckdb") -> str:
    """``_not_numbers`` (sql/macros/checks/checks.sql): SQL."""
    return render.call('_not_numbers', relation, column, columns, limit, dialect=dialect)


def number_rule(key, shown, *, dialect: str = "duckdb") -> Any:
    """``_number_rule`` (sql/macros/spec/spec.sql)."""
    return render.call('_number_rule', key, shown, dialect=dialect)


def order_conflicts(relation, c, limit, *, dialect: str = "duckdb") -> str:
    """``_order_conflicts`` (sql/macros/checks/checks.sql): SQL."""
    return render.call('_order_conflicts', relation, c, limit, dialect=dialect)


def paired_differences_sql(per_query, p, system, baseline, weights=None, *, dialect: str = "duckdb") -> str:
    """``_paired_differences_sql`` (sql/macros/statements/compare.sql): SQL."""
    return render.call('_paired_differences_sql', per_query, p, system, baseline, weights, dialect=dialect)


def paired_sql(per_query, p, system, baseline, weights=None, *, dialect: str = "duckdb") -> str:
    """``_paired_sql`` (sql/macros/statements/compare.sql): SQL."""
    return render.call('_paired_sql', per_query, p, system, baseline, weights, dialect=dialect)


def parse_metric(item, *, dialect: str = "duckdb") -> Any:
    """``_parse_metric`` (sql/macros/spec/spec.sql)."""
    return render.call('_parse_metric', item, dialect=dialect)


def parse_metrics(names, *, dialect: str = "duckdb") -> Any:
    """``_parse_metrics`` (sql/macros/spec/spec.sql)."""
    return render.call('_parse_metrics', names, dialect=dialect)


def per_query_sql(p, ordered=True, bucket=None, longest_list=None, *, dialect: str = "duckdb") -> str:
    """``_per_query_sql`` (sql/macros/statements/per_query.sql): SQL."""
    return render.call('_per_query_sql', p, ordered, bucket, longest_list, dialect=dialect)


def plan(facts, *, dialect: str = "duckdb") -> Plan:
    """``_plan`` (sql/macros/plan/plan.sql)."""
    return render.call('_plan', facts, dialect=dialect)


def positions_outputs(*, dialect: str = "duckdb") -> Any:
    """``_positions_outputs`` (sql/macros/judgments/positions.sql)."""
    return render.call('_positions_outputs', dialect=dialect)


def positions_plan(run, judgments, k, given, *, dialect: str = "duckdb") -> Any:
    """``_positions_plan`` (sql/macros/judgments/positions.sql)."""
    return render.call('_positions_plan', run, judgments, k, given, dialect=dialect)


def positions_sql(pp, *, dialect: str = "duckdb") -> str:
    """``_positions_sql`` (sql/macros/judgments/positions.sql): SQL."""
    return render.call('_positions_sql', pp, dialect=dialect)


def presets(*, dialect: str = "duckdb") -> dict[str, dict]:
    """``_presets`` (sql/macros/spec/settings.sql)."""
    return render.call('_presets', dialect=dialect)


def propensities_account_sql(pp, *, dialect: str = "duckdb") -> str:
    """``_propensities_account_sql`` (sql/macros/online/propensities.sql): SQL of the rows read and left out."""
    return render.call('_propensities_account_sql', pp, dialect=dialect)


def propensities_logged_sql(pp, *, dialect: str = "duckdb") -> str:
    """``_propensities_logged_sql`` (sql/macros/online/propensities.sql): SQL."""
    return render.call('_propensities_logged_sql', pp, dialect=dialect)


def propensities_methods(*, dialect: str = "duckdb") -> Any:
    """``_propensities_methods`` (sql/macros/online/propensities.sql)."""
    return render.call('_propensities_methods', dialect=dialect)


def propensities_plan(log, given, *, dialect: str = "duckdb") -> Any:
    """``_propensities_plan`` (sql/macros/online/propensities.sql)."""
    return render.call('_propensities_plan', log, given, dialect=dialect)


def propensities_randomized_sql(pp, *, dialect: str = "duckdb") -> str:
    """``_propensities_randomized_sql`` (sql/macros/online/propensities.sql): SQL."""
    return render.call('_propensities_randomized_sql', pp, dialect=dialect)


def read_csv(path, delimiter, quoted=True, decimal=None, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_read_csv`` (sql/local/readers.sql): SQL."""
    return render.call('sqlndcg_read_csv', path, delimiter, quoted, decimal, dialect=dialect)


def read_lines(path, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_read_lines`` (sql/local/readers.sql): SQL."""
    return render.call('sqlndcg_read_lines', path, dialect=dialect)


def read_parquet(path, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_read_parquet`` (sql/local/readers.sql): SQL."""
    return render.call('sqlndcg_read_parquet', path, dialect=dialect)


def recorded_settings(spec, *, dialect: str = "duckdb") -> Any:
    """``_recorded_settings`` (sql/macros/spec/spec.sql)."""
    return render.call('_recorded_settings', spec, dialect=dialect)


def result_size(p, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_result_size`` (sql/local/session.sql): SQL."""
    return render.call('sqlndcg_result_size', p, dialect=dialect)


def rows_where(relation, identity, columns, test, limit=None, *, dialect: str = "duckdb") -> str:
    """``_rows_where`` (sql/macros/checks/checks.sql): SQL."""
    return render.call('_rows_where', relation, identity, columns, test, limit, dialect=dialect)


def run_top_sql(p, *, dialect: str = "duckdb") -> str:
    """``_run_top_sql`` (sql/macros/statements/run_top.sql): SQL."""
    return render.call('_run_top_sql', p, dialect=dialect)


def sampled(plan, sample, seed, *, dialect: str = "duckdb") -> Any:
    """``_sampled`` (sql/macros/entry/entry.sql)."""
    return render.call('_sampled', plan, sample, seed, dialect=dialect)


def select_all(name, order_by=None, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_select_all`` (sql/local/session.sql): SQL."""
    return render.call('sqlndcg_select_all', name, order_by, dialect=dialect)


def settings_declared(*, dialect: str = "duckdb") -> dict[str, dict]:
    """``_settings_declared`` (sql/macros/spec/settings.sql)."""
    return render.call('_settings_declared', dialect=dialect)


def shares_top(p, *, dialect: str = "duckdb") -> bool:
    """``_shares_top`` (sql/macros/statements/run_top.sql)."""
    return render.call('_shares_top', p, dialect=dialect)


def some_system_queries(relation, system, query_id, value, limit, *, dialect: str = "duckdb") -> str:
    """``_some_system_queries`` (sql/macros/statements/compare.sql): SQL."""
    return render.call('_some_system_queries', relation, system, query_id, value, limit, dialect=dialect)


def some_values(relation, column, limit, *, dialect: str = "duckdb") -> str:
    """``_some_values`` (sql/macros/checks/checks.sql): SQL."""
    return render.call('_some_values', relation, column, limit, dialect=dialect)


def spec(metrics, settings, *, dialect: str = "duckdb") -> Any:
    """``_spec`` (sql/macros/spec/spec.sql)."""
    return render.call('_spec', metrics, settings, dialect=dialect)


def summary_sql(per_query, p, weights=None, rereadable=False, *, dialect: str = "duckdb") -> str:
    """``_summary_sql`` (sql/macros/statements/summary.sql): SQL."""
    return render.call('_summary_sql', per_query, p, weights, rereadable, dialect=dialect)


def trec_bad_lines(path, field_count, integers, numbers, limit, trailing=False, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_trec_bad_lines`` (sql/local/readers.sql): SQL."""
    return render.call('sqlndcg_trec_bad_lines', path, field_count, integers, numbers, limit, trailing, dialect=dialect)


def trec_eval_bad_lines(text, kind, limit, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_trec_eval_bad_lines`` (sql/local/readers.sql): SQL."""
    return render.call('sqlndcg_trec_eval_bad_lines', text, kind, limit, dialect=dialect)


def trec_eval_complete_run(run, qrels, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_trec_eval_complete_run`` (sql/local/readers.sql): SQL."""
    return render.call('sqlndcg_trec_eval_complete_run', run, qrels, dialect=dialect)


def trec_eval_counts(qrels, run, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_trec_eval_counts`` (sql/local/readers.sql): SQL."""
    return render.call('sqlndcg_trec_eval_counts', qrels, run, dialect=dialect)


def trec_eval_forget(views, tables, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_trec_eval_forget`` (sql/local/readers.sql): SQL."""
    return render.call('sqlndcg_trec_eval_forget', views, tables, dialect=dialect)


def trec_eval_last_lines(text, count, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_trec_eval_last_lines`` (sql/local/readers.sql): SQL."""
    return render.call('sqlndcg_trec_eval_last_lines', text, count, dialect=dialect)


def trec_eval_lines_table(name, path, kind, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_trec_eval_lines_table`` (sql/local/readers.sql): SQL."""
    return render.call('sqlndcg_trec_eval_lines_table', name, path, kind, dialect=dialect)


def trec_eval_loose(name, kind, limit, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_trec_eval_loose`` (sql/local/readers.sql): SQL."""
    return render.call('sqlndcg_trec_eval_loose', name, kind, limit, dialect=dialect)


def trec_eval_positive_labels(qrels, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_trec_eval_positive_labels`` (sql/local/readers.sql): SQL."""
    return render.call('sqlndcg_trec_eval_positive_labels', qrels, dialect=dialect)


def trec_eval_queries(view, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_trec_eval_queries`` (sql/local/readers.sql): SQL."""
    return render.call('sqlndcg_trec_eval_queries', view, dialect=dialect)


def trec_eval_relstring(run, qrels, length, depth, judged_only, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_trec_eval_relstring`` (sql/local/readers.sql): SQL."""
    return render.call('sqlndcg_trec_eval_relstring', run, qrels, length, depth, judged_only, dialect=dialect)


def trec_eval_rows(view, kind, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_trec_eval_rows`` (sql/local/readers.sql): SQL."""
    return render.call('sqlndcg_trec_eval_rows', view, kind, dialect=dialect)


def trec_eval_runid(run, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_trec_eval_runid`` (sql/local/readers.sql): SQL."""
    return render.call('sqlndcg_trec_eval_runid', run, dialect=dialect)


def trec_eval_table_rows(name, kind, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_trec_eval_table_rows`` (sql/local/readers.sql): SQL."""
    return render.call('sqlndcg_trec_eval_table_rows', name, kind, dialect=dialect)


def trec_eval_view(name, reader, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_trec_eval_view`` (sql/local/readers.sql): SQL."""
    return render.call('sqlndcg_trec_eval_view', name, reader, dialect=dialect)


def trec_misread_count(name, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_trec_misread_count`` (sql/local/readers.sql): SQL."""
    return render.call('sqlndcg_trec_misread_count', name, dialect=dialect)


def trec_table(lines, kind, field_count, integers, numbers, trailing=False, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_trec_table`` (sql/local/readers.sql): SQL."""
    return render.call('sqlndcg_trec_table', lines, kind, field_count, integers, numbers, trailing, dialect=dialect)


def trec_table_rows(name, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_trec_table_rows`` (sql/local/readers.sql): SQL."""
    return render.call('sqlndcg_trec_table_rows', name, dialect=dialect)


def weights_checks(w, *, dialect: str = "duckdb") -> Any:
    """``_weights_checks`` (sql/macros/statements/weights.sql)."""
    return render.call('_weights_checks', w, dialect=dialect)


def weights_plan(p, weights, weight_column='weight', *, dialect: str = "duckdb") -> Any:
    """``_weights_plan`` (sql/macros/statements/weights.sql)."""
    return render.call('_weights_plan', p, weights, weight_column, dialect=dialect)


# -- macros Python picks between (passed as functions: which one is the caller's choice) ---------------------------

def profile(relation, checks, *, dialect: str = "duckdb") -> str:
    """``_profile`` (sql/macros/checks/checks.sql): SQL counting each of evaluate's row checks in one scan."""
    return render.call("_profile", relation, checks, dialect=dialect)


def offending_rows(relation, c, columns, limit, *, dialect: str = "duckdb") -> str:
    """``_offending_rows`` (sql/macros/checks/checks.sql): SQL of a few rows failing check ``c``."""
    return render.call("_offending_rows", relation, c, columns, limit, dialect=dialect)


def judgment_profile(relation, checks, *, dialect: str = "duckdb") -> str:
    """``_judgment_profile`` (sql/macros/judgments/common.sql): the judgment tools' row checks, one scan."""
    return render.call("_judgment_profile", relation, checks, dialect=dialect)


def judgment_offending_rows(relation, c, columns, limit, *, dialect: str = "duckdb") -> str:
    """``_judgment_offending_rows`` (sql/macros/judgments/common.sql): SQL of a few rows failing check ``c``."""
    return render.call("_judgment_offending_rows", relation, c, columns, limit, dialect=dialect)


def read_trec_run(path, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_read_trec_run`` (sql/local/readers.sql): SQL reading a TREC run file."""
    return render.call("sqlndcg_read_trec_run", path, dialect=dialect)


def beyond_plan(run, items, given, *, dialect: str = "duckdb") -> Any:
    """``_beyond_plan`` (sql/macros/beyond/catalog.sql): the plan of the beyond-accuracy measures."""
    return render.call('_beyond_plan', run, items, given, dialect=dialect)


def beyond_sql(p, *, dialect: str = "duckdb") -> str:
    """``_beyond_sql`` (sql/macros/beyond/catalog.sql): SQL of the per-list measures."""
    return render.call('_beyond_sql', p, dialect=dialect)


def beyond_summary_sql(p, *, dialect: str = "duckdb") -> str:
    """``_beyond_summary_sql`` (sql/macros/beyond/catalog.sql): SQL of the measures per group."""
    return render.call('_beyond_summary_sql', p, dialect=dialect)


def beyond_missing_sql(p, *, dialect: str = "duckdb") -> str:
    """``_beyond_missing_sql`` (sql/macros/beyond/catalog.sql): SQL of the run's items the items table lacks."""
    return render.call('_beyond_missing_sql', p, dialect=dialect)


def beyond_is_metric(name, *, dialect: str = "duckdb") -> Any:
    """``_beyond_is_metric`` (sql/macros/beyond/catalog.sql): whether a name is a beyond-accuracy measure's."""
    return render.call('_beyond_is_metric', name, dialect=dialect)


def read_trec_diversity(path, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_read_trec_diversity`` (sql/local/readers.sql): SQL reading TREC diversity qrels (qid intent doc rel)."""
    return render.call("sqlndcg_read_trec_diversity", path, dialect=dialect)


def read_trec_qrels(path, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_read_trec_qrels`` (sql/local/readers.sql): SQL reading a TREC qrels file."""
    return render.call("sqlndcg_read_trec_qrels", path, dialect=dialect)


def postgres_relation_kind(param, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_postgres_relation_kind`` (sql/local/session.sql): catalog SQL, the name bound as ``param``."""
    return render.call("sqlndcg_postgres_relation_kind", param, dialect=dialect)


def postgres_unique_keys(param, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_postgres_unique_keys`` (sql/local/session.sql): catalog SQL, the name bound as ``param``."""
    return render.call("sqlndcg_postgres_unique_keys", param, dialect=dialect)


def duckdb_relation_kind(name, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_duckdb_relation_kind`` (sql/local/session.sql): catalog SQL, the name bound as ``name``."""
    return render.call("sqlndcg_duckdb_relation_kind", name, dialect=dialect)


def unique_keys(name, *, dialect: str = "duckdb") -> str:
    """``sqlndcg_unique_keys`` (sql/local/session.sql): DuckDB catalog SQL, the name bound as ``name``."""
    return render.call("sqlndcg_unique_keys", name, dialect=dialect)


def explain_ranking(p, limit, longest_list=None, *, dialect: str = "duckdb") -> str:
    """``_explain_ranking`` (sql/macros/statements/explain.sql): SQL of each list's ranked top with its labels."""
    return render.call("_explain_ranking", p, limit, longest_list, dialect=dialect)


def explain_labels(p, *, dialect: str = "duckdb") -> str:
    """``_explain_labels`` (sql/macros/statements/explain.sql): SQL of the judgments as the statement labels them."""
    return render.call("_explain_labels", p, dialect=dialect)


def ppi_pairs_sql(p, *, dialect: str = "duckdb") -> str:
    """``_ppi_pairs_sql`` (sql/macros/ppi/ppi.sql): per (group, query, metric) the model and the human value."""
    return render.call('_ppi_pairs_sql', p, dialect=dialect)


def ppi_missing_sql(p, *, dialect: str = "duckdb") -> str:
    """``_ppi_missing_sql`` (sql/macros/ppi/ppi.sql): the audited queries the model's per-query table lacks."""
    return render.call('_ppi_missing_sql', p, dialect=dialect)


def ppi_summary_sql(p, *, dialect: str = "duckdb") -> str:
    """``_ppi_summary_sql`` (sql/macros/ppi/ppi.sql): per (group, metric) the prediction-powered mean and
    interval, the naive ones beside them."""
    return render.call('_ppi_summary_sql', p, dialect=dialect)


def ppi_grades_sql(labels, rel, *, dialect: str = "duckdb") -> str:
    """``_ppi_grades_sql`` (sql/macros/ppi/ppi.sql): the lowest and highest grade of a judgments relation."""
    return render.call('_ppi_grades_sql', labels, rel, dialect=dialect)


def system_order_values_sql(relation, column, *, dialect: str = "duckdb") -> str:
    """``_system_order_values_sql`` (sql/macros/judgments/system_order.sql): a column's distinct values, in order."""
    return render.call('_system_order_values_sql', relation, column, dialect=dialect)


def system_order_queries_sql(p, *, dialect: str = "duckdb") -> str:
    """``_system_order_queries_sql`` (sql/macros/judgments/system_order.sql): per source, the queries it judged
    and how many every source judged."""
    return render.call('_system_order_queries_sql', p, dialect=dialect)


def system_order_labels_sql(p, *, dialect: str = "duckdb") -> str:
    """``_system_order_labels_sql`` (sql/macros/judgments/system_order.sql): one source's judgments."""
    return render.call('_system_order_labels_sql', p, dialect=dialect)


def system_order_rows_sql(columns, rows, *, dialect: str = "duckdb") -> str:
    """``_system_order_rows_sql`` (sql/macros/judgments/system_order.sql): a few rows from Python as a relation."""
    return render.call('_system_order_rows_sql', columns, rows, dialect=dialect)


def system_order_groups_sql(means, groups, *, dialect: str = "duckdb") -> str:
    """``_system_order_groups_sql`` (sql/macros/judgments/system_order.sql): the groups and the engine's text of them."""
    return render.call('_system_order_groups_sql', means, groups, dialect=dialect)


def system_order_means_sql(p, *, dialect: str = "duckdb") -> str:
    """``_system_order_means_sql`` (sql/macros/judgments/system_order.sql): per (group, metric, source, system)
    the mean over queries and the system's rank."""
    return render.call('_system_order_means_sql', p, dialect=dialect)


def system_order_correlation_sql(p, *, dialect: str = "duckdb") -> str:
    """``_system_order_correlation_sql`` (sql/macros/judgments/system_order.sql): Kendall's tau-b, tau-AP and the
    flipped pairs per (group, metric, source) over a means table."""
    return render.call('_system_order_correlation_sql', p, dialect=dialect)


def system_order_flips_sql(p, *, dialect: str = "duckdb") -> str:
    """``_system_order_flips_sql`` (sql/macros/judgments/system_order.sql): the pairs of systems whose winner
    flips, with both mean differences and p-values."""
    return render.call('_system_order_flips_sql', p, dialect=dialect)


def audit_sample_sql(p, *, dialect: str = "duckdb") -> str:
    """``_audit_sample_sql`` (sql/macros/ppi/audit.sql): the stratified audit sample, in draw order."""
    return render.call('_audit_sample_sql', p, dialect=dialect)


def audit_strata_sql(p, *, dialect: str = "duckdb") -> str:
    """``_audit_strata_sql`` (sql/macros/ppi/audit.sql): per stratum its queries, quota and sampled count."""
    return render.call('_audit_strata_sql', p, dialect=dialect)


def audit_repeated_sql(p, *, dialect: str = "duckdb") -> str:
    """``_audit_repeated_sql`` (sql/macros/ppi/audit.sql): the queries that fall in two strata."""
    return render.call('_audit_repeated_sql', p, dialect=dialect)


def ppi_stratified_sql(p, *, dialect: str = "duckdb") -> str:
    """``_ppi_stratified_sql`` (sql/macros/ppi/stratified.sql): per-stratum PPI means combined by the strata's shares."""
    return render.call('_ppi_stratified_sql', p, dialect=dialect)
