<?php

use App\Http\Controllers\CachedPageController;
use App\Http\Controllers\CommentController;
use App\Http\Controllers\ComputeController;
use App\Http\Controllers\HomeController;
use App\Http\Controllers\PostController;
use App\Http\Controllers\TagController;
use Illuminate\Support\Facades\Route;

/*
|--------------------------------------------------------------------------
| Web Routes
|--------------------------------------------------------------------------
|
| The blog's routes (docs/spec.md §3.1). {slug} takes only a slug
| (RouteServiceProvider); any other path gets the 404 page (App\Exceptions\Handler).
|
*/

Route::get('/', HomeController::class);
// region: detail-page
Route::get('/posts/{slug}', [PostController::class, 'show']);
// endregion
Route::get('/tags/{slug}', [TagController::class, 'show']);
Route::get('/cached/', [CachedPageController::class, 'home']);
// region: cache
Route::get('/cached/posts/{slug}', [CachedPageController::class, 'post']);
// endregion
Route::get('/compute', ComputeController::class);
// region: comment
Route::post('/posts/{slug}/comments', [CommentController::class, 'store']);
// endregion
