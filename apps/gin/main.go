// Command gin is the blog on Gin: Gin's router, context and middleware on Go's net/http
// server, with pgx, go-redis and html/template set up exactly as the Go reference sets them
// up (go-shared/). Run it with `make up APP=gin`; settings come from the environment as for
// every app (docs/spec.md §1).
package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"blogbench/goshared/blog"
	"blogbench/goshared/pagecache"
	"blogbench/goshared/workload"

	"github.com/gin-gonic/gin"
)

func main() {
	cfg, err := workload.LoadConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gin:", err)
		os.Exit(2)
	}
	runtime.GOMAXPROCS(cfg.Workers)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "gin:", err)
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
	// Gin serves through net/http, so the reference's header timeout applies as it is: a
	// client gets 10 s to send a request's header (docs/spec.md §1).
	srv := &http.Server{Handler: a.routes(), ReadHeaderTimeout: workload.HeaderTimeout}
	fmt.Printf("gin listening on http://%s/\n", cfg.Bind)

	return workload.ServeUntilDone(ctx, func() error { return srv.Serve(ln) }, srv.Shutdown)
}

// routes is the router: the seven routes of docs/spec.md §3, the slug check as middleware on
// the routes that take one, and the 404 page for everything else.
func (a *app) routes() *gin.Engine {
	gin.SetMode(gin.ReleaseMode) // no debug route listing or warnings
	r := gin.New()               // no logger and no recovery: net/http's, as in the reference
	// Route on the escaped path and unescape each parameter, as Go's ServeMux matches: an
	// encoded '/' stays inside its segment (gin.go, handleHTTPRequest). By default Gin routes
	// on the decoded path, where POST /posts/{slug}%2Fcomments would be the comment route.
	r.UseEscapedPath = true
	// No 301 to the path with or without a trailing slash: Go answers /posts/{slug}/ and
	// /compute/ with the 404 page.
	r.RedirectTrailingSlash = false
	// region: errors
	r.Use(a.answerErrors)
	// endregion

	r.GET("/", a.home)
	r.GET("/posts/:slug", a.requireSlug, a.post)
	r.GET("/tags/:slug", a.requireSlug, a.tag)
	r.GET("/cached/", a.cachedHome)
	r.GET("/cached/posts/:slug", a.requireSlug, a.cachedPost)
	r.GET("/compute", compute)
	r.POST("/posts/:slug/comments", a.requireSlug, a.comment)
	// Another method on a routed path is a path without a page too: HandleMethodNotAllowed
	// stays off, as Go answers it with the 404 page, not a 405.
	r.NoRoute(a.notFoundPage)
	return r
}
