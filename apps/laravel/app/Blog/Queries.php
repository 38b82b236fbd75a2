<?php

namespace App\Blog;

use DateTimeImmutable;
use DateTimeZone;
use Illuminate\Database\ConnectionInterface;

/**
 * The SQL of every page and the loaders that turn its rows into each page's
 * view data, in the order of docs/spec.md §3.1: home 3 statements, post 3, tag
 * 4, a comment 2 in a transaction. PDO writes each "?" as $1, $2, ... in
 * order, so PostgreSQL receives shared-sql's text byte for byte
 * (tests/Unit/SqlTest.php compares it with shared-sql/queries.json). Lists of
 * posts are bound as one int4[] parameter, written as an array literal.
 */
final class Queries
{
    public const HOME_POSTS = 'SELECT p.id, p.title, p.slug, p.excerpt, p.published_at, a.name AS author_name FROM posts p JOIN authors a ON a.id = p.author_id ORDER BY p.published_at DESC, p.id DESC LIMIT 20';
    public const TAGS_OF_POSTS = 'SELECT pt.post_id, t.name, t.slug FROM post_tags pt JOIN tags t ON t.id = pt.tag_id WHERE pt.post_id = ANY(?) ORDER BY pt.post_id, t.slug';
    public const COMMENT_COUNTS = 'SELECT post_id, count(*) AS comment_count FROM comments WHERE post_id = ANY(?) GROUP BY post_id';
    public const POST_BY_SLUG = 'SELECT p.id, p.title, p.slug, p.body, p.published_at, a.name AS author_name FROM posts p JOIN authors a ON a.id = p.author_id WHERE p.slug = ?';
    public const TAGS_OF_POST = 'SELECT t.name, t.slug FROM post_tags pt JOIN tags t ON t.id = pt.tag_id WHERE pt.post_id = ? ORDER BY t.slug';
    public const COMMENTS_OF_POST = 'SELECT author_name, body, created_at FROM comments WHERE post_id = ? ORDER BY created_at, id';
    public const TAG_BY_SLUG = 'SELECT id, name, slug FROM tags WHERE slug = ?';
    public const TAG_POSTS = 'SELECT p.id, p.title, p.slug, p.excerpt, p.published_at, a.name AS author_name FROM post_tags pt JOIN posts p ON p.id = pt.post_id JOIN authors a ON a.id = p.author_id WHERE pt.tag_id = ? ORDER BY p.published_at DESC, p.id DESC LIMIT 20';
    public const TAG_POST_COUNT = 'SELECT count(*) FROM post_tags WHERE tag_id = ?';
    public const POST_ID_BY_SLUG = 'SELECT id FROM posts WHERE slug = ?';
    public const INSERT_COMMENT = 'INSERT INTO comments (post_id, author_name, body, created_at) VALUES (?, ?, ?, now())';

    public function __construct(private readonly ConnectionInterface $db)
    {
    }

    /**
     * The home page's view data.
     *
     * @return array{posts: list<array<string, mixed>>}
     */
    public function home(): array
    {
        $posts = $this->db->select(self::HOME_POSTS);
        $ids = self::idArray($posts);
        $tags = $this->db->select(self::TAGS_OF_POSTS, [$ids]);
        $counts = [];
        foreach ($this->db->select(self::COMMENT_COUNTS, [$ids]) as $row) {
            $counts[$row->post_id] = $row->comment_count;
        }

        return ['posts' => self::cards($posts, $tags, $counts)];
    }

    // region: detail-page
    /**
     * The post page's view data; NotFound after one statement for an unknown
     * slug.
     *
     * @return array<string, mixed>
     */
    public function post(string $slug): array
    {
        $post = $this->db->selectOne(self::POST_BY_SLUG, [$slug]) ?? throw new NotFound();
        $tags = $this->db->select(self::TAGS_OF_POST, [$post->id]);
        $comments = $this->db->select(self::COMMENTS_OF_POST, [$post->id]);

        return [
            'title' => $post->title,
            'author' => $post->author_name,
            'date' => self::date($post->published_at),
            'tags' => array_map(self::tagLink(...), $tags),
            'paragraphs' => explode("\n\n", $post->body),
            'comments' => array_map(fn (object $comment) => [
                'author' => $comment->author_name,
                'time' => self::minute($comment->created_at),
                'body' => $comment->body,
            ], $comments),
        ];
    }
    // endregion

    /**
     * The tag page's view data; NotFound after one statement for an unknown
     * slug.
     *
     * @return array<string, mixed>
     */
    public function tag(string $slug): array
    {
        $tag = $this->db->selectOne(self::TAG_BY_SLUG, [$slug]) ?? throw new NotFound();
        $posts = $this->db->select(self::TAG_POSTS, [$tag->id]);
        $tags = $this->db->select(self::TAGS_OF_POSTS, [self::idArray($posts)]);
        $postCount = $this->db->selectOne(self::TAG_POST_COUNT, [$tag->id])->count;

        return [
            'name' => $tag->name,
            'slug' => $tag->slug,
            'postCount' => $postCount,
            'posts' => self::cards($posts, $tags, []),
        ];
    }

    // region: comment
    /**
     * Stores $comment on the post $slug in one transaction: BEGIN,
     * POST_ID_BY_SLUG, INSERT_COMMENT, COMMIT. For an unknown slug NotFound
     * rolls it back.
     */
    public function addComment(string $slug, Comment $comment): void
    {
        $this->db->transaction(function () use ($slug, $comment) {
            $post = $this->db->selectOne(self::POST_ID_BY_SLUG, [$slug]) ?? throw new NotFound();
            $this->db->insert(self::INSERT_COMMENT, [$post->id, $comment->authorName, $comment->body]);
        });
    }
    // endregion

    /**
     * The list entries for $posts, each with its tags (in query order) and its
     * comment count (0 for a post with no row; none are counted on the tag
     * page).
     *
     * @param  list<object>  $posts
     * @param  list<object>  $tags
     * @param  array<int, int>  $counts
     * @return list<array<string, mixed>>
     */
    private static function cards(array $posts, array $tags, array $counts): array
    {
        $tagsOf = [];
        foreach ($tags as $tag) {
            $tagsOf[$tag->post_id][] = self::tagLink($tag);
        }

        return array_map(fn (object $post) => [
            'title' => $post->title,
            'slug' => $post->slug,
            'author' => $post->author_name,
            'date' => self::date($post->published_at),
            'excerpt' => $post->excerpt,
            'tags' => $tagsOf[$post->id] ?? [],
            'commentCount' => $counts[$post->id] ?? 0,
        ], $posts);
    }

    /** @return array{name: string, slug: string} */
    private static function tagLink(object $tag): array
    {
        return ['name' => $tag->name, 'slug' => $tag->slug];
    }

    /**
     * The posts' ids as a PostgreSQL array literal, the one int4[] parameter
     * of "= ANY(?)": PDO binds no arrays.
     *
     * @param  list<object>  $posts
     */
    private static function idArray(array $posts): string
    {
        return '{' . implode(',', array_map(fn (object $post) => $post->id, $posts)) . '}';
    }

    /** A post's date, YYYY-MM-DD in UTC, from a timestamptz as PostgreSQL prints it. */
    private static function date(string $timestamp): string
    {
        return self::utc($timestamp)->format('Y-m-d');
    }

    /** A comment's time, YYYY-MM-DD HH:MM in UTC. */
    private static function minute(string $timestamp): string
    {
        return self::utc($timestamp)->format('Y-m-d H:i');
    }

    private static function utc(string $timestamp): DateTimeImmutable
    {
        return (new DateTimeImmutable($timestamp))->setTimezone(new DateTimeZone('UTC'));
    }
}
