<?php

namespace Tests\Unit;

use App\Blog\CommentForm;
use App\Blog\Compute;
use App\Blog\FormError;
use Illuminate\Http\Request;
use Illuminate\Support\Facades\Route;
use Symfony\Component\HttpKernel\Exception\NotFoundHttpException;
use Tests\TestCase;

/**
 * The rules every app applies alike, checked against the shared vectors
 * (workload/testdata): the slug rule as the routes apply it, /compute's n, the
 * comment form.
 */
class RulesTest extends TestCase
{
    public function test_a_slug_route_takes_exactly_the_slugs(): void
    {
        foreach (self::shared('workload/testdata/slugs.json') as [$segment, $isSlug]) {
            foreach (['/posts/%s', '/tags/%s', '/cached/posts/%s'] as $path) {
                $uri = sprintf($path, $segment);
                $this->assertSame($isSlug, $this->routed($uri), "GET {$uri}");
            }
            $uri = "/posts/{$segment}/comments";
            $this->assertSame($isSlug, $this->routed($uri, 'POST'), "POST {$uri}");
        }
    }

    public function test_compute_reads_n_as_go_does(): void
    {
        foreach (self::shared('workload/testdata/compute-queries.json') as [$query, $n]) {
            $this->assertSame($n, Compute::parseN($query), "query \"{$query}\"");
        }
    }

    public function test_compute_sums_the_primes_below_n(): void
    {
        $this->assertSame("21171191\n", Compute::body(Compute::DEFAULT_N));
        $this->assertSame(0, Compute::sumOfPrimesBelow(2));
        $this->assertSame(2 + 3 + 5 + 7, Compute::sumOfPrimesBelow(11));
    }

    public function test_the_comment_form_rule_answers_as_go_does(): void
    {
        foreach (self::shared('workload/testdata/comment-forms.json') as [$form, $expected]) {
            try {
                $comment = CommentForm::parse($form);
                $this->assertSame(
                    $expected,
                    ['author_name' => $comment->authorName, 'body' => $comment->body],
                    "form \"{$form}\"",
                );
            } catch (FormError $error) {
                $this->assertSame($expected, ['error' => $error->getMessage()], "form \"{$form}\"");
            }
        }
    }

    public function test_a_form_over_16_kib_is_too_large(): void
    {
        $this->expectExceptionObject(FormError::tooLarge());
        CommentForm::parse(str_repeat('a', CommentForm::LIMIT + 1));
    }

    public function test_the_content_type_must_be_a_form(): void
    {
        foreach (
            [
                'application/x-www-form-urlencoded' => true,
                'application/x-www-form-urlencoded; charset=UTF-8' => true,
                " \tAPPLICATION/X-WWW-FORM-URLENCODED\t ;x" => true,
                '' => false,
                'text/plain' => false,
                'multipart/form-data; boundary=x' => false,
                'application/x-www-form-urlencodedx' => false,
            ] as $contentType => $isForm
        ) {
            $this->assertSame($isForm, CommentForm::isForm($contentType), "Content-Type \"{$contentType}\"");
        }
    }

    /** Whether a route takes the (percent-encoded) path, as Laravel routes a request. */
    private function routed(string $uri, string $method = 'GET'): bool
    {
        try {
            Route::getRoutes()->match(Request::create($uri, $method));

            return true;
        } catch (NotFoundHttpException) {
            return false;
        }
    }
}
