<?php

namespace App\Http\Controllers;

use App\Blog\CommentForm;
use App\Blog\FormError;
use App\Blog\PageCache;
use App\Blog\Queries;
use App\Http\Responses\SeeOther;
use Illuminate\Http\Request;

class CommentController extends Controller
{
    // region: comment
    /**
     * POST /posts/{slug}/comments (docs/spec.md §3.9): the form checked before
     * anything else, the insert in one transaction, then the post's and the
     * home page's cached copies deleted, and a 303 to the post. PHP runs the
     * request to its end even when the client goes away (it would notice only
     * when writing the answer), so a committed comment's pages are always
     * invalidated.
     */
    public function store(Request $request, Queries $queries, PageCache $cache, string $slug): SeeOther
    {
        if (!CommentForm::isForm((string) $request->header('Content-Type', ''))) {
            throw FormError::notAForm();
        }
        // nginx has read the whole body (up to its own 1 MiB limit) before PHP
        // runs; the rule refuses one over 16 KiB.
        $comment = CommentForm::parse($request->getContent());
        $queries->addComment($slug, $comment);
        $cache->forget(...PageCache::keysACommentChanges($slug));

        return new SeeOther("/posts/{$slug}");
    }
    // endregion
}
