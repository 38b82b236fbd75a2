<?php

namespace App\Blog;

use RuntimeException;

/** An unknown slug: the 404 page. */
final class NotFound extends RuntimeException
{
}
