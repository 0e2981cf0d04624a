# Production image: gunicorn serves the dashboard and API; the same image runs the Celery worker and beat.
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY pyproject.toml setup.py MANIFEST.in README.md ./
COPY config ./config
COPY lore ./lore
COPY policies ./policies
COPY explorer ./explorer
COPY lorekit ./lorekit
COPY templates ./templates
COPY static ./static
COPY manage.py ./
RUN pip install --no-cache-dir . && SECRET_KEY=collectstatic-at-build-only python manage.py collectstatic --noinput -v0
RUN useradd --create-home lore && mkdir -p /app/var/transfers && chown -R lore /app/var  # a named volume mounted on transfers/ keeps this owner
USER lore
EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--config", "config/gunicorn_conf.py", "--bind", "0.0.0.0:8000", "--workers", "3"]
