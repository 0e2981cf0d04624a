"""EXPLAIN (ANALYZE, BUFFERS) of the slowest store queries each scenario ran (PostgreSQL only)."""

from __future__ import annotations

from django.db import connection, transaction

from bench.measure import Outcome

PER_SCENARIO = 2
MAX_SQL = 1500


def _plan(sql: str) -> str:
    """The plan of one captured statement; writes are rolled back."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql)
        lines = [row[0] for row in cursor.fetchall()]
        transaction.set_rollback(True)
    return "\n".join(lines)


def explains_collect(outcomes: list[Outcome]) -> list[dict[str, object]]:
    """For each scenario, its slowest statements on lessons/tags with their plans."""
    if connection.vendor != "postgresql":
        return []
    out: list[dict[str, object]] = []
    for outcome in outcomes:
        store_queries = [
            q
            for q in outcome.queries
            if "lore_lesson" in str(q["sql"])
            and str(q["sql"]).lstrip().upper().startswith(("SELECT", "UPDATE"))
        ]
        store_queries.sort(key=lambda q: float(str(q["time"])), reverse=True)
        for query in store_queries[:PER_SCENARIO]:
            sql = str(query["sql"])
            out.append(
                {
                    "scenario": outcome.scenario.name,
                    "ms": round(float(str(query["time"])) * 1000, 2),
                    "sql": sql if len(sql) <= MAX_SQL else sql[:MAX_SQL] + " …",
                    "plan": _plan(sql),
                }
            )
    return out
