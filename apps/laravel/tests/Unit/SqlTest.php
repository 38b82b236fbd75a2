<?php

namespace Tests\Unit;

use App\Blog\Comment;
use App\Blog\NotFound;
use App\Blog\Queries;
use ReflectionClass;
use Tests\Fakes\RecordingConnection;
use Tests\TestCase;

/** The SQL the app sends is shared-sql's (shared-sql/queries.json), statement for statement. */
class SqlTest extends TestCase
{
    private const AT = '2026-01-02 03:04:05+00';

    public function test_every_constant_is_the_shared_text_once_pdo_numbers_its_parameters(): void
    {
        $constants = array_map(
            RecordingConnection::postgresText(...),
            (new ReflectionClass(Queries::class))->getConstants(),
        );
        $shared = self::shared('shared-sql/queries.json');
        ksort($constants);
        ksort($shared);
        $this->assertSame($shared, $constants);
    }

    /** @return array<string, array{string, list<mixed>, list<string>}> */
    public static function pages(): array
    {
        return [
            'home' => ['home', [], ['HOME_POSTS', 'TAGS_OF_POSTS', 'COMMENT_COUNTS']],
            'post' => ['post', ['t-7'], ['POST_BY_SLUG', 'TAGS_OF_POST', 'COMMENTS_OF_POST']],
            'tag' => ['tag', ['n'], ['TAG_BY_SLUG', 'TAG_POSTS', 'TAGS_OF_POSTS', 'TAG_POST_COUNT']],
            'comment' => [
                'addComment',
                ['t-7', new Comment('a', 'b')],
                ['BEGIN', 'POST_ID_BY_SLUG', 'INSERT_COMMENT', 'COMMIT'],
            ],
        ];
    }

    /**
     * @dataProvider pages
     * @param  list<mixed>  $arguments
     * @param  list<string>  $statements
     */
    public function test_each_page_sends_the_statements_of_the_spec(
        string $load,
        array $arguments,
        array $statements,
    ): void {
        $db = new RecordingConnection(self::answers());
        (new Queries($db))->{$load}(...$arguments);
        $this->assertSame($statements, $db->sent);
    }

    /** @return array<string, array{string, list<mixed>, list<string>}> */
    public static function unknownSlugs(): array
    {
        return [
            'post' => ['post', ['no'], ['POST_BY_SLUG']],
            'tag' => ['tag', ['no'], ['TAG_BY_SLUG']],
            'comment' => ['addComment', ['no', new Comment('a', 'b')], ['BEGIN', 'POST_ID_BY_SLUG', 'ROLLBACK']],
        ];
    }

    /**
     * @dataProvider unknownSlugs
     * @param  list<mixed>  $arguments
     * @param  list<string>  $statements
     */
    public function test_an_unknown_slug_costs_one_statement(string $load, array $arguments, array $statements): void
    {
        $db = new RecordingConnection([]);
        try {
            (new Queries($db))->{$load}(...$arguments);
            $this->fail('no NotFound');
        } catch (NotFound) {
            $this->assertSame($statements, $db->sent);
        }
    }

    public function test_the_view_data_comes_from_the_rows(): void
    {
        $queries = new Queries(new RecordingConnection(self::answers()));
        $card = [
            'title' => 'T',
            'slug' => 't-7',
            'author' => 'A',
            'date' => '2026-01-02',
            'excerpt' => 'E',
            'tags' => [['name' => 'N', 'slug' => 'n']],
            'commentCount' => 2,
        ];
        $this->assertSame(['posts' => [$card]], $queries->home());
        $this->assertSame([
            'title' => 'T',
            'author' => 'A',
            'date' => '2026-01-02',
            'tags' => [['name' => 'N', 'slug' => 'n']],
            'paragraphs' => ['B1', 'B2'],
            'comments' => [['author' => 'C', 'time' => '2026-01-02 03:04', 'body' => 'Hi']],
        ], $queries->post('t-7'));
        $this->assertSame([
            'name' => 'N',
            'slug' => 'n',
            'postCount' => 12,
            'posts' => [array_replace($card, ['commentCount' => 0])],
        ], $queries->tag('n'));
    }

    public function test_dates_are_utc_whatever_the_session_time_zone(): void
    {
        $answers = self::answers();
        $answers['POST_BY_SLUG'][0]->published_at = '2026-01-02 01:30:00+02';
        $answers['COMMENTS_OF_POST'][0]->created_at = '2026-01-01 23:59:59.999-01';
        $page = (new Queries(new RecordingConnection($answers)))->post('t-7');
        $this->assertSame('2026-01-01', $page['date']);
        $this->assertSame('2026-01-02 00:59', $page['comments'][0]['time']);
    }

    /** @return array<string, list<object>> what each statement answers, in the shape of its rows */
    private static function answers(): array
    {
        $post = fn () => (object) [
            'id' => 7, 'title' => 'T', 'slug' => 't-7', 'excerpt' => 'E', 'body' => "B1\n\nB2",
            'published_at' => self::AT, 'author_name' => 'A',
        ];

        return [
            'HOME_POSTS' => [$post()],
            'TAGS_OF_POSTS' => [(object) ['post_id' => 7, 'name' => 'N', 'slug' => 'n']],
            'COMMENT_COUNTS' => [(object) ['post_id' => 7, 'comment_count' => 2]],
            'POST_BY_SLUG' => [$post()],
            'TAGS_OF_POST' => [(object) ['name' => 'N', 'slug' => 'n']],
            'COMMENTS_OF_POST' => [(object) ['author_name' => 'C', 'body' => 'Hi', 'created_at' => self::AT]],
            'TAG_BY_SLUG' => [(object) ['id' => 3, 'name' => 'N', 'slug' => 'n']],
            'TAG_POSTS' => [$post()],
            'TAG_POST_COUNT' => [(object) ['count' => 12]],
            'POST_ID_BY_SLUG' => [(object) ['id' => 7]],
        ];
    }
}
