#!/bin/sh
# Installs the app into .venv (bench.toml [build]): a new virtual environment with the pinned
# packages of requirements.txt and requirements-dev.txt, each checked against its hash. The
# marker .venv/.installed is written last, so only a finished install leaves it.
set -eu
rm -rf .venv
python3 -m venv .venv
.venv/bin/pip install --quiet --disable-pip-version-check --require-hashes \
    -r requirements.txt -r requirements-dev.txt
touch .venv/.installed
