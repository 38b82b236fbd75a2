<?php

namespace App\Http\Controllers;

use App\Blog\Compute;
use Illuminate\Http\Request;
use Illuminate\Http\Response;

class ComputeController extends Controller
{
    /**
     * GET /compute: the raw query string, read by the shared rule. Laravel's
     * query input decodes by PHP's rules (the last of a repeated n, a bad "%"
     * kept as it is).
     */
    public function __invoke(Request $request): Response
    {
        $n = Compute::parseN((string) $request->server('QUERY_STRING', ''));
        if ($n === null) {
            return response()->text(Compute::BAD_N_MESSAGE, 400);
        }

        return response()->text(Compute::body($n));
    }
}
