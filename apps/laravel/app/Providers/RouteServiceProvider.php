<?php

namespace App\Providers;

use App\Blog\Slug;
use Illuminate\Foundation\Support\Providers\RouteServiceProvider as ServiceProvider;
use Illuminate\Support\Facades\Route;

class RouteServiceProvider extends ServiceProvider
{
    /**
     * Define your route model bindings, pattern filters, etc.
     */
    public function boot(): void
    {
        // region: detail-page
        // A {slug} segment that cannot be a slug matches no route: the 404 page,
        // before any query or Redis command (docs/spec.md §3.1).
        Route::pattern('slug', Slug::PATTERN);
        // endregion

        $this->routes(function () {
            Route::middleware('web')->group(base_path('routes/web.php'));
        });
    }
}
