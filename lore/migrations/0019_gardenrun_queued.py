"""Gardener runs are queued: a `queued` status, a `phase` (a running inventory's progress), and at most one
queued or running run per account. Runs left `running` by an earlier crash, all but each account's newest, are
marked failed first so that the constraint can be built."""

from django.db import migrations, models


def fail_older_pending(apps, schema_editor):  # noqa: ANN001, ANN201
    run_model = apps.get_model("lore", "GardenRun")
    newest: dict[int, int] = {}
    for pk, account_id in run_model.objects.filter(status="running").order_by("-started_at", "-pk").values_list(
        "pk", "account_id"
    ):
        newest.setdefault(account_id, pk)
    run_model.objects.filter(status="running").exclude(pk__in=newest.values()).update(
        status="failed", error="left running by an earlier inventory that never finished"
    )


class Migration(migrations.Migration):

    dependencies = [
        ('lore', '0018_lessonread_index_lesson_account'),
    ]

    operations = [
        migrations.AddField(
            model_name='gardenrun',
            name='phase',
            field=models.CharField(blank=True, default='', help_text='what a running inventory is doing now (its progress)', max_length=24),
        ),
        migrations.AlterField(
            model_name='gardenrun',
            name='status',
            field=models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('done', 'Done'), ('failed', 'Failed')], default='running', max_length=12),
        ),
        migrations.RunPython(fail_older_pending, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name='gardenrun',
            constraint=models.UniqueConstraint(condition=models.Q(('status__in', ['queued', 'running'])), fields=('account',), name='gardenrun_one_pending'),
        ),
    ]
