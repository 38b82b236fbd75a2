<?php

namespace App\Http\Controllers;

use App\Blog\Queries;
use Illuminate\Http\Response;

class PostController extends Controller
{
    // region: detail-page
    /** GET /posts/{slug}: the routes let only a slug through (App\Blog\Slug). */
    public function show(Queries $queries, string $slug): Response
    {
        return response()->html(view('posts.show', $queries->post($slug))->render());
    }
    // endregion
}
