"""Rules as data: YAML files in the top-level ``rules/`` folder, validated against
``rule.schema.json`` and evaluated with the ``rule-engine`` expression language (no ``eval``)."""
from nicadvisor.rules_engine.loader import Rule, RuleError, load_rules, default_rules_dir
from nicadvisor.rules_engine.engine import evaluate, evaluate_admitting

__all__ = ["Rule", "RuleError", "load_rules", "default_rules_dir", "evaluate", "evaluate_admitting"]
