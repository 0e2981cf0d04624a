"""Retention policies (DESIGN.md §2, §7). Their runs are the archive mechanism and live in lore
(lore.models.PolicyRun, re-exported here).

The condition and dimension columns are generated from the registry: one nullable integer per retention
condition, a value list and a mode per policy dimension.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from lore.conditions import NAME_MAX, POLICY_DIMENSIONS, RETENTION_PARAMS, DimFilter, canonical_conditions
from lore.models import Account, PolicyRun
from lore.rules.rule import Rule

__all__ = ["PolicyRun", "RetentionPolicy"]


class RetentionPolicy(models.Model):
    class Mode(models.TextChoices):
        REVIEW = "review"
        AUTO = "auto"

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="policies")
    name = models.CharField(max_length=NAME_MAX)
    scope = models.CharField(max_length=600, default="global")
    mode = models.CharField(max_length=8, choices=Mode.choices, default=Mode.REVIEW)
    enabled = models.BooleanField(default=False)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "id"]
        indexes = [models.Index(fields=["account", "mode", "enabled"], name="policy_sweepable")]

    def __str__(self) -> str:
        return self.name

    @property
    def rule(self) -> Rule:
        conditions = {
            p.name: getattr(self, p.name) for p in RETENTION_PARAMS if getattr(self, p.name) is not None
        }
        dimensions = {
            d.name: DimFilter(tuple(getattr(self, d.name)), getattr(self, d.mode_param))
            for d in POLICY_DIMENSIONS
            if getattr(self, d.name)
        }
        return Rule(scope=self.scope, conditions=canonical_conditions(conditions), dimensions=dimensions)

    def apply_rule(self, rule: Rule) -> None:
        """Set scope, conditions and filters from a Rule (clearing whatever the rule does not hold)."""
        self.scope = rule.scope
        for param in RETENTION_PARAMS:
            setattr(self, param.name, rule.conditions.get(param.name))
        for dim in POLICY_DIMENSIONS:
            flt = rule.dimensions.get(dim.name)
            setattr(self, dim.name, list(flt.values) if flt else [])
            setattr(self, dim.mode_param, flt.mode if flt else dim.default_mode)

    @property
    def is_swept_nightly(self) -> bool:
        return self.mode == self.Mode.AUTO and self.enabled


for _param in RETENTION_PARAMS:
    RetentionPolicy.add_to_class(_param.name, models.PositiveIntegerField(null=True, blank=True))
for _dim in POLICY_DIMENSIONS:
    RetentionPolicy.add_to_class(_dim.name, models.JSONField(default=list, blank=True))
    RetentionPolicy.add_to_class(_dim.mode_param, models.CharField(max_length=8, default=_dim.default_mode))
