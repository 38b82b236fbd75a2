<?php

namespace App\Providers;

use App\Database\PingingPostgresConnector;
use App\View\GoHtmlEscaper;
use Illuminate\Support\Facades\Blade;
use Illuminate\Support\Facades\Response;
use Illuminate\Support\ServiceProvider;

class AppServiceProvider extends ServiceProvider
{
    /**
     * Register any application services.
     */
    public function register(): void
    {
        // region: pool
        // PostgreSQL through the worker's persistent PDO connection
        // (config/database.php), pinged as PING_ON_ACQUIRE says.
        $this->app->bind('db.connector.pgsql', PingingPostgresConnector::class);
        // endregion
    }

    /**
     * Bootstrap any application services.
     */
    public function boot(): void
    {
        // {{ }} prints as Go's html/template does (docs/spec.md §3.4). The
        // format is compiled into the templates, which view:cache compiles at
        // build time.
        Blade::setEchoFormat('\\' . GoHtmlEscaper::class . '::escape(%s)');

        // The contract's two content types, byte for byte: Symfony would
        // append "; charset=UTF-8" to a bare text/html.
        Response::macro('html', fn (string $page, int $status = 200) => Response::make(
            $page,
            $status,
            ['Content-Type' => 'text/html; charset=utf-8'],
        ));
        Response::macro('text', fn (string $body, int $status = 200) => Response::make(
            $body,
            $status,
            ['Content-Type' => 'text/plain; charset=utf-8'],
        ));
    }
}
