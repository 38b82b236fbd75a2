<?php

namespace App\View;

/**
 * Go html/template's escaping of text between tags (docs/spec.md §3.4), which
 * every app's pages share byte for byte. Blade's {{ }} prints through it
 * (AppServiceProvider sets Blade's echo format), in place of Laravel's e(),
 * which writes &#039; and &quot; and copies "+" and NUL.
 */
final class GoHtmlEscaper
{
    private const REPLACEMENTS = [
        '&' => '&amp;',
        '<' => '&lt;',
        '>' => '&gt;',
        '"' => '&#34;',
        "'" => '&#39;',
        '+' => '&#43;',
        "\0" => "\u{FFFD}",
    ];

    /** $value as html/template prints it in an element's content. */
    public static function escape(mixed $value): string
    {
        return strtr((string) $value, self::REPLACEMENTS);
    }
}
