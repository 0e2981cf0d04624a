"""Recording findings: what every detector's findings go through on their way into the database."""

from __future__ import annotations

from django.db import IntegrityError, transaction

from lore.models import Account, Finding, FindingMember


def findings_insert(account: Account, built: list[tuple[Finding, list[FindingMember]]]) -> list[Finding]:
    """Insert built findings and their members in one transaction (two INSERTs), leaving out the ones recorded
    before (open, dismissed or applied: the same kind and fingerprint). Every detector records through here.
    Answers the new findings."""
    existing = set(
        Finding.objects.filter(
            account=account, fingerprint__in=[finding.fingerprint for finding, _ in built]
        ).values_list("kind", "fingerprint")
    )
    fresh: dict[tuple[str, str], tuple[Finding, list[FindingMember]]] = {}
    for finding, members in built:
        if (finding.kind, finding.fingerprint) not in existing:
            fresh.setdefault((finding.kind, finding.fingerprint), (finding, members))
    try:
        with transaction.atomic():
            findings = Finding.objects.bulk_create([finding for finding, _ in fresh.values()])
            for finding, members in fresh.values():
                for member in members:
                    member.finding = finding
            FindingMember.objects.bulk_create(m for _, members in fresh.values() for m in members)
    except IntegrityError:  # another inventory recorded one of them meanwhile: one at a time, skipping those
        if len(built) == 1:
            return []
        return [finding for one in built for finding in findings_insert(account, [one])]
    return findings
