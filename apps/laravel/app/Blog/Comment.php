<?php

namespace App\Blog;

/** A comment that passed the form's rule, its fields trimmed. */
final class Comment
{
    public function __construct(
        public readonly string $authorName,
        public readonly string $body,
    ) {
    }
}
