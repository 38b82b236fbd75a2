package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"blogbench/goshared/pagecache"
	"blogbench/goshared/workload"

	"github.com/jackc/pgx/v5"
)

// These tests write comments into the real database, then delete them as `seed reset` does
// (docs/spec.md §2): comments above the seeded 10 000, the id sequence restarted.

// postForm sends a comment form (contentType "" sends none) and returns the answer and its
// Location.
func postForm(t *testing.T, srv *httptest.Server, path, contentType, form string) (response, string) {
	t.Helper()
	req, err := http.NewRequest("POST", srv.URL+path, strings.NewReader(form))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return send(t, srv, req)
}

func addedComments(t *testing.T) int64 {
	t.Helper()
	var n int64
	query(t, "SELECT count(*) FROM comments WHERE id > 10000", &n)
	return n
}

func resetComments(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, sql := range []string{
		"DELETE FROM comments WHERE id > 10000",
		"SELECT setval(pg_get_serial_sequence('comments', 'id'), (SELECT max(id) FROM comments))",
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
}

// commentServer starts the app against the real database and redisURL, with the comments
// reset before and after the test; slug is the newest post's.
func commentServer(t *testing.T, redisURL string) (srv *httptest.Server, slug string) {
	t.Helper()
	requireServices(t)
	resetComments(t)
	t.Cleanup(func() { resetComments(t) })
	query(t, "SELECT slug FROM posts ORDER BY id DESC LIMIT 1", &slug)
	return server(t, databaseURL, redisURL), slug
}

func TestComments(t *testing.T) {
	srv, slug := commentServer(t, redisURL)
	path := "/posts/" + slug + "/comments"
	testRedis(t).Del(context.Background(), pagecache.KeysACommentChanges(slug)...)
	before := get(t, srv, "/cached/posts/"+slug) // stored in the cache
	wantPage(t, "/cached/posts/"+slug, before, 200)

	got, location := postForm(t, srv, path, workload.FormContentType, "author_name=%3Cb%3EAna&body=1+%3C+2+%27%3B+DROP+TABLE+comments%3B")
	if got != (response{303, "", ""}) || location != "/posts/"+slug {
		t.Fatalf("POST %s: %+v to %q, want 303 to /posts/%s with no body or type", path, got, location, slug)
	}
	after := get(t, srv, "/cached/posts/"+slug)
	for _, want := range []string{escaped("<b>Ana"), escaped("1 < 2 '; DROP TABLE comments;")} {
		if !strings.Contains(after.body, want) {
			t.Errorf("the cached page after the comment lacks %q: its key was not deleted", want)
		}
	}
	if n := addedComments(t); n != 1 {
		t.Fatalf("%d comments stored, want 1", n)
	}

	refused := []struct {
		path, contentType, form string
		want                    response
	}{
		{path, "", "author_name=a&body=b", response{415, textType, workload.ErrNotAForm.Message}},
		{path, "text/plain", "author_name=a&body=b", response{415, textType, workload.ErrNotAForm.Message}},
		{path, workload.FormContentType, "author_name=a&body=" + strings.Repeat("b", workload.FormLimit), response{413, textType, workload.ErrTooLarge.Message}},
		{path, workload.FormContentType, "body=b", response{400, textType, "author_name is required\n"}},
		{path, workload.FormContentType, "author_name=a&body=%zz", response{400, textType, workload.ErrMalformed.Message}},
		{path, workload.FormContentType, "author_name=a&body=%FF", response{400, textType, "body must be valid UTF-8\n"}},
		{path, workload.FormContentType, "author_name=a&body=%00", response{400, textType, "body must not contain NUL characters\n"}},
		{"/posts/no-such-post/comments", workload.FormContentType, "author_name=a&body=b", response{404, htmlType, get(t, srv, "/no/such/page").body}},
		{"/posts/Upper/comments", workload.FormContentType, "author_name=a&body=b", response{404, htmlType, get(t, srv, "/no/such/page").body}},
	}
	for _, c := range refused {
		if got, _ := postForm(t, srv, c.path, c.contentType, c.form); got != c.want {
			t.Errorf("POST %s [%s] %.40q: %+v, want %+v", c.path, c.contentType, c.form, got, c.want)
		}
	}
	if n := addedComments(t); n != 1 {
		t.Errorf("%d comments stored after the refusals, want still 1", n)
	}
}

func TestCommentsWithRedisDown(t *testing.T) {
	srv, slug := commentServer(t, deadRedisURL)
	got, _ := postForm(t, srv, "/posts/"+slug+"/comments", workload.FormContentType, "author_name=a&body=stored")
	if got.status != 303 {
		t.Fatalf("a comment with Redis down: %+v, want 303", got)
	}
	if n := addedComments(t); n != 1 {
		t.Errorf("%d comments stored with Redis down, want 1", n)
	}
}

func TestCommentsWithPostgresDown(t *testing.T) {
	srv := server(t, deadDatabaseURL, deadRedisURL)
	got, _ := postForm(t, srv, "/posts/any/comments", workload.FormContentType, "author_name=a&body=b")
	if want := (response{503, textType, "database unavailable\n"}); got != want {
		t.Errorf("a comment with Postgres down: %+v, want %+v", got, want)
	}
}
