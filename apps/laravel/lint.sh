#!/bin/sh
# bench.toml [check] lint: PHP's syntax check (php -l) of every PHP file of the app, then
# PHP_CodeSniffer's PSR-12 (phpcs.xml). The caches a build leaves are not the app's code.
set -eu
find . \( -path ./storage -o -path ./bootstrap/cache \) -prune -o -type f \
    \( -name '*.php' ! -name '*.blade.php' -o -name artisan \) -print |
    sort | xargs -n 1 php -l > /dev/null
phpcs -q
