<?php

namespace App\Exceptions;

use App\Blog\FormError;
use App\Blog\NotFound;
use Illuminate\Database\QueryException;
use Illuminate\Foundation\Exceptions\Handler as ExceptionHandler;
use Illuminate\Support\Facades\Log;
use PDOException;
use Symfony\Component\HttpKernel\Exception\MethodNotAllowedHttpException;
use Symfony\Component\HttpKernel\Exception\NotFoundHttpException;
use Throwable;

class Handler extends ExceptionHandler
{
    /** The 503 body when PostgreSQL fails or cannot be reached (docs/spec.md §3.8). */
    public const DATABASE_UNAVAILABLE = "database unavailable\n";

    /** The 500 body when a template fails. */
    public const INTERNAL_ERROR = "internal server error\n";

    /**
     * The exceptions that are answers, not faults.
     *
     * @var array<int, class-string<Throwable>>
     */
    protected $dontReport = [
        FormError::class,
        NotFound::class,
    ];

    // region: errors
    /**
     * Turns errors into the contract's answers: the 404 page for an unknown
     * slug or a path no route takes (another method on a routed path too, as in
     * Go), the form rule's status and message, 503 when PostgreSQL failed, 500
     * when a template or anything else did.
     */
    public function register(): void
    {
        $this->reportable(function (QueryException $error) {
            $this->databaseUnavailable($error);

            return false;
        });
        $this->reportable(function (PDOException $error) {
            $this->databaseUnavailable($error);

            return false;
        });

        $notFound = fn () => response()->html(view('errors.404')->render(), 404);
        $this->renderable(fn (NotFound $error) => $notFound());
        $this->renderable(fn (NotFoundHttpException $error) => $notFound());
        $this->renderable(fn (MethodNotAllowedHttpException $error) => $notFound());
        $this->renderable(fn (FormError $error) => response()->text($error->getMessage(), $error->status));
        $this->renderable(fn (QueryException $error) => response()->text(self::DATABASE_UNAVAILABLE, 503));
        $this->renderable(fn (PDOException $error) => response()->text(self::DATABASE_UNAVAILABLE, 503));
        // A failed template (a ViewException) or anything else, logged with its
        // trace, is a 500 in plain text rather than Laravel's HTML error page,
        // whose template is not among the compiled ones.
        $this->renderable(fn (Throwable $error) => response()->text(self::INTERNAL_ERROR, 500));
    }

    /**
     * One line for a failed database call, where Laravel would log its stack
     * trace: the driver's error, without the SQL and bindings (a comment's
     * text) that QueryException adds to it.
     */
    private function databaseUnavailable(Throwable $error): void
    {
        $error = $error instanceof QueryException ? $error->getPrevious() ?? $error : $error;
        $request = request();
        Log::warning("{$request->method()} {$request->getPathInfo()}: database unavailable: {$error->getMessage()}");
    }
    // endregion
}
