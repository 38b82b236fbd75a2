<?php

namespace App\Http\Middleware;

use Closure;
use Illuminate\Http\Request;
use Symfony\Component\HttpFoundation\Response;

/**
 * Every response carries its Content-Length (docs/spec.md §3.8): PHP-FPM
 * sends none, and nginx would then send the body chunked.
 */
class SetContentLength
{
    public function handle(Request $request, Closure $next): Response
    {
        $response = $next($request);
        $response->headers->set('Content-Length', (string) strlen((string) $response->getContent()));

        return $response;
    }
}
