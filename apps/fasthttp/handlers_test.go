package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"blogbench/goshared/blog"
	"blogbench/goshared/pagecache"
	"blogbench/goshared/workload"

	"github.com/valyala/fasthttp/fasthttputil"
)

// These tests need no services: the app runs against a PostgreSQL and a Redis that are not
// there, so a request that reaches the database is answered 503, and a 404 page proves the
// request was refused before any query or Redis command. The pages themselves are checked
// against the Go reference by the parity gate (docs/spec.md §4). The server is the one run
// serves, on an in-memory listener, and the client is net/http's.

func deadServer(t *testing.T) (*http.Client, *fasthttputil.InmemoryListener) {
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
	ln := fasthttputil.NewInmemoryListener()
	srv := a.server()
	go srv.Serve(ln)
	t.Cleanup(func() {
		srv.Shutdown()
		rdb.Close()
		db.Close()
	})
	return &http.Client{
		Transport:     &http.Transport{DialContext: func(context.Context, string, string) (net.Conn, error) { return ln.Dial() }},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}, ln
}

type response struct {
	status      int
	contentType string
	body        string
}

// fetch sends a request and checks its answer carries a Content-Length (docs/spec.md §3.8).
func fetch(t *testing.T, client *http.Client, method, path, contentType, body string) response {
	t.Helper()
	req, err := http.NewRequest(method, "http://app"+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
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
	if server := resp.Header.Get("Server"); server != "" {
		t.Errorf("%s %s: Server: %s, as Go sends none", method, path, server)
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

// The routes match the path as sent, segment by segment, as Go's ServeMux does, and the slug
// check comes before any query or Redis command.
func TestRouting(t *testing.T) {
	client, _ := deadServer(t)
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
		{"GET", "/posts/rust/", notFound},
		{"GET", "/posts//rust", notFound}, // not normalised to /posts/rust
		{"GET", "/compute/", notFound},
		{"GET", "/no/such/page", notFound},
		{"GET", "/posts/rust/comments", notFound}, // another method: the 404 page, not a 405
		{"DELETE", "/", notFound},
		{"POST", "/posts/rust", notFound},
		{"GET", "/compute?n=10", response{200, textType, "17\n"}},
		{"GET", "/compute?x=1;y=2", response{400, textType, workload.BadNMessage}},
		{"GET", "/compute?n=+10", response{400, textType, workload.BadNMessage}},
		{"GET", "/compute?n=%31%30", response{200, textType, "17\n"}},
	} {
		if got := fetch(t, client, c.method, c.path, "", ""); got != c.want {
			t.Errorf("%s %s: %d %q %.60q, want %d %q %.60q", c.method, c.path,
				got.status, got.contentType, got.body, c.want.status, c.want.contentType, c.want.body)
		}
	}
	// A GET route serves HEAD, as Go's does: the status and length of the GET, no body.
	req, _ := http.NewRequest("HEAD", "http://app/compute?n=10", nil)
	if resp, err := client.Do(req); err != nil || resp.StatusCode != 200 || resp.ContentLength != 3 {
		t.Errorf("HEAD /compute?n=10: %v, %v", resp, err)
	}
}

// The comment route refuses in the contract's order, before any query (docs/spec.md §3.9):
// not a slug, then the Content-Type, then the size, then the form.
func TestCommentRefusals(t *testing.T) {
	client, _ := deadServer(t)
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
		{"/posts/rust/comments", form, "author_name=a&body=%zz", refusal(workload.ErrMalformed)},
		{"/posts/rust/comments", form, "body=b", response{400, textType, "author_name is required\n"}},
		{"/posts/rust/comments", form, "", response{400, textType, "author_name is required\n"}},
		{"/posts/rust/comments", form + "; charset=UTF-8", "author_name=a&body=b", unavailable},
	} {
		if got := fetch(t, client, "POST", c.path, c.contentType, c.body); got != c.want {
			t.Errorf("POST %s [%s] %.30q: %d %.60q, want %d %.60q", c.path, c.contentType, c.body,
				got.status, got.body, c.want.status, c.want.body)
		}
	}
}

// The handler, not the server, reads a body (Server.StreamRequestBody): a request that
// announces 5 MiB, over fasthttp's 4 MiB MaxRequestBodySize, and sends 20 KiB of it gets the
// route's answer at once, as from net/http, not the server's 400 or a wait for the rest.
func TestBodiesAreReadByTheRoute(t *testing.T) {
	_, ln := deadServer(t)
	for _, c := range []struct {
		method, path, contentType string
		want                      response
	}{
		{"POST", "/posts/rust/comments", workload.FormContentType, response{413, textType, workload.ErrTooLarge.Message}},
		{"POST", "/posts/Upper/comments", workload.FormContentType, notFound},
		{"POST", "/posts/rust/comments", "text/plain", response{415, textType, workload.ErrNotAForm.Message}},
		{"GET", "/compute?n=10", "", response{200, textType, "17\n"}},
	} {
		conn, err := ln.Dial()
		if err != nil {
			t.Fatal(err)
		}
		head := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: app\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n",
			c.method, c.path, c.contentType, 5<<20)
		go conn.Write([]byte(head + "author_name=a&body=" + strings.Repeat("b", 20<<10)))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%s %s: %v", c.method, c.path, err)
		}
		body, _ := io.ReadAll(resp.Body)
		conn.Close()
		got := response{resp.StatusCode, resp.Header.Get("Content-Type"), string(body)}
		if got != c.want {
			t.Errorf("%s %s with 20 KiB of a 5 MiB body: %d %.60q, want %d %.60q", c.method, c.path,
				got.status, got.body, c.want.status, c.want.body)
		}
	}
}
