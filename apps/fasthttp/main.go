// Command fasthttp is the blog on fasthttp: its own HTTP/1.1 server and RequestCtx, the
// routes in one handler, with pgx, go-redis and html/template set up exactly as the Go
// reference sets them up (go-shared/). Run it with `make up APP=fasthttp`; settings come from
// the environment as for every app (docs/spec.md §1).
package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"blogbench/goshared/blog"
	"blogbench/goshared/pagecache"
	"blogbench/goshared/workload"

	"github.com/valyala/fasthttp"
)

func main() {
	cfg, err := workload.LoadConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fasthttp:", err)
		os.Exit(2)
	}
	runtime.GOMAXPROCS(cfg.Workers)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "fasthttp:", err)
		os.Exit(1)
	}
}

// run serves until ctx is done, then shuts down gracefully.
func run(ctx context.Context, cfg workload.Config) error {
	// region: pool
	db, err := blog.OpenDB(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	// endregion
	rdb, err := pagecache.OpenRedis(cfg)
	if err != nil {
		return err
	}
	defer rdb.Close()
	a, err := newApp(blog.NewStore(db), pagecache.New(rdb))
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", cfg.Bind)
	if err != nil {
		return fmt.Errorf("BIND: %w", err)
	}
	srv := a.server()
	fmt.Printf("fasthttp listening on http://%s/\n", cfg.Bind)

	return workload.ServeUntilDone(ctx, func() error { return srv.Serve(ln) }, srv.ShutdownWithContext)
}

// server is the fasthttp server, set up to answer as Go's net/http does where the contract
// looks (docs/spec.md §3.8).
func (a *app) server() *fasthttp.Server {
	return &fasthttp.Server{
		Handler: a.route,
		// fasthttp has no header-only timeout: ReadTimeout bounds a whole request (header and
		// body) from its first byte, and a new connection's wait for it; IdleTimeout a
		// keep-alive connection's wait for its next request (docs/spec.md §1).
		ReadTimeout: workload.HeaderTimeout,
		IdleTimeout: workload.HeaderTimeout,
		// The comment route reads its body itself, at most FormLimit + 1 bytes, as net/http
		// does: the server reads at most 8 KiB before the handler and afterwards drains up to
		// 256 KiB of what is left or closes the connection (server.go, serveConn). Without
		// streaming it would read every body whole before routing and refuse one over
		// MaxRequestBodySize with its own 400, whatever the route.
		StreamRequestBody: true,
		// A multipart body is the comment route's 415, not a form the server parses first.
		DisablePreParseMultipartForm: true,
		// Every answer sets its own Content-Type, and the 303 has none.
		NoDefaultContentType: true,
		// Go sends no Server header; Connection: close on answers during shutdown, as Go's.
		NoDefaultServerHeader: true,
		CloseOnShutdown:       true,
	}
}

// route is the server's handler: the seven routes of docs/spec.md §3 in one switch, then the
// 404 page for everything else. A GET route serves HEAD too, and another method on a routed
// path gets the 404 page, as with Go's ServeMux.
func (a *app) route(ctx *fasthttp.RequestCtx) {
	p := segments(ctx.URI().PathOriginal())
	get, post := ctx.IsGet() || ctx.IsHead(), ctx.IsPost()
	switch {
	case get && p.is(""):
		a.home(ctx)
	case get && p.is("posts", "{slug}"):
		a.withSlug(ctx, p[1], a.post)
	case get && p.is("tags", "{slug}"):
		a.withSlug(ctx, p[1], a.tag)
	case get && p.is("cached", ""):
		a.cachedHome(ctx)
	case get && p.is("cached", "posts", "{slug}"):
		a.withSlug(ctx, p[2], a.cachedPost)
	case get && p.is("compute"):
		compute(ctx)
	case post && p.is("posts", "{slug}", "comments"):
		a.withSlug(ctx, p[1], a.comment)
	default:
		a.notFoundPage(ctx)
	}
}
