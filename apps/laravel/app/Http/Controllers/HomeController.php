<?php

namespace App\Http\Controllers;

use App\Blog\Queries;
use Illuminate\Http\Response;

class HomeController extends Controller
{
    public function __invoke(Queries $queries): Response
    {
        return response()->html(view('home', $queries->home())->render());
    }
}
