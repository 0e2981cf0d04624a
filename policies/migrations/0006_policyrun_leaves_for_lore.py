"""The other half of lore 0016: policies no longer defines PolicyRun (state only; the table is lore's now)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("policies", "0005_policyrun_policy_unconstrained"),
        ("lore", "0016_policyrun_moves_into_lore"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="PolicyRun")],
            database_operations=[],
        ),
    ]
