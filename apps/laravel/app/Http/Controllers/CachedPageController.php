<?php

namespace App\Http\Controllers;

use App\Blog\PageCache;
use App\Blog\Queries;
use Illuminate\Http\Response;

/** The bytes of / and /posts/{slug}, through the Redis page cache (docs/spec.md §3.5). */
class CachedPageController extends Controller
{
    public function __construct(private readonly PageCache $cache, private readonly Queries $queries)
    {
    }

    public function home(): Response
    {
        return response()->html($this->cache->remember(
            PageCache::HOME_KEY,
            fn () => view('home', $this->queries->home())->render(),
        ));
    }

    // region: cache
    public function post(string $slug): Response
    {
        return response()->html($this->cache->remember(
            PageCache::postKey($slug),
            fn () => view('posts.show', $this->queries->post($slug))->render(),
        ));
    }
    // endregion
}
