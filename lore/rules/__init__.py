"""The rule language: a `Rule` (scope, conditions, dimension filters) and its one codec.

- `lore.rules.rule`: the Rule and its edits (what a pick in the filter menu does).
- `lore.rules.fields`: form fields of the language's values (whole numbers within bounds, scopes, value lists).
- `lore.rules.filterset`: the django-filter FilterSet generated from the registry — the engine that reads a rule
  out of a query dict, a JSON body or form data, and reports every problem (field, message).
- `lore.rules.codec`: the entry points (strict and lenient parsing) and the writers (URL params, JSON, form data).

The registry of conditions and dimensions stays in `lore.conditions`; everything here derives from it.
"""
