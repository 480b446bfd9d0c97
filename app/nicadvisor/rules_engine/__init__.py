"""Rules as data: YAML files in the top-level ``rules/`` folder, validated against
``rule.schema.json`` and evaluated with the ``rule-engine`` expression language (no ``eval``)."""
from nicadvisor.rules_engine import grammar_cache

grammar_cache.offer()  # before rule_engine is imported: its parser tables from the cache (grammar_cache.py)
from nicadvisor.rules_engine.loader import Rule, RuleError, load_rules, default_rules_dir  # noqa: E402
from nicadvisor.rules_engine.engine import evaluate, evaluate_admitting  # noqa: E402

grammar_cache.keep()  # built here: kept for the next process

__all__ = ["Rule", "RuleError", "load_rules", "default_rules_dir", "evaluate", "evaluate_admitting"]
