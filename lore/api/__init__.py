"""The REST API of the lesson store (DESIGN.md §10): `memories` (lessons), `schemas`, `errors`, `auth`."""
