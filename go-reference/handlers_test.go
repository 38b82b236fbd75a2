package main

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"blogbench/goshared/blog"
	"blogbench/goshared/pagecache"
	"blogbench/goshared/workload"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
)

// These tests run against the real services at DATABASE_URL and REDIS_URL (the app's
// defaults when unset). A database that is down or not seeded fails them: `make services`.

const (
	deadDatabaseURL = "postgres://blogbench:blogbench@127.0.0.1:1/blogbench"
	deadRedisURL    = "redis://127.0.0.1:1/0"
)

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

var (
	databaseURL = env("DATABASE_URL", workload.DefaultDatabaseURL)
	redisURL    = env("REDIS_URL", workload.DefaultRedisURL)
)

// servicesReady checks once that the database is up and seeded and Redis answers.
var servicesReady = sync.OnceValue(func() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		return fmt.Errorf("database: %w", err)
	}
	defer conn.Close(ctx)
	var posts int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM posts").Scan(&posts); err != nil {
		return fmt.Errorf("database not seeded: %w", err)
	}
	if posts != 1000 {
		return fmt.Errorf("database not seeded: %d posts, want 1000", posts)
	}
	rdb := redis.NewClient(mustRedisOptions(redisURL))
	defer rdb.Close()
	if err := rdb.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("redis: %w", err)
	}
	return nil
})

func mustRedisOptions(url string) *redis.Options {
	opt, err := redis.ParseURL(url)
	if err != nil {
		panic(err)
	}
	return opt
}

// testRedis is a client of the test Redis, for looking at and deleting the keys tests make.
func testRedis(t *testing.T) *redis.Client {
	rdb := redis.NewClient(mustRedisOptions(redisURL))
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

func requireServices(t *testing.T) {
	t.Helper()
	if err := servicesReady(); err != nil {
		t.Fatalf("%v\n(DATABASE_URL=%s, REDIS_URL=%s): run `make services` first", err, databaseURL, redisURL)
	}
}

// configOf is the config of an environment holding only the given name, value pairs.
func configOf(pairs ...string) (workload.Config, error) {
	env := map[string]string{}
	for i := 0; i < len(pairs); i += 2 {
		env[pairs[i]] = pairs[i+1]
	}
	return workload.ConfigFrom(func(name string) (string, bool) {
		v, ok := env[name]
		return v, ok
	})
}

// server starts the app, as main sets it up, against the given services.
func server(t *testing.T, dbURL, redisURL string) *httptest.Server {
	t.Helper()
	cfg, err := configOf("DATABASE_URL", dbURL, "REDIS_URL", redisURL)
	if err != nil {
		t.Fatal(err)
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

// get fetches path.
func get(t *testing.T, srv *httptest.Server, path string) response {
	t.Helper()
	req, err := http.NewRequest("GET", srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := send(t, srv, req)
	return got
}

// send sends req without following redirects, checks the response carries a Content-Length
// (docs/spec.md §3), and returns it with its Location.
func send(t *testing.T, srv *httptest.Server, req *http.Request) (response, string) {
	t.Helper()
	client := *srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.ContentLength != int64(len(body)) || len(resp.TransferEncoding) > 0 {
		t.Errorf("%s %s: Content-Length %d, Transfer-Encoding %v for a body of %d bytes",
			req.Method, req.URL.Path, resp.ContentLength, resp.TransferEncoding, len(body))
	}
	return response{resp.StatusCode, resp.Header.Get("Content-Type"), string(body)}, resp.Header.Get("Location")
}

func wantPage(t *testing.T, path string, got response, status int) {
	t.Helper()
	if got.status != status || got.contentType != htmlType {
		t.Fatalf("GET %s: %d %q, want %d %q\n%s", path, got.status, got.contentType, status, htmlType, got.body)
	}
}

// escaped is s as html/template prints it in element content.
func escaped(s string) string {
	var b strings.Builder
	template.Must(template.New("").Parse("{{.}}")).Execute(&b, s)
	return b.String()
}

// query returns the single row of sql from the test database.
func query(t *testing.T, sql string, dest ...any) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, sql).Scan(dest...); err != nil {
		t.Fatal(err)
	}
}

func TestComputeAndUnknownPaths(t *testing.T) {
	a, err := newApp(nil, nil) // no route here touches the database or Redis
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.routes())
	defer srv.Close()
	for _, c := range []struct {
		path   string
		status int
		body   string
	}{
		{"/compute", 200, "21171191\n"},
		{"/compute?n=10", 200, "17\n"},
		{"/compute?n=2", 200, "0\n"},
		{"/compute?n=", 400, workload.BadNMessage},
		{"/compute?n=1", 400, workload.BadNMessage},
		{"/compute?n=1000001", 400, workload.BadNMessage},
		{"/compute?n=abc", 400, workload.BadNMessage},
		{"/compute?n=%zz", 400, workload.BadNMessage},
	} {
		got := get(t, srv, c.path)
		if got != (response{c.status, textType, c.body}) {
			t.Errorf("GET %s: got %+v, want %d %q", c.path, got, c.status, c.body)
		}
	}
	for _, path := range []string{"/no/such/page", "/posts", "/posts/a/b", "/cached/posts/", "/index.html"} {
		got := get(t, srv, path)
		wantPage(t, path, got, 404)
		if got.body != string(a.notFound) || !strings.Contains(got.body, "<h1>Not found</h1>") {
			t.Errorf("GET %s: not the 404 page:\n%s", path, got.body)
		}
	}
}

func TestHome(t *testing.T) {
	requireServices(t)
	srv := server(t, databaseURL, redisURL)
	got := get(t, srv, "/")
	wantPage(t, "/", got, 200)
	if n := strings.Count(got.body, "<article>"); n != 20 {
		t.Errorf("home: %d articles, want 20", n)
	}
	if n := strings.Count(got.body, " · comments: "); n != 20 {
		t.Errorf("home: %d comment counts, want 20", n)
	}
	var title, slug string
	query(t, "SELECT title, slug FROM posts ORDER BY published_at DESC, id DESC LIMIT 1", &title, &slug)
	if want := fmt.Sprintf(`<h2><a href="/posts/%s">%s</a></h2>`, slug, escaped(title)); !strings.Contains(got.body, want) {
		t.Errorf("home: no %s", want)
	}
}

func TestPostPage(t *testing.T) {
	requireServices(t)
	srv := server(t, databaseURL, redisURL)
	// The post that carries the XSS comment (docs/spec.md §2).
	var slug, title string
	var comments int
	query(t, `SELECT p.slug, p.title, (SELECT count(*) FROM comments c WHERE c.post_id = p.id)
		FROM posts p WHERE p.id = (SELECT min(post_id) FROM comments WHERE body = '<script>alert("xss")</script>')`,
		&slug, &title, &comments)
	path := "/posts/" + slug
	got := get(t, srv, path)
	wantPage(t, path, got, 200)
	for _, want := range []string{
		"<h1>" + escaped(title) + "</h1>",
		fmt.Sprintf("<h2>Comments (%d)</h2>", comments),
		"<p>&lt;script&gt;alert(&#34;xss&#34;)&lt;/script&gt;</p>",
	} {
		if !strings.Contains(got.body, want) {
			t.Errorf("GET %s: no %s", path, want)
		}
	}
	if n := strings.Count(got.body, `<div class="comment">`); n != comments {
		t.Errorf("GET %s: %d comments, want %d", path, n, comments)
	}
	if strings.Contains(got.body, "<script>") {
		t.Errorf("GET %s: unescaped <script>", path)
	}
}

func TestTagPages(t *testing.T) {
	requireServices(t)
	srv := server(t, databaseURL, redisURL)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, _ := conn.Query(ctx, `SELECT t.slug, t.name, count(pt.post_id) FROM tags t
		LEFT JOIN post_tags pt ON pt.tag_id = t.id GROUP BY t.id ORDER BY t.id`)
	var slug, name string
	var count int
	tags := 0
	_, err = pgx.ForEachRow(rows, []any{&slug, &name, &count}, func() error {
		tags++
		path := "/tags/" + slug
		got := get(t, srv, path)
		wantPage(t, path, got, 200)
		for _, want := range []string{
			"<title>Tag: " + escaped(name) + " · blogbench</title>",
			"<h1>Posts tagged “" + escaped(name) + "”</h1>",
			fmt.Sprintf("<p>%d posts in all; the latest 20:</p>", count),
		} {
			if !strings.Contains(got.body, want) {
				t.Errorf("GET %s: no %s", path, want)
			}
		}
		if n := strings.Count(got.body, "<article>"); n != min(count, 20) {
			t.Errorf("GET %s: %d articles, want %d", path, n, min(count, 20))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if tags != 30 {
		t.Errorf("%d tags, want 30", tags)
	}
}

func TestUnknownSlugs(t *testing.T) {
	requireServices(t)
	srv := server(t, databaseURL, redisURL)
	rdb := testRedis(t)
	key := "page:/posts/no-such-post"
	t.Cleanup(func() { rdb.Del(context.Background(), key) })
	notFound := get(t, srv, "/no/such/page")
	wantPage(t, "/no/such/page", notFound, 404)
	for _, path := range []string{"/posts/no-such-post", "/tags/no-such-tag", "/cached/posts/no-such-post"} {
		got := get(t, srv, path)
		wantPage(t, path, got, 404)
		if got.body != notFound.body {
			t.Errorf("GET %s: not the 404 page:\n%s", path, got.body)
		}
	}
	if n, err := rdb.Exists(context.Background(), key).Result(); err != nil || n != 0 {
		t.Errorf("%s stored for an unknown slug (exists=%d, err=%v)", key, n, err)
	}
}

// cachedPaths returns pairs of uncached and cached paths with their Redis keys, and deletes
// those keys before and after the test.
func cachedPaths(t *testing.T, rdb *redis.Client) [][3]string {
	var slug string
	query(t, "SELECT slug FROM posts ORDER BY id LIMIT 1", &slug)
	paths := [][3]string{
		{"/", "/cached/", "page:/"},
		{"/posts/" + slug, "/cached/posts/" + slug, "page:/posts/" + slug},
	}
	del := func() {
		for _, p := range paths {
			if err := rdb.Del(context.Background(), p[2]).Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	del()
	t.Cleanup(del)
	return paths
}

func TestCachedRoutes(t *testing.T) {
	requireServices(t)
	srv := server(t, databaseURL, redisURL)
	rdb := testRedis(t)
	paths := cachedPaths(t, rdb)
	// With Postgres gone, only a cache hit can answer 200.
	noDB := server(t, deadDatabaseURL, redisURL)
	for _, p := range paths {
		uncached, cached := p[0], p[1]
		want := get(t, srv, uncached)
		wantPage(t, uncached, want, 200)
		if got := get(t, noDB, cached); got.status != 503 {
			t.Errorf("GET %s with no database and an empty cache: %d, want 503", cached, got.status)
		}
		for i, what := range []string{"miss", "hit"} {
			got := get(t, srv, cached)
			if got != want {
				t.Errorf("GET %s (%s %d) differs from GET %s:\n%s", cached, what, i, uncached, got.body)
			}
		}
		stored, err := rdb.Get(context.Background(), p[2]).Bytes()
		if err != nil || !bytes.Equal(stored, []byte(want.body)) {
			t.Errorf("%s: stored %d bytes (err %v), want the %d bytes of %s", p[2], len(stored), err, len(want.body), uncached)
		}
		if ttl := rdb.TTL(context.Background(), p[2]).Val(); ttl != -1 {
			t.Errorf("%s: TTL %v, want none", p[2], ttl)
		}
		if got := get(t, noDB, cached); got != want {
			t.Errorf("GET %s with no database: not served from the cache: %d\n%s", cached, got.status, got.body)
		}
	}
}

// queryCounter counts the queries a pool sends (docs/spec.md §3 fixes how many each page takes).
type queryCounter struct{ n atomic.Int64 }

func (c *queryCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return ctx
}

func (c *queryCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func TestQueryCounts(t *testing.T) {
	requireServices(t)
	pc, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	var counter queryCounter
	pc.ConnConfig.Tracer = &counter
	db, err := pgxpool.NewWithConfig(context.Background(), pc)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rdb := testRedis(t)
	a, err := newApp(blog.NewStore(db), pagecache.New(rdb))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.routes())
	defer srv.Close()
	paths := cachedPaths(t, rdb)
	for _, c := range []struct {
		path    string
		queries int64
	}{
		{"/", 3},
		{paths[1][0], 3},
		{"/tags/rust", 4},
		{"/posts/no-such-post", 1},
		{"/tags/no-such-tag", 1},
		{"/cached/", 3}, // a miss
		{"/cached/", 0}, // a hit
		{paths[1][1], 3},
		{paths[1][1], 0},
		{"/compute?n=100", 0},
	} {
		before := counter.n.Load()
		get(t, srv, c.path)
		if n := counter.n.Load() - before; n != c.queries {
			t.Errorf("GET %s: %d queries, want %d", c.path, n, c.queries)
		}
	}
}

func TestRedisDown(t *testing.T) {
	requireServices(t)
	srv := server(t, databaseURL, deadRedisURL)
	for _, p := range [][2]string{{"/", "/cached/"}, {"/posts/no-such-post", "/cached/posts/no-such-post"}} {
		want := get(t, srv, p[0])
		for range 3 {
			start := time.Now()
			if got := get(t, srv, p[1]); got != want {
				t.Errorf("GET %s with Redis down: %d, differs from GET %s\n%s", p[1], got.status, p[0], got.body)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("GET %s with Redis down took %v", p[1], d)
			}
		}
	}
	var slug string
	query(t, "SELECT slug FROM posts ORDER BY id DESC LIMIT 1", &slug)
	want := get(t, srv, "/posts/"+slug)
	wantPage(t, "/posts/"+slug, want, 200)
	if got := get(t, srv, "/cached/posts/"+slug); got != want {
		t.Errorf("GET /cached/posts/%s with Redis down: %d, differs from the uncached page", slug, got.status)
	}
}

func TestPostgresDown(t *testing.T) {
	srv := server(t, deadDatabaseURL, deadRedisURL)
	want := response{503, textType, "database unavailable\n"}
	for _, path := range []string{"/", "/posts/any", "/tags/any", "/cached/", "/cached/posts/any"} {
		if got := get(t, srv, path); got != want {
			t.Errorf("GET %s with Postgres down: %+v, want %+v", path, got, want)
		}
	}
	// The routes that need no database still answer.
	if got := get(t, srv, "/compute?n=10"); got.status != 200 {
		t.Errorf("GET /compute with Postgres down: %d", got.status)
	}
}
