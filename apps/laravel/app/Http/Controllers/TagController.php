<?php

namespace App\Http\Controllers;

use App\Blog\Queries;
use Illuminate\Http\Response;

class TagController extends Controller
{
    public function show(Queries $queries, string $slug): Response
    {
        return response()->html(view('tags.show', $queries->tag($slug))->render());
    }
}
