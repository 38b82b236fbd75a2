// Command go-reference is blogbench's reference app and HTML oracle: Go's net/http, pgx and
// go-redis, rendering the pages every other app must match byte for byte (docs/spec.md). The
// rules, SQL, templates and page cache it shares with the other Go apps are in go-shared/;
// this folder has what a reader compares frameworks on: routing, handlers, start-up.
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
)

func main() {
	cfg, err := workload.LoadConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, "go-reference:", err)
		os.Exit(2)
	}
	runtime.GOMAXPROCS(cfg.Workers)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "go-reference:", err)
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
	// A client gets 10 s to send a request's header (docs/spec.md §1): without a limit, net/http
	// keeps a connection that sends nothing, or a byte a second, open forever.
	srv := &http.Server{Handler: a.routes(), ReadHeaderTimeout: workload.HeaderTimeout}
	fmt.Printf("go-reference listening on http://%s/\n", cfg.Bind)

	return workload.ServeUntilDone(ctx, func() error { return srv.Serve(ln) }, srv.Shutdown)
}
