package blogbench.webflux;

/**
 * The SQL text, byte for byte shared-sql's (docs/spec.md §3.2; QueriesTests compares it
 * with shared-sql/queries.json).
 */
final class Queries {

	static final String HOME_POSTS = "SELECT p.id, p.title, p.slug, p.excerpt, p.published_at, a.name AS author_name FROM posts p JOIN authors a ON a.id = p.author_id ORDER BY p.published_at DESC, p.id DESC LIMIT 20";

	static final String TAGS_OF_POSTS = "SELECT pt.post_id, t.name, t.slug FROM post_tags pt JOIN tags t ON t.id = pt.tag_id WHERE pt.post_id = ANY($1) ORDER BY pt.post_id, t.slug";

	static final String COMMENT_COUNTS = "SELECT post_id, count(*) AS comment_count FROM comments WHERE post_id = ANY($1) GROUP BY post_id";

	static final String POST_BY_SLUG = "SELECT p.id, p.title, p.slug, p.body, p.published_at, a.name AS author_name FROM posts p JOIN authors a ON a.id = p.author_id WHERE p.slug = $1";

	static final String TAGS_OF_POST = "SELECT t.name, t.slug FROM post_tags pt JOIN tags t ON t.id = pt.tag_id WHERE pt.post_id = $1 ORDER BY t.slug";

	static final String COMMENTS_OF_POST = "SELECT author_name, body, created_at FROM comments WHERE post_id = $1 ORDER BY created_at, id";

	static final String TAG_BY_SLUG = "SELECT id, name, slug FROM tags WHERE slug = $1";

	static final String TAG_POSTS = "SELECT p.id, p.title, p.slug, p.excerpt, p.published_at, a.name AS author_name FROM post_tags pt JOIN posts p ON p.id = pt.post_id JOIN authors a ON a.id = p.author_id WHERE pt.tag_id = $1 ORDER BY p.published_at DESC, p.id DESC LIMIT 20";

	static final String TAG_POST_COUNT = "SELECT count(*) FROM post_tags WHERE tag_id = $1";

	static final String POST_ID_BY_SLUG = "SELECT id FROM posts WHERE slug = $1";

	static final String INSERT_COMMENT = "INSERT INTO comments (post_id, author_name, body, created_at) VALUES ($1, $2, $3, now())";

	private Queries() {
	}

}
