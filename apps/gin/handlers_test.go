package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"blogbench/goshared/blog"
	"blogbench/goshared/pagecache"
	"blogbench/goshared/workload"
)

// These tests need no services: the app runs against a PostgreSQL and a Redis that are not
// there, so a request that reaches the database is answered 503, and a 404 page proves the
// request was refused before any query or Redis command. The pages themselves are checked
// against the Go reference by the parity gate (docs/spec.md §4).

func deadServer(t *testing.T) *httptest.Server {
	t.Helper()
	cfg := workload.Config{
		DatabaseURL: "postgres://blogbench:blogbench@127.0.0.1:1/blogbench", RedisURL: "redis://127.0.0.1:1/0",
		PoolMax: 4, PoolMin: 1, PingOnAcquire: "idle",
	}
	db, err := blog.OpenDB(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	rdb, err := pagecache.OpenRedis(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a, err := newApp(blog.NewStore(db), pagecache.New(rdb))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.routes())
	t.Cleanup(func() {
		srv.Close()
		rdb.Close()
		db.Close()
	})
	return srv
}

type response struct {
	status      int
	contentType string
	body        string
}

// fetch sends a request without following redirects and checks its answer carries a
// Content-Length (docs/spec.md §3.8).
func fetch(t *testing.T, srv *httptest.Server, method, path, contentType, body string) response {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	client := *srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.ContentLength != int64(len(got)) || len(resp.TransferEncoding) > 0 {
		t.Errorf("%s %s: Content-Length %d, Transfer-Encoding %v for a body of %d bytes",
			method, path, resp.ContentLength, resp.TransferEncoding, len(got))
	}
	return response{resp.StatusCode, resp.Header.Get("Content-Type"), string(got)}
}

var (
	notFoundPage = func() string {
		page, err := blog.Render(blog.NotFoundTemplate, nil)
		if err != nil {
			panic(err)
		}
		return string(page)
	}()
	notFound    = response{404, htmlType, notFoundPage}
	unavailable = response{503, textType, workload.DBUnavailableMessage}
)

// The slug check is middleware on each route that takes one, and the router's settings
// keep Go's answers for the paths around the routes.
func TestRouting(t *testing.T) {
	srv := deadServer(t)
	long := strings.Repeat("a", workload.MaxSlugLen+1)
	for _, c := range []struct {
		method, path string
		want         response
	}{
		{"GET", "/posts/no-such-post", unavailable},
		{"GET", "/tags/rust", unavailable},
		{"GET", "/tags/%72ust", unavailable}, // "rust", decoded
		{"GET", "/cached/posts/rust", unavailable},
		{"GET", "/", unavailable},
		{"GET", "/cached/", unavailable},
		{"GET", "/posts/%00", notFound},
		{"GET", "/tags/%ff%fe", notFound},
		{"GET", "/cached/posts/" + long, notFound},
		{"GET", "/posts/Upper", notFound},
		{"GET", "/posts/a%2Fb", notFound}, // one segment, not a slug
		{"GET", "/tags/a+b", notFound},
		{"GET", "/posts/", notFound},
		{"GET", "/posts/rust/", notFound}, // not redirected
		{"GET", "/compute/", notFound},
		{"GET", "/no/such/page", notFound},
		{"GET", "/posts/rust/comments", notFound}, // another method: the 404 page, not a 405
		{"DELETE", "/", notFound},
		{"POST", "/posts/rust", notFound},
		{"GET", "/compute?n=10", response{200, textType, "17\n"}},
		{"GET", "/compute?x=1;y=2", response{400, textType, workload.BadNMessage}},
		{"GET", "/compute?n=+10", response{400, textType, workload.BadNMessage}},
	} {
		if got := fetch(t, srv, c.method, c.path, "", ""); got != c.want {
			t.Errorf("%s %s: %d %q %.60q, want %d %q %.60q", c.method, c.path,
				got.status, got.contentType, got.body, c.want.status, c.want.contentType, c.want.body)
		}
	}
}

// The comment route refuses in the contract's order, before any query (docs/spec.md §3.9):
// not a slug, then the Content-Type, then the size (Gin reads through net/http's
// MaxBytesReader), then the form.
func TestCommentRefusals(t *testing.T) {
	srv := deadServer(t)
	form := workload.FormContentType
	tooLarge := "author_name=a&body=" + strings.Repeat("b", workload.FormLimit)
	refusal := func(e *workload.FormError) response { return response{e.Status, textType, e.Message} }
	for _, c := range []struct {
		path, contentType, body string
		want                    response
	}{
		{"/posts/Upper/comments", "", tooLarge, notFound},
		{"/posts/a%00b/comments", form, "author_name=a&body=b", notFound},
		{"/posts/rust%2Fcomments", form, "author_name=a&body=b", notFound}, // not the comment route
		{"/posts/rust/comments", "", tooLarge, refusal(workload.ErrNotAForm)},
		{"/posts/rust/comments", "multipart/form-data; boundary=x", "author_name=a&body=b", refusal(workload.ErrNotAForm)},
		{"/posts/rust/comments", form, tooLarge, refusal(workload.ErrTooLarge)},
		{"/posts/rust/comments", form, tooLarge + strings.Repeat("b", 1<<20), refusal(workload.ErrTooLarge)},
		{"/posts/rust/comments", form, "author_name=a&body=%zz", refusal(workload.ErrMalformed)},
		{"/posts/rust/comments", form, "body=b", response{400, textType, "author_name is required\n"}},
		{"/posts/rust/comments", form + "; charset=UTF-8", "author_name=a&body=b", unavailable},
	} {
		if got := fetch(t, srv, "POST", c.path, c.contentType, c.body); got != c.want {
			t.Errorf("POST %s [%s] %.30q: %d %.60q, want %d %.60q", c.path, c.contentType, c.body,
				got.status, got.body, c.want.status, c.want.body)
		}
	}
}
