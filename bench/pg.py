"""PostgreSQL helpers that run before Django is set up (the parent process of `make bench`)."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def database_ensure(url: str) -> bool:
    """Create the PostgreSQL database of `url` if it is missing. True when it was created."""
    import psycopg
    from psycopg import sql

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    server = urlunsplit((parts.scheme, parts.netloc, "/postgres", "", ""))
    with psycopg.connect(server.replace("postgres://", "postgresql://", 1), autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            return False
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return True
