<?php

namespace App\Blog;

/**
 * Go's url.QueryUnescape, which the query and comment-form rules decode with:
 * "+" is a space, %XX that byte, and any other "%" makes the component
 * undecodable. PHP's urldecode copies a bad "%" through instead.
 */
final class FormEncoding
{
    /** The decoded component (any bytes), or null for a bad "%". */
    public static function unescape(string $component): ?string
    {
        if (preg_match('/%(?![0-9A-Fa-f]{2})/', $component) === 1) {
            return null;
        }

        return urldecode($component);
    }
}
