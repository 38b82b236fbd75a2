<?php

namespace App\Blog;

/**
 * The comment form's rule (docs/spec.md §3.9), the twin of
 * go-shared/workload/comment.go: which requests carry a form, how its body
 * decodes, and what a valid comment is. The framework's form parsing is not
 * used: PHP's decodes a bad "%" as itself and keeps the last of a repeated key.
 */
final class CommentForm
{
    public const CONTENT_TYPE = 'application/x-www-form-urlencoded';
    public const LIMIT = 16384; // bytes
    public const AUTHOR_MAX_CHARS = 80; // after trimming
    public const BODY_MAX_CHARS = 2000; // after trimming

    // What Go's strings.TrimSpace trims: Unicode's White_Space characters.
    private const WHITE_SPACE = '[\x{9}-\x{D}\x{20}\x{85}\x{A0}\x{1680}\x{2000}-\x{200A}'
        . '\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]';

    /**
     * Whether a Content-Type names a form: its media type (before any ";",
     * without spaces or tabs around it) in any ASCII case.
     */
    public static function isForm(string $contentType): bool
    {
        $mediaType = trim(explode(';', $contentType, 2)[0], " \t");

        return strtolower($mediaType) === self::CONTENT_TYPE;
    }

    /**
     * The comment in a form body: pieces split on "&" (empty ones skipped) and
     * at the first "="; a bad escape anywhere makes the form malformed; the first
     * author_name and the first body count; then each field is checked,
     * author_name first.
     *
     * @throws FormError
     */
    public static function parse(string $form): Comment
    {
        if (strlen($form) > self::LIMIT) {
            throw FormError::tooLarge();
        }
        $authorName = null;
        $body = null;
        foreach (explode('&', $form) as $piece) {
            if ($piece === '') {
                continue;
            }
            [$rawKey, $rawValue] = array_pad(explode('=', $piece, 2), 2, '');
            $key = FormEncoding::unescape($rawKey);
            $value = FormEncoding::unescape($rawValue);
            if ($key === null || $value === null) {
                throw FormError::malformed();
            }
            if ($key === 'author_name') {
                $authorName ??= $value;
            } elseif ($key === 'body') {
                $body ??= $value;
            }
        }

        return new Comment(
            authorName: self::field('author_name', self::AUTHOR_MAX_CHARS, $authorName),
            body: self::field('body', self::BODY_MAX_CHARS, $body),
        );
    }

    /**
     * The trimmed field: present, UTF-8, without NUL (PostgreSQL's text cannot
     * hold one), not empty after trimming white space, at most $maxChars
     * characters.
     */
    private static function field(string $name, int $maxChars, ?string $value): string
    {
        if ($value === null) {
            throw new FormError(400, "{$name} is required\n");
        }
        if (!mb_check_encoding($value, 'UTF-8')) {
            throw new FormError(400, "{$name} must be valid UTF-8\n");
        }
        if (str_contains($value, "\0")) {
            throw new FormError(400, "{$name} must not contain NUL characters\n");
        }
        $space = self::WHITE_SPACE;
        $trimmed = preg_replace("/^{$space}+|{$space}+\$/Du", '', $value);
        if ($trimmed === '') {
            throw new FormError(400, "{$name} is required\n");
        }
        if (mb_strlen($trimmed, 'UTF-8') > $maxChars) {
            throw new FormError(400, "{$name} must be at most {$maxChars} characters\n");
        }

        return $trimmed;
    }
}
