"""What pyproject.toml cannot say: the site-wide `templates/` and `static/` ship in the wheel inside the `config`
package (as `config/templates`, `config/static`), so `pip install .` carries every page and stylesheet; the apps'
own template folders ride along as package data (MANIFEST.in). config/settings.py finds the site folders in either
place."""

from setuptools import find_namespace_packages, setup

SITE_DIRS = {"config.templates": "templates", "config.static": "static"}
CODE = ["config", "lore", "explorer", "policies", "members", "lorekit"]

setup(
    # Namespace discovery, so the template and static folders inside the apps count as (data) packages too.
    packages=[
        *find_namespace_packages(include=[name for app in CODE for name in (app, f"{app}.*")]),
        *(
            f"{package}{'.' + sub if sub else ''}"
            for package, folder in SITE_DIRS.items()
            for sub in ["", *find_namespace_packages(where=folder)]
        ),
    ],
    package_dir=SITE_DIRS,
    include_package_data=True,
)
