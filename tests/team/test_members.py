"""Settings → Members (list, invite with a one-time link, change role, remove; the last admin stays) and
Settings → Activity (account-wide, filtered by actor and action, keyset pages, an empty state)."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection
from django.test import Client

from lore.accounts import MembershipError, membership_remove, membership_role_set
from lore.activity import activity_record
from lore.models import Activity, Membership
from lore.roles import Role
from tests.factories import MembershipFactory, UserFactory
from tests.services import require_postgres

pytestmark = pytest.mark.django_db
STRONG = "correct horse battery staple 7"


def test_an_admin_invites_a_person_whose_one_time_link_is_shown_once_and_works_once(
    account, logged_in
) -> None:  # noqa: ANN001
    answer = logged_in.post("/settings/members/", {"username": "vera", "role": "viewer"})
    html = answer.content.decode()
    assert answer.status_code == 200 and "vera was added as viewer" in html
    link = re.search(r"data-invite-link>http://testserver(/reset/[^<]+)<", html).group(1)
    assert "/reset/" not in logged_in.get("/settings/members/").content.decode()  # shown once
    assert Membership.objects.get(user__username="vera").role == Role.VIEWER
    vera = Client()
    form = vera.get(link, follow=True)
    assert "Choose your password" in form.content.decode()
    done = vera.post(form.redirect_chain[-1][0], {"new_password1": STRONG, "new_password2": STRONG})
    assert done.status_code == 302
    assert vera.get("/a/acme/explorer/").status_code == 200  # signed in
    again = Client().get(link, follow=True)
    assert "This link no longer works" in again.content.decode()
    assert Activity.objects.filter(
        action=Activity.Action.MEMBER_ADDED, subject="vera", actor="alice"
    ).exists()


def test_only_an_admin_invites_changes_roles_or_removes(account) -> None:  # noqa: ANN001
    editor = UserFactory(username="ed")
    MembershipFactory(account=account, user=editor, role=Role.EDITOR)
    other = MembershipFactory(account=account, user=UserFactory(username="olga"), role=Role.VIEWER)
    client = Client()
    client.force_login(editor)
    page = client.get("/a/acme/settings/members/").content.decode()
    assert "Invite someone" not in page and 'disabled aria-describedby="members-reason"' in page
    assert client.post("/a/acme/settings/members/", {"username": "x", "role": "admin"}).status_code == 403
    assert client.post(f"/a/acme/settings/members/{other.pk}/role/", {"role": "admin"}).status_code == 403
    assert client.post(f"/a/acme/settings/members/{other.pk}/remove/").status_code == 403
    other.refresh_from_db()
    assert other.role == Role.VIEWER and Membership.objects.count() == 2


def test_an_admin_changes_a_role_and_removes_a_member(account, logged_in) -> None:  # noqa: ANN001
    other = MembershipFactory(account=account, user=UserFactory(username="olga"), role=Role.VIEWER)
    assert logged_in.post(f"/settings/members/{other.pk}/role/", {"role": "editor"}).status_code == 302
    other.refresh_from_db()
    assert other.role == Role.EDITOR
    assert logged_in.post(f"/settings/members/{other.pk}/remove/").status_code == 302
    assert not Membership.objects.filter(pk=other.pk).exists()


def test_the_last_admin_can_never_be_removed_or_demoted(account, user, logged_in) -> None:  # noqa: ANN001
    mine = Membership.objects.get(user=user)
    answer = logged_in.post(f"/settings/members/{mine.pk}/role/", {"role": "viewer"}, follow=True)
    assert "the last admin cannot be demoted" in answer.content.decode()
    answer = logged_in.post(f"/settings/members/{mine.pk}/remove/", follow=True)
    assert "the last admin cannot be removed" in answer.content.decode()
    mine.refresh_from_db()
    assert mine.role == Role.ADMIN


def test_two_admins_demoting_each_other_at_once_leave_one_admin(transactional_db, account) -> None:  # noqa: ANN001
    require_postgres()
    first = MembershipFactory(account=account, user=UserFactory(username="a1"), role=Role.ADMIN)
    second = MembershipFactory(account=account, user=UserFactory(username="a2"), role=Role.ADMIN)

    def demote(membership_id: int) -> str:
        try:
            membership_role_set(account=account, membership_id=membership_id, role=Role.VIEWER, actor="t")
            return "demoted"
        except MembershipError:
            return "refused"
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = sorted(pool.map(demote, [first.pk, second.pk]))
    assert results == ["demoted", "refused"]
    assert Membership.objects.filter(account=account, role=Role.ADMIN).count() == 1


def test_removing_a_member_of_another_account_answers_404(account, other_account, logged_in) -> None:  # noqa: ANN001
    theirs = MembershipFactory(account=other_account, user=UserFactory(username="gus"), role=Role.VIEWER)
    assert logged_in.post(f"/settings/members/{theirs.pk}/remove/").status_code == 404
    assert logged_in.post(f"/settings/members/{theirs.pk}/role/", {"role": "admin"}).status_code == 404
    with pytest.raises(Exception, match="no such member"):
        membership_remove(account=account, membership_id=theirs.pk, actor="t")
    assert Membership.objects.filter(pk=theirs.pk, role=Role.VIEWER).exists()


# ---------------------------------------------------------------- Settings → Activity


def test_the_activity_page_says_so_when_nothing_happened(account, logged_in) -> None:  # noqa: ANN001
    html = logged_in.get("/settings/activity/").content.decode()
    assert "Nothing has happened in this account yet" in html


def test_the_activity_page_filters_by_actor_and_action_and_pages_by_keyset(
    account, other_account, logged_in
) -> None:  # noqa: ANN001
    for n in range(60):
        activity_record(account=account, action=Activity.Action.LESSON_PINNED, actor="bot", subject=f"s{n}")
    activity_record(account=account, action=Activity.Action.POLICY_CREATED, actor="alice", subject="mine")
    activity_record(
        account=other_account, action=Activity.Action.POLICY_CREATED, actor="alice", subject="theirs"
    )
    page = logged_in.get("/settings/activity/", {"actor": "alice"}).content.decode()
    assert "mine" in page and "theirs" not in page and ">s1<" not in page
    first = logged_in.get("/settings/activity/", {"action": "lesson.pinned"}).content.decode()
    subjects = re.findall(r'class="subject">(s\d+)<', first)
    assert len(subjects) == 50 and subjects[0] == "s59"
    more = re.search(r'href="(\?[^"]+)" rel="next"', first).group(1).replace("&amp;", "&")
    rest = logged_in.get("/settings/activity/" + more).content.decode()
    assert re.findall(r'class="subject">(s\d+)<', rest) == [f"s{n}" for n in reversed(range(10))]
    none = logged_in.get("/settings/activity/", {"actor": "nobody"}).content.decode()
    assert "Nothing matches these filters" in none
