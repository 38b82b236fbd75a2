package blog

// The SQL text of every query, byte for byte the text in shared-sql/src/lib.rs (the single
// source: `cargo test -p shared-sql` fails when these differ). Query counts per page follow
// docs/spec.md §3: home 3, post 3, tag 4; a comment 2 in a transaction (§3.9).
const (
	homePosts      = `SELECT p.id, p.title, p.slug, p.excerpt, p.published_at, a.name AS author_name FROM posts p JOIN authors a ON a.id = p.author_id ORDER BY p.published_at DESC, p.id DESC LIMIT 20`
	tagsOfPosts    = `SELECT pt.post_id, t.name, t.slug FROM post_tags pt JOIN tags t ON t.id = pt.tag_id WHERE pt.post_id = ANY($1) ORDER BY pt.post_id, t.slug`
	commentCounts  = `SELECT post_id, count(*) AS comment_count FROM comments WHERE post_id = ANY($1) GROUP BY post_id`
	postBySlug     = `SELECT p.id, p.title, p.slug, p.body, p.published_at, a.name AS author_name FROM posts p JOIN authors a ON a.id = p.author_id WHERE p.slug = $1`
	tagsOfPost     = `SELECT t.name, t.slug FROM post_tags pt JOIN tags t ON t.id = pt.tag_id WHERE pt.post_id = $1 ORDER BY t.slug`
	commentsOfPost = `SELECT author_name, body, created_at FROM comments WHERE post_id = $1 ORDER BY created_at, id`
	tagBySlug      = `SELECT id, name, slug FROM tags WHERE slug = $1`
	tagPosts       = `SELECT p.id, p.title, p.slug, p.excerpt, p.published_at, a.name AS author_name FROM post_tags pt JOIN posts p ON p.id = pt.post_id JOIN authors a ON a.id = p.author_id WHERE pt.tag_id = $1 ORDER BY p.published_at DESC, p.id DESC LIMIT 20`
	tagPostCount   = `SELECT count(*) FROM post_tags WHERE tag_id = $1`
	postIDBySlug   = `SELECT id FROM posts WHERE slug = $1`
	insertComment  = `INSERT INTO comments (post_id, author_name, body, created_at) VALUES ($1, $2, $3, now())`
)
