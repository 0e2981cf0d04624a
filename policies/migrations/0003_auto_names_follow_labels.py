"""Auto-names now name Recurrence by its label ("recurrence ≤ 1×", was "written ≤ 1×").

A policy whose name was its rule's auto-name in the old wording gets the new one, so it goes on following its
rule (services.is_named_after_its_rule); a name someone typed is left alone.
"""

from django.db import migrations

OLD, NEW = "written ≤ ", "recurrence ≤ "


def rename_auto_named(apps, schema_editor):  # noqa: ANN001, ANN201
    from lore.conditions import POLICY_DIMENSIONS, RETENTION_PARAMS, DimFilter, Rule, auto_name

    policy_model = apps.get_model("policies", "RetentionPolicy")
    for policy in policy_model.objects.filter(name__contains=OLD).iterator():
        conditions = {
            p.name: getattr(policy, p.name, None)
            for p in RETENTION_PARAMS
            if getattr(policy, p.name, None) is not None
        }
        dimensions = {
            d.name: DimFilter(tuple(getattr(policy, d.name)), getattr(policy, d.mode_param))
            for d in POLICY_DIMENSIONS
            if getattr(policy, d.name, None)
        }
        new_name = auto_name(Rule(scope=policy.scope, conditions=conditions, dimensions=dimensions))
        if policy.name == new_name.replace(NEW, OLD):
            policy.name = new_name
            policy.save(update_fields=["name"])


class Migration(migrations.Migration):
    dependencies = [("policies", "0002_run_as_of")]

    operations = [migrations.RunPython(rename_auto_named, migrations.RunPython.noop)]
