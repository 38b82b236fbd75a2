<?php

namespace App\Http\Responses;

use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\HttpFoundation\Response;

/**
 * A 303 See Other with an empty body and no Content-Type, as Go answers a
 * stored comment (docs/spec.md §3.9). Laravel's RedirectResponse carries an
 * HTML page, and Symfony's Response::prepare gives every other non-empty
 * status a Content-Type, which this one takes back.
 */
class SeeOther extends Response
{
    public function __construct(string $location)
    {
        parent::__construct('', 303, ['Location' => $location]);
    }

    public function prepare(Request $request): static
    {
        parent::prepare($request);
        $this->headers->remove('Content-Type');
        // PHP would otherwise send its default_mimetype (what Symfony does for a 204).
        ini_set('default_mimetype', '');

        return $this;
    }
}
