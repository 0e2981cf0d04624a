"""A run's policy becomes a plain id before the run moves into lore (lore 0016): drop the database constraint
(the column, its values and its index stay). A lore model does not point up into policies."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("policies", "0004_retentionpolicy_max_decay_score"),
    ]

    operations = [
        migrations.AlterField(
            model_name="policyrun",
            name="policy",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="runs",
                to="policies.retentionpolicy",
            ),
        ),
    ]
