<?php

namespace Tests\Unit;

use App\View\GoHtmlEscaper;
use Illuminate\Support\Facades\Blade;
use Tests\TestCase;

/** Blade prints as Go's html/template does (templates/testdata/escape-vectors.json). */
class EscapeTest extends TestCase
{
    public function test_the_escaper_writes_go_s_bytes(): void
    {
        foreach (self::shared('templates/testdata/escape-vectors.json') as [$text, $escaped]) {
            $this->assertSame($escaped, GoHtmlEscaper::escape($text), json_encode($text));
        }
    }

    public function test_blade_echoes_print_through_it(): void
    {
        foreach (self::shared('templates/testdata/escape-vectors.json') as [$text, $escaped]) {
            $this->assertSame("<p>{$escaped}</p>", Blade::render('<p>{{ $text }}</p>', ['text' => $text], true));
        }
    }
}
