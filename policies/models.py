"""Retention policies and their runs (DESIGN.md §2, §7).

The condition and dimension columns are generated from the registry: one nullable integer per retention
condition, a value list and a mode per policy dimension.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from lore.conditions import NAME_MAX, POLICY_DIMENSIONS, RETENTION_PARAMS, DimFilter, canonical_conditions
from lore.models import Account
from lore.rules.rule import Rule


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


class PolicyRun(models.Model):
    class Trigger(models.TextChoices):
        MANUAL = "manual"
        NIGHTLY = "nightly"
        API = "api"
        CLI = "cli"

    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"
        INTERRUPTED = "interrupted"

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="policy_runs")
    policy = models.ForeignKey(
        RetentionPolicy, null=True, blank=True, on_delete=models.SET_NULL, related_name="runs"
    )
    policy_name = models.CharField(max_length=200, blank=True, default="")
    rule_snapshot = models.JSONField(default=dict, blank=True)
    trigger = models.CharField(max_length=8, choices=Trigger.choices)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING)
    matched = models.PositiveIntegerField(default=0)
    archived = models.PositiveIntegerField(default=0)
    restored = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField(null=True, blank=True)
    # The moment of the preview a run carries out (Run now's confirm page): it archives only what matched then.
    # Without one, the run archives what matches when it starts.
    as_of = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True, default="")
    created_by = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["account", "policy", "-created_at"], name="policyrun_recent")]

    def __str__(self) -> str:
        return f"run {self.pk} of {self.policy_name or 'an ad-hoc rule'}: {self.status}"

    @property
    def is_active(self) -> bool:
        return self.status in (self.Status.PENDING, self.Status.RUNNING)
