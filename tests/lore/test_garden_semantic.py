"""The semantic gardener (docs/gardener.md, "Paraphrases"): possible duplicates found by WordLlama embeddings,
stored per lesson, review-only until a person picks the keeper. The tests that need the model run only where the
`semantic` extra is installed; the default install is checked never to import it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from django.urls import reverse

from lore.garden import embeddings as embeddings_module
from lore.garden import semantic as semantic_module
from lore.garden.apply import FindingKeepInvalid, finding_apply, finding_undo
from lore.garden.embeddings import MODEL_NAME, SemanticUnavailable, embeddings_pending, embeddings_sync
from lore.garden.inventory import garden_inventory
from lore.models import Finding, GardenRun, Lesson, LessonEmbedding
from tests.lore.garden_helpers import write

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]
LOG = "Services log one JSON object per line so the collector can parse fields without regexes."
# In other words than the shingles or the reworded-copy measure can see (words shared: Jaccard 0.32), the same fact.
LOG_SAID_OTHERWISE = "Logging is newline-delimited JSON from every service, which the collector parses field by field with no regexes."
needs_model = pytest.mark.skipif(
    not embeddings_module.model_installed(), reason="the `semantic` extra (wordllama) is not installed"
)


@pytest.fixture
def semantic(settings):  # noqa: ANN001, ANN201
    settings.LORE_GARDEN_SEMANTIC = True
    return settings


def possible(account) -> list[Finding]:  # noqa: ANN001
    return list(Finding.objects.filter(account=account, kind=Finding.Kind.POSSIBLE_DUPLICATE))


def test_the_default_install_never_imports_the_semantic_model(db) -> None:  # noqa: ANN001
    code = (
        "import sys, django; django.setup()\n"
        "import config.urls, lore.tasks, lore.garden.inventory, lore.garden.semantic, lorekit.cli\n"
        "loaded = sorted(m for m in ('wordllama', 'tokenizers', 'safetensors') if m in sys.modules)\n"
        "assert not loaded, loaded\n"
    )
    env = {"DJANGO_SETTINGS_MODULE": "config.settings", "DEBUG": "1", "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


def test_with_the_semantic_gardener_on_and_its_extra_missing_the_inventory_fails_naming_the_extra(
    account, semantic, monkeypatch
) -> None:  # noqa: ANN001
    monkeypatch.setitem(sys.modules, "wordllama", None)  # what an install without the extra answers
    embeddings_module._model.cache_clear()
    write(account, "repo::acme/app", "log-json", LOG)
    try:
        with pytest.raises(SemanticUnavailable, match=r"lore-explorer\[semantic\]"):
            garden_inventory(account)
    finally:
        embeddings_module._model.cache_clear()
    run = GardenRun.objects.get(account=account)
    assert run.status == "failed" and "pip install 'lore-explorer[semantic]'" in run.error


def test_with_the_semantic_gardener_off_nothing_is_embedded(account) -> None:  # noqa: ANN001
    write(account, "repo::acme/app", "log-json", LOG)
    write(account, "repo::acme/app", "log-json-said-otherwise", LOG_SAID_OTHERWISE)
    garden_inventory(account)
    assert not LessonEmbedding.objects.exists() and not possible(account)


@needs_model
def test_a_paraphrase_pair_is_a_possible_duplicate_whose_members_are_all_to_review(account, semantic) -> None:  # noqa: ANN001
    first = write(account, "repo::acme/app", "log-json", LOG, opened=4)
    second = write(account, "branch::acme/app::main", "log-json-said-otherwise", LOG_SAID_OTHERWISE)
    garden_inventory(account)
    (finding,) = possible(account)
    assert {(m.lesson_id, m.action) for m in finding.members.all()} == {
        (first.pk, "review"),
        (second.pk, "review"),
    }
    assert finding.evidence["similarity_min"] >= semantic_module.SEMANTIC_THRESHOLD
    assert not Finding.objects.filter(kind=Finding.Kind.NEAR_DUPLICATE).exists()


@needs_model
def test_lessons_that_differ_in_a_number_are_never_possible_duplicates(account, semantic) -> None:  # noqa: ANN001
    write(account, "repo::acme/app", "jdk", "The build needs JDK 17; the Gradle toolchain pins it.")
    write(account, "repo::acme/app", "jdk-new", "The build requires JDK 21, pinned by the Gradle toolchain.")
    garden_inventory(account)
    assert not possible(account)


@needs_model
def test_a_related_pair_stating_different_facts_about_one_subject_is_not_a_possible_duplicate(
    account, semantic
) -> None:  # noqa: ANN001
    write(
        account,
        "repo::acme/api",
        "flyway-startup",
        "Flyway migrations run on app startup in dev, but production applies them from the release pipeline.",
    )
    write(
        account,
        "repo::acme/api",
        "flyway-failed",
        "A failed Flyway migration leaves a schema_history row with success=false; repair it before deploying.",
    )
    garden_inventory(account)
    assert not possible(account)


AUTOLOAD = "Autoloads initialise in the order listed in project.godot; SaveGame must come before NetLobby."
# The same fact in other words, less close than SEMANTIC_THRESHOLD (cosine 0.64), naming the same three things.
AUTOLOAD_SAID_OTHERWISE = (
    "NetLobby reads SaveGame in _ready(), and Godot starts autoloads top to bottom as written in project.godot, so "
    "SaveGame has to sit above it in that list."
)


@needs_model
def test_a_pair_a_little_less_similar_that_names_the_same_things_is_a_possible_duplicate(
    account, semantic
) -> None:  # noqa: ANN001
    write(account, "repo::acme/game", "autoload-order", AUTOLOAD, opened=3)
    write(account, "repo::acme/game", "savegame-above-netlobby", AUTOLOAD_SAID_OTHERWISE)
    garden_inventory(account)
    (finding,) = possible(account)
    low = finding.evidence["similarity_min"]
    assert semantic_module.SEMANTIC_NAMED_THRESHOLD <= low < semantic_module.SEMANTIC_THRESHOLD
    assert set(finding.evidence["names"]) == {"project.godot", "savegame", "netlobby"}
    assert "project.godot" in finding.members.get(lesson__key="savegame-above-netlobby").why


@needs_model
def test_a_pair_that_names_the_same_things_but_is_not_close_in_meaning_is_not_a_possible_duplicate(
    account, semantic
) -> None:  # noqa: ANN001
    write(
        account,
        "repo::acme/ops",
        "deploy-token",
        "deploy.sh pushes images to registry.acme.io with the ci-bot token.",
    )
    write(
        account,
        "repo::acme/ops",
        "deploy-mirrors",
        "deploy.sh reads the registry.acme.io mirror list from mirrors.txt before it starts.",
    )
    garden_inventory(account)
    assert not possible(account)


@needs_model
def test_a_pair_the_shingles_match_is_only_a_near_duplicate(account, semantic) -> None:  # noqa: ANN001
    write(account, "repo::acme/app", "log-json", LOG, opened=2)
    write(account, "repo::acme/app", "log-json-2", LOG.lower())
    garden_inventory(account)
    assert [f.kind for f in Finding.objects.filter(account=account)] == ["near_duplicate"]


@needs_model
def test_embeddings_are_stored_as_float16_with_their_text_hash_and_a_rerun_embeds_only_what_changed(
    account,
) -> None:  # noqa: ANN001
    first = write(account, "repo::acme/app", "log-json", LOG)
    second = write(account, "repo::acme/app", "money", "Money amounts are integers of cents.")
    assert embeddings_sync(account, embeddings_pending(account)) == {first.pk, second.pk}
    stored = LessonEmbedding.objects.get(lesson=first)
    assert stored.model == MODEL_NAME and len(bytes(stored.vector)) == 2 * embeddings_module.DIMENSIONS
    vector = embeddings_module.vectors_of([stored.vector])[0]
    assert abs(float(np.linalg.norm(vector)) - 1) < 1e-3
    assert embeddings_pending(account) == []
    write(account, "repo::acme/app", "log-json", LOG, age_days=1)  # the same words again: not re-embedded
    write(account, "repo::acme/app", "money", "Money is stored as integer cents.", age_days=1)
    assert set(embeddings_pending(account)) == {first.pk, second.pk}
    assert embeddings_sync(account, embeddings_pending(account)) == {second.pk}
    assert embeddings_pending(account) == [] and LessonEmbedding.objects.count() == 2


@needs_model
def test_before_it_embeds_the_inventory_says_how_many_lessons_and_how_long(
    account, semantic, monkeypatch
) -> None:  # noqa: ANN001
    write(account, "repo::acme/app", "log-json", LOG)
    write(account, "repo::acme/app", "log-json-said-otherwise", LOG_SAID_OTHERWISE)
    phases: list[str] = []
    original = semantic_module.embeddings_sync

    def observed(account, ids):  # noqa: ANN001, ANN202
        phases.append(GardenRun.objects.get(account=account).phase)
        return original(account, ids)

    monkeypatch.setattr(semantic_module, "embeddings_sync", observed)
    garden_inventory(account)
    assert phases == ["possible_duplicate: embedding 2 lessons, about 1 s"]


@needs_model
def test_a_possible_duplicate_is_applied_only_with_a_keeper_then_archives_the_others_and_undo_restores(
    account, semantic
) -> None:  # noqa: ANN001
    first = write(account, "repo::acme/app", "log-json", LOG, opened=4)
    second = write(account, "repo::acme/app", "log-json-said-otherwise", LOG_SAID_OTHERWISE)
    garden_inventory(account)
    (finding,) = possible(account)
    with pytest.raises(FindingKeepInvalid) as refused:
        finding_apply(account=account, finding_id=finding.pk, actor="alice")
    assert refused.value.field == "keep" and refused.value.status == 422
    assert not Lesson.objects.filter(archived_at__isnull=False).exists()
    run = finding_apply(account=account, finding_id=finding.pk, actor="alice", keep=second.pk)
    first.refresh_from_db()
    assert run.archived == 1 and first.archived_at is not None and first.superseded_by_id == second.pk
    assert "possible duplicate" in first.archive_reason
    finding.refresh_from_db()
    assert finding.evidence["superseded_by"] == second.pk and finding.decided_by == "alice"
    assert finding_undo(account=account, finding_id=finding.pk, actor="alice") == 1
    first.refresh_from_db()
    assert first.archived_at is None and first.superseded_by_id is None


@pytest.fixture
def paraphrases(account, semantic):  # noqa: ANN001, ANN201
    first = write(account, "repo::acme/app", "log-json", LOG, opened=4)
    second = write(account, "repo::acme/app", "log-json-said-otherwise", LOG_SAID_OTHERWISE)
    garden_inventory(account)
    (finding,) = possible(account)
    return finding, first, second


@needs_model
def test_on_the_findings_page_a_person_chooses_the_lesson_to_keep_and_applies(logged_in, paraphrases) -> None:  # noqa: ANN001
    finding, first, second = paraphrases
    page = logged_in.get(reverse("findings:index")).content.decode()
    assert "<fieldset>" in page and "<legend>Review only: which lesson should stay?" in page
    assert f'type="radio" name="keep" value="{first.pk}" required' in page
    unchosen = logged_in.post(reverse("findings:apply", args=[finding.pk]), {"status": "open"}, follow=True)
    assert "needs the id of the lesson to keep" in unchosen.content.decode()
    assert not Lesson.objects.filter(archived_at__isnull=False).exists()
    logged_in.post(reverse("findings:apply", args=[finding.pk]), {"keep": str(second.pk)})
    first.refresh_from_db()
    assert first.archived_at is not None and first.superseded_by_id == second.pk
