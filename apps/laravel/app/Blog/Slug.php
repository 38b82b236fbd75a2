<?php

namespace App\Blog;

/**
 * The slug rule (docs/spec.md §3.1): 1 to 100 bytes, each a-z, 0-9 or "-". The
 * routes declare it as the {slug} parameter's pattern, so a segment that cannot
 * be a slug matches no route and gets the 404 page before any query or Redis
 * command: PostgreSQL rejects a NUL or invalid UTF-8 in a text parameter, which
 * would otherwise read as an outage.
 */
final class Slug
{
    /** The {slug} route parameter's pattern (Laravel anchors it). */
    public const PATTERN = '[a-z0-9-]{1,100}';
}
