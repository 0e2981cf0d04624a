"""Teams: an account slug (in every dashboard URL), a role on each membership, scopes on each token.

Existing rows keep today's behaviour: before roles, every member could do everything, so existing memberships
become admins; before scopes, every token could do everything, so existing tokens get every scope. New rows get
the new defaults (viewer; read,write).
"""

from django.db import migrations, models
from django.utils.text import slugify

import lore.models

ALL_SCOPES = ["read", "write", "groom", "admin"]


def slugs_fill(apps, schema_editor):  # noqa: ANN001, ANN201
    Account = apps.get_model("lore", "Account")
    taken: set[str] = set()
    for account in Account.objects.order_by("pk"):
        base = (slugify(account.name) or "account")[:40]
        slug, n = base, 1
        while slug in taken:
            n += 1
            slug = f"{base}-{n}"
        taken.add(slug)
        Account.objects.filter(pk=account.pk).update(slug=slug)


class Migration(migrations.Migration):
    dependencies = [("lore", "0010_transfer_job")]

    operations = [
        migrations.AddField(
            model_name="account",
            name="slug",
            field=models.SlugField(max_length=50, default="", blank=True, db_index=False),
            preserve_default=False,
        ),
        migrations.RunPython(slugs_fill, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="account",
            name="slug",
            field=models.SlugField(max_length=50, unique=True),
        ),
        migrations.AddField(
            model_name="membership",
            name="role",
            field=models.CharField(
                choices=[("viewer", "Viewer"), ("editor", "Editor"), ("admin", "Admin")],
                default="admin",
                max_length=16,
            ),
        ),
        migrations.AlterField(
            model_name="membership",
            name="role",
            field=models.CharField(
                choices=[("viewer", "Viewer"), ("editor", "Editor"), ("admin", "Admin")],
                default="viewer",
                max_length=16,
            ),
        ),
        migrations.AddConstraint(
            model_name="membership",
            constraint=models.CheckConstraint(
                condition=models.Q(role__in=["viewer", "editor", "admin"]), name="membership_role_known"
            ),
        ),
        migrations.AddField(
            model_name="apitoken",
            name="scopes",
            field=models.JSONField(default=list),
        ),
        migrations.RunPython(
            lambda apps, schema_editor: apps.get_model("lore", "ApiToken").objects.update(scopes=ALL_SCOPES),
            migrations.RunPython.noop,
        ),
        migrations.AlterField(
            model_name="apitoken",
            name="scopes",
            field=models.JSONField(default=lore.models._default_scopes),
        ),
    ]
