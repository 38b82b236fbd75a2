<?php

namespace App\Http;

use Illuminate\Foundation\Http\Kernel as HttpKernel;

class Kernel extends HttpKernel
{
    /**
     * The application's global HTTP middleware stack.
     *
     * Only what the contract asks of every response (docs/spec.md §3.8). The
     * skeleton's TrimStrings and ConvertEmptyStringsToNull would parse every
     * form the framework's way, which the comment rule does not use.
     *
     * @var array<int, class-string>
     */
    protected $middleware = [
        \App\Http\Middleware\SetContentLength::class,
    ];

    /**
     * The application's route middleware groups.
     *
     * The web group holds no cookies, session or CSRF token: the blog keeps no
     * state per visitor, and the contract's comment form carries no token.
     *
     * @var array<string, array<int, class-string>>
     */
    protected $middlewareGroups = [
        'web' => [],
    ];
}
