<?php

namespace App\Blog;

use RuntimeException;

/**
 * A request that is not a valid comment: a 4xx whose plain-text body is the
 * message (docs/spec.md §3.9), and nothing sent to the database.
 */
final class FormError extends RuntimeException
{
    public function __construct(public readonly int $status, string $message)
    {
        parent::__construct($message);
    }

    public static function notAForm(): self
    {
        return new self(415, "a comment must be sent as application/x-www-form-urlencoded\n");
    }

    public static function tooLarge(): self
    {
        return new self(413, "a comment form must be at most 16384 bytes\n");
    }

    public static function malformed(): self
    {
        return new self(400, "the comment form is not valid form encoding\n");
    }
}
