<?php

namespace Tests\Feature;

use App\Blog\Queries;
use Illuminate\Redis\RedisManager;
use Illuminate\Support\Facades\DB;
use Tests\Fakes\RecordingConnection;
use Tests\TestCase;

/**
 * The pages and answers of docs/spec.md §3 through the HTTP kernel, on a
 * recording database connection and a Redis that refuses connections.
 */
class PagesTest extends TestCase
{
    private const NOT_FOUND_PAGE = "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        . "<title>Not found · blogbench</title>\n</head>\n<body>\n"
        . "<header><a href=\"/\">blogbench</a></header>\n<main>\n<h1>Not found</h1>\n"
        . "<p>There is no page at this address. <a href=\"/\">Back to the latest posts</a>.</p>\n"
        . "</main>\n</body>\n</html>\n";

    private RecordingConnection $db;

    protected function setUp(): void
    {
        parent::setUp();
        config(['logging.default' => 'null']);
        $post = fn (int $id, string $title) => (object) [
            'id' => $id, 'title' => $title, 'slug' => "p-{$id}", 'excerpt' => 'E & e',
            'published_at' => '2026-01-02 03:04:05+00', 'author_name' => "O'Neill",
        ];
        $this->db = new RecordingConnection([
            'HOME_POSTS' => [$post(2, 'C++ <b>'), $post(1, 'One')],
            'TAGS_OF_POSTS' => [
                (object) ['post_id' => 2, 'name' => 'Q&A', 'slug' => 'q-a'],
                (object) ['post_id' => 2, 'name' => 'Rust', 'slug' => 'rust'],
            ],
            'COMMENT_COUNTS' => [(object) ['post_id' => 2, 'comment_count' => 3]],
            'POST_ID_BY_SLUG' => [(object) ['id' => 2]],
        ]);
        $this->app->instance(Queries::class, new Queries($this->db));
        $this->app->instance('redis', new RedisManager($this->app, 'phpredis', [
            'default' => ['host' => '127.0.0.1', 'port' => 1, 'timeout' => 0.25],
        ]));
    }

    public function test_the_home_page_is_byte_for_byte_go_s(): void
    {
        // Whitespace included: Blade drops the line break after a line that
        // holds only a directive, where Tera's {%- trims the one before it.
        $article = fn (string $title, string $slug, int $comments, string $tags) => "<article>\n"
            . "<h2><a href=\"/posts/{$slug}\">{$title}</a></h2>\n"
            . "<p class=\"meta\">by O&#39;Neill on <time>2026-01-02</time> · comments: {$comments}</p>\n"
            . "<p>E &amp; e</p>\n<ul class=\"tags\">\n{$tags}</ul>\n</article>\n";
        $page = "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            . "<title>Latest posts · blogbench</title>\n</head>\n<body>\n"
            . "<header><a href=\"/\">blogbench</a></header>\n<main>\n<h1>Latest posts</h1>\n"
            . $article('C&#43;&#43; &lt;b&gt;', 'p-2', 3, "<li><a href=\"/tags/q-a\">Q&amp;A</a></li>\n"
                . "<li><a href=\"/tags/rust\">Rust</a></li>\n")
            . $article('One', 'p-1', 0, '')
            . "</main>\n</body>\n</html>\n";
        foreach (['/', '/cached/'] as $path) {
            $this->get($path)
                ->assertStatus(200)
                ->assertHeader('Content-Type', 'text/html; charset=utf-8')
                ->assertHeader('Content-Length', (string) strlen($page));
            $this->assertSame($page, $this->get($path)->getContent(), $path);
        }
    }

    public function test_a_path_no_route_takes_gets_the_404_page(): void
    {
        foreach (['/no/such/page', '/posts/Rust', '/tags/a%2Fb', '/cached/posts/rust%00', '/posts'] as $path) {
            $this->get($path)
                ->assertStatus(404)
                ->assertHeader('Content-Type', 'text/html; charset=utf-8')
                ->assertHeader('Content-Length', (string) strlen(self::NOT_FOUND_PAGE));
            $this->assertSame(self::NOT_FOUND_PAGE, $this->get($path)->getContent(), $path);
        }
        $this->assertSame([], $this->db->sent, 'no query for a path that is no slug');
        $this->post('/')->assertStatus(404);
        $this->get('/posts/p-1/comments')->assertStatus(404);
    }

    public function test_compute_reads_n_from_the_query_string(): void
    {
        foreach (['' => "21171191\n", '?n=%2B7' => "10\n", '?n=10&x=1' => "17\n"] as $query => $body) {
            $response = $this->get("/compute{$query}");
            $response->assertStatus(200)->assertHeader('Content-Type', 'text/plain; charset=utf-8');
            $this->assertSame($body, $response->getContent());
        }
        $response = $this->get('/compute?n=+10');
        $response->assertStatus(400)->assertHeader('Content-Length', '39');
        $this->assertSame("n must be an integer from 2 to 1000000\n", $response->getContent());
    }

    public function test_a_stored_comment_is_a_303_without_a_body(): void
    {
        $response = $this->postForm('/posts/p-2/comments', 'author_name=Ann&body=Hi');
        $response->assertStatus(303)
            ->assertHeader('Location', '/posts/p-2')
            ->assertHeader('Content-Length', '0')
            ->assertHeaderMissing('Content-Type');
        $this->assertSame('', $response->getContent());
        $this->assertSame(['BEGIN', 'POST_ID_BY_SLUG', 'INSERT_COMMENT', 'COMMIT'], $this->db->sent);
    }

    public function test_a_refused_comment_sends_nothing_to_the_database(): void
    {
        $this->postForm('/posts/p-2/comments', 'author_name=Ann&body=Hi', 'text/plain')
            ->assertStatus(415)->assertHeader('Content-Type', 'text/plain; charset=utf-8');
        $this->postForm('/posts/p-2/comments', str_repeat('x', 16385))->assertStatus(413);
        $this->postForm('/posts/p-2/comments', 'author_name=%zz&body=b')->assertStatus(400);
        $this->postForm('/posts/NO/comments', 'author_name=Ann&body=Hi')->assertStatus(404);
        $this->assertSame([], $this->db->sent);
        $response = $this->postForm('/posts/p-2/comments', 'author_name=Ann');
        $this->assertSame("body is required\n", $response->getContent());
    }

    public function test_a_database_that_fails_is_a_503(): void
    {
        config(['database.connections.pgsql.url' => 'postgres://blogbench:blogbench@127.0.0.1:1/blogbench']);
        DB::purge();
        $this->app->forgetInstance(Queries::class);
        foreach (['/', '/posts/p-1', '/tags/rust', '/cached/'] as $path) {
            $response = $this->get($path);
            $response->assertStatus(503)->assertHeader('Content-Type', 'text/plain; charset=utf-8');
            $this->assertSame("database unavailable\n", $response->getContent(), $path);
        }
        $this->get('/compute?n=2')->assertStatus(200);
    }

    public function test_a_failure_of_anything_else_is_a_500(): void
    {
        // A row without its columns: the loader fails (Laravel logs it).
        $this->app->instance(Queries::class, new Queries(new RecordingConnection(['HOME_POSTS' => [(object) []]])));
        $response = $this->get('/');
        $response->assertStatus(500)->assertHeader('Content-Type', 'text/plain; charset=utf-8');
        $this->assertSame("internal server error\n", $response->getContent());
    }

    private function postForm(string $uri, string $body, string $contentType = 'application/x-www-form-urlencoded')
    {
        return $this->call('POST', $uri, server: ['CONTENT_TYPE' => $contentType], content: $body);
    }
}
