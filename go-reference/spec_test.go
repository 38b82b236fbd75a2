package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// The tests below check the pages the app serves against the contract (docs/spec.md §2 for
// the data, §3 for the routes), not against the app's own queries: every expected value comes
// from SQL written here from the contract's words, never from go-shared/blog's queries.go or
// views.go. Parity cannot catch a change to the shared SQL (every app moves together); these
// tests do.

// specEscaped is the contract's text-context escaping (docs/spec.md §3, the vectors of
// templates/testdata/escape-vectors.json), written out so the app's escaping is checked
// rather than reused.
var specEscaped = strings.NewReplacer(
	"&", "&amp;", "'", "&#39;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "+", "&#43;", "\x00", "\uFFFD",
).Replace

// Dates are formatted by PostgreSQL, not by Go, so that the app's formatting is checked:
// docs/spec.md §2 fixes YYYY-MM-DD for dates and YYYY-MM-DD HH:MM UTC for comment times.
const (
	specDate = `to_char(p.published_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`
	specTime = `to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI')`
)

// specCardSelect reads posts as a list shows them (home and tag pages), each with its number
// of comments; specLatest is the contract's "latest 20".
const (
	specCardSelect = `SELECT p.id, p.title, p.slug, a.name, ` + specDate + `, p.excerpt,
		(SELECT count(*) FROM comments c WHERE c.post_id = p.id)
		FROM posts p JOIN authors a ON a.id = p.author_id `
	specLatest = ` ORDER BY p.published_at DESC, p.id DESC LIMIT 20`
)

type specTag struct{ Name, Slug string }

// specCard is a post as listed on the home and tag pages.
type specCard struct {
	ID       int32
	Title    string
	Slug     string
	Author   string
	Date     string
	Excerpt  string
	Comments int64
	Tags     []specTag
}

type specComment struct{ Author, Time, Body string }

// specConn is a connection of the test's own to the seeded database.
func specConn(t *testing.T) *pgx.Conn {
	t.Helper()
	requireServices(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	return conn
}

func specRows[T any](t *testing.T, conn *pgx.Conn, scan pgx.RowToFunc[T], sql string, args ...any) []T {
	t.Helper()
	rows, _ := conn.Query(context.Background(), sql, args...)
	out, err := pgx.CollectRows(rows, scan)
	if err != nil {
		t.Fatalf("%v\n%s", err, sql)
	}
	return out
}

func specRow(t *testing.T, conn *pgx.Conn, sql string, args []any, dest ...any) {
	t.Helper()
	if err := conn.QueryRow(context.Background(), sql, args...).Scan(dest...); err != nil {
		t.Fatalf("%v\n%s", err, sql)
	}
}

// specTagsOf returns a post's tags in the contract's order. docs/spec.md §3 lists "tags"
// without an order; the rule the project follows is: by tag slug (byte order; slugs are
// ASCII). It is sorted here, not in SQL, and differs from the order by name (e.g. "C++" has
// slug cpp, "<script> & XSS" script-and-xss, "\"Quoted\"" quoted).
func specTagsOf(t *testing.T, conn *pgx.Conn, postID int32) []specTag {
	t.Helper()
	tags := specRows(t, conn, pgx.RowToStructByPos[specTag],
		`SELECT name, slug FROM tags WHERE id IN (SELECT tag_id FROM post_tags WHERE post_id = $1)`, postID)
	slices.SortFunc(tags, func(a, b specTag) int { return cmp.Compare(a.Slug, b.Slug) })
	return tags
}

// specCards runs specCardSelect + where + specLatest and adds each post's tags.
func specCards(t *testing.T, conn *pgx.Conn, where string, args ...any) []specCard {
	t.Helper()
	cards := specRows(t, conn, func(row pgx.CollectableRow) (c specCard, err error) {
		err = row.Scan(&c.ID, &c.Title, &c.Slug, &c.Author, &c.Date, &c.Excerpt, &c.Comments)
		return c, err
	}, specCardSelect+where+specLatest, args...)
	for i := range cards {
		cards[i].Tags = specTagsOf(t, conn, cards[i].ID)
	}
	return cards
}

// between returns the text between each occurrence of open and the next close.
func between(s, open, close string) []string {
	var out []string
	for {
		i := strings.Index(s, open)
		if i < 0 {
			return out
		}
		s = s[i+len(open):]
		j := strings.Index(s, close)
		if j < 0 {
			return out
		}
		out = append(out, s[:j])
		s = s[j+len(close):]
	}
}

// firstBetween is the first of between, or fails the test.
func firstBetween(t *testing.T, what, s, open, close string) string {
	t.Helper()
	parts := between(s, open, close)
	if len(parts) == 0 {
		t.Fatalf("%s: no %s…%s in\n%s", what, open, close, s)
	}
	return parts[0]
}

// checkTags checks the tag list inside html is exactly tags, in order.
func checkTags(t *testing.T, what, html string, tags []specTag) {
	t.Helper()
	var want []string
	for _, tag := range tags {
		want = append(want, fmt.Sprintf(`<a href="/tags/%s">%s</a>`, tag.Slug, specEscaped(tag.Name)))
	}
	got := between(firstBetween(t, what, html, `<ul class="tags">`, "</ul>"), "<li>", "</li>")
	if !slices.Equal(got, want) {
		t.Errorf("%s: tags\n%q\nwant\n%q", what, got, want)
	}
}

// checkInOrder checks that each of wants appears in html after the previous one.
func checkInOrder(t *testing.T, what, html string, wants ...string) {
	t.Helper()
	rest := html
	for _, want := range wants {
		i := strings.Index(rest, want)
		if i < 0 {
			t.Errorf("%s: no %q (in this order) in\n%s", what, want, html)
			return
		}
		rest = rest[i+len(want):]
	}
}

// checkCards checks a list page shows exactly the posts of want, in order. Comment counts are
// on the home page only (docs/spec.md §3).
func checkCards(t *testing.T, path, body string, want []specCard, withCounts bool) {
	t.Helper()
	articles := between(body, "<article>", "</article>")
	if len(articles) != len(want) {
		t.Fatalf("GET %s: %d posts, want %d", path, len(articles), len(want))
	}
	for i, c := range want {
		what := fmt.Sprintf("GET %s, post %d (%s)", path, i+1, c.Slug)
		meta := fmt.Sprintf(`<p class="meta">by %s on <time>%s</time>`, specEscaped(c.Author), c.Date)
		if withCounts {
			meta += fmt.Sprintf(" · comments: %d", c.Comments)
		}
		checkInOrder(t, what, articles[i],
			fmt.Sprintf(`<h2><a href="/posts/%s">%s</a></h2>`, c.Slug, specEscaped(c.Title)),
			meta+"</p>",
			// The excerpt is the seeded posts.excerpt column, shown whole, not cut from the body.
			"<p>"+specEscaped(c.Excerpt)+"</p>")
		checkTags(t, what, articles[i], c.Tags)
	}
}

func TestSpecHome(t *testing.T) {
	conn := specConn(t)
	srv := server(t, databaseURL, redisURL)
	want := specCards(t, conn, "")
	got := get(t, srv, "/")
	wantPage(t, "/", got, 200)
	checkCards(t, "/", got.body, want, true)
}

func TestSpecPostPages(t *testing.T) {
	conn := specConn(t)
	srv := server(t, databaseURL, redisURL)
	slugs := specRows(t, conn, pgx.RowTo[string], `SELECT slug FROM posts ORDER BY id`)
	if len(slugs) < 5 {
		t.Fatalf("%d posts", len(slugs))
	}
	// The first, the last and three in the middle; then the posts whose comments are the
	// hardest to order right by accident: the most commented, and one with two comments at
	// the same instant (only the id orders those; the seeded data has such posts).
	sample := []string{slugs[0], slugs[len(slugs)/4], slugs[len(slugs)/2], slugs[len(slugs)*3/4], slugs[len(slugs)-1]}
	var mostCommented, tied string
	specRow(t, conn, `SELECT p.slug FROM posts p JOIN comments c ON c.post_id = p.id
		GROUP BY p.id ORDER BY count(*) DESC, p.id LIMIT 1`, nil, &mostCommented)
	specRow(t, conn, `SELECT slug FROM posts WHERE id = (SELECT min(c.post_id) FROM comments c
		JOIN comments d ON d.post_id = c.post_id AND d.created_at = c.created_at AND d.id <> c.id)`, nil, &tied)
	sample = append(sample, mostCommented, tied)
	for _, slug := range sample {
		checkPostPage(t, conn, get(t, srv, "/posts/"+slug), slug)
	}
}

// checkPostPage checks the page of the post with slug (docs/spec.md §3): title, author,
// date, tags, body, and all its comments oldest first.
func checkPostPage(t *testing.T, conn *pgx.Conn, got response, slug string) {
	t.Helper()
	path := "/posts/" + slug
	wantPage(t, path, got, 200)
	var id int32
	var title, author, date, body string
	specRow(t, conn, `SELECT p.id, p.title, a.name, `+specDate+`, p.body
		FROM posts p JOIN authors a ON a.id = p.author_id WHERE p.slug = $1`,
		[]any{slug}, &id, &title, &author, &date, &body)
	var count int
	specRow(t, conn, `SELECT count(*) FROM comments WHERE post_id = $1`, []any{id}, &count)
	comments := specRows(t, conn, pgx.RowToStructByPos[specComment],
		`SELECT c.author_name, `+specTime+`, c.body FROM comments c
		WHERE c.post_id = $1 ORDER BY c.created_at ASC, c.id ASC`, id)

	what := "GET " + path
	article := firstBetween(t, what, got.body, "<article>", "</article>")
	checkInOrder(t, what, article,
		"<h1>"+specEscaped(title)+"</h1>",
		fmt.Sprintf(`<p class="meta">by %s on <time>%s</time></p>`, specEscaped(author), date))
	// The body is shown whole, one <p> per paragraph (paragraphs are separated by a blank
	// line); the only other <p> of the article has a class.
	var paragraphs []string
	for _, paragraph := range strings.Split(body, "\n\n") {
		paragraphs = append(paragraphs, specEscaped(paragraph))
	}
	if shown := between(article, "<p>", "</p>"); !slices.Equal(shown, paragraphs) {
		t.Errorf("%s: body paragraphs\n%q\nwant\n%q", what, shown, paragraphs)
	}
	checkTags(t, what, article, specTagsOf(t, conn, id))

	section := firstBetween(t, what, got.body, `<section class="comments">`, "</section>")
	checkInOrder(t, what, section, fmt.Sprintf("<h2>Comments (%d)</h2>", count))
	shown := between(section, `<div class="comment">`, "</div>")
	if len(shown) != count || len(comments) != count {
		t.Fatalf("%s: %d comments shown, %d read, want COUNT(*) = %d", what, len(shown), len(comments), count)
	}
	for i, c := range comments {
		checkInOrder(t, fmt.Sprintf("%s, comment %d", what, i+1), shown[i],
			fmt.Sprintf(`<p class="meta">%s at <time>%s</time></p>`, specEscaped(c.Author), c.Time),
			"<p>"+specEscaped(c.Body)+"</p>")
	}
}

func TestSpecTagPages(t *testing.T) {
	conn := specConn(t)
	srv := server(t, databaseURL, redisURL)
	type tagRow struct {
		ID         int32
		Name, Slug string
	}
	tags := specRows(t, conn, pgx.RowToStructByPos[tagRow], `SELECT id, name, slug FROM tags ORDER BY id`)
	if len(tags) != 30 { // docs/spec.md §2
		t.Errorf("%d tags, want 30", len(tags))
	}
	for _, tag := range tags {
		path := "/tags/" + tag.Slug
		var posts int
		specRow(t, conn, `SELECT count(DISTINCT p.id) FROM posts p JOIN post_tags pt ON pt.post_id = p.id
			WHERE pt.tag_id = $1`, []any{tag.ID}, &posts)
		want := specCards(t, conn, `WHERE p.id IN (SELECT post_id FROM post_tags WHERE tag_id = $1)`, tag.ID)
		got := get(t, srv, path)
		wantPage(t, path, got, 200)
		checkInOrder(t, "GET "+path, got.body,
			"<h1>Posts tagged “"+specEscaped(tag.Name)+"”</h1>",
			fmt.Sprintf("<p>%d posts in all; the latest 20:</p>", posts))
		checkCards(t, path, got.body, want, false)
		if strings.Contains(got.body, " · comments: ") {
			t.Errorf("GET %s: shows comment counts", path)
		}
	}
}

// specNotFound is the small 404 page every app serves (docs/spec.md §3).
const specNotFound = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Not found · blogbench</title>
</head>
<body>
<header><a href="/">blogbench</a></header>
<main>
<h1>Not found</h1>
<p>There is no page at this address. <a href="/">Back to the latest posts</a>.</p>
</main>
</body>
</html>
`

func TestSpecNotFound(t *testing.T) {
	conn := specConn(t)
	srv := server(t, databaseURL, redisURL)
	// A tag's slug is not a post's, and a post's is not a tag's: each kind is looked up in its
	// own table.
	var postSlug string
	specRow(t, conn, `SELECT slug FROM posts ORDER BY id LIMIT 1`, nil, &postSlug)
	unknownPosts := []string{"no-such-post", "rust"}
	unknownTags := []string{"no-such-tag", postSlug}
	var taken int
	specRow(t, conn, `SELECT (SELECT count(*) FROM posts WHERE slug = ANY($1)) + (SELECT count(*) FROM tags WHERE slug = ANY($2))`,
		[]any{unknownPosts, unknownTags}, &taken)
	if taken != 0 {
		t.Fatalf("%d of the unknown slugs %q, %q exist", taken, unknownPosts, unknownTags)
	}
	paths := []string{"/no/such/page", "/posts/" + unknownPosts[0], "/posts/" + unknownPosts[1],
		"/tags/" + unknownTags[0], "/tags/" + unknownTags[1]}
	for _, path := range paths {
		got := get(t, srv, path)
		wantPage(t, path, got, 404)
		if got.body != specNotFound {
			t.Errorf("GET %s: not the 404 page:\n%s", path, got.body)
		}
	}
}
