#!/bin/sh
# bench.toml [build]. The app's only dependencies are the Debian packages of
# debian-packages.txt (Laravel and its libraries among them, under /usr/share/php): this checks
# that they are installed, then runs Laravel's caches as a deployment does, which also proves
# that the configuration, routes and templates load. `php artisan blog:serve` caches them again
# for each run, in the run's own folder. bootstrap/cache/routes-v7.php, written last, dates the
# build.
set -eu
missing=$(grep -v '^#' debian-packages.txt | while read -r package; do
    [ -z "$package" ] ||
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' ||
        printf ' %s' "$package"
done)
if [ -n "$missing" ]; then
    echo "laravel: Debian packages missing:$missing" >&2
    echo "laravel: install them with: apt-get install --no-install-recommends$missing" >&2
    exit 1
fi
php artisan view:cache --quiet
php artisan optimize --quiet
