"""Every lesson's LSH bands computed again: the MinHash is now taken of the lesson's wording (the roots of its words,
order left out) instead of its shingles, so a reworded copy becomes a candidate too (docs/gardener.md, "Reworded
copies"). The same rewrite as migration 0025: the table emptied, then written a batch of lessons at a time."""

from importlib import import_module

from django.db import migrations

resign = import_module("lore.migrations.0025_resign_bands").resign


class Migration(migrations.Migration):
    dependencies = [("lore", "0029_batches_count_themselves")]

    operations = [migrations.RunPython(resign, migrations.RunPython.noop, elidable=True)]
