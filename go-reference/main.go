// Command go-reference is blogbench's reference app and HTML oracle: Go's net/http, pgx and
// go-redis, rendering the pages every other app must match byte for byte (docs/spec.md).
package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
)

func main() {
	cfg, err := loadConfig()
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
func run(ctx context.Context, cfg config) error {
	db, err := openDB(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	rdb, err := openRedis(cfg)
	if err != nil {
		return err
	}
	defer rdb.Close()
	a, err := newApp(db, &pageCache{rdb: rdb})
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", cfg.Bind)
	if err != nil {
		return fmt.Errorf("BIND: %w", err)
	}
	// A client gets 10 s to send a request's header (docs/spec.md §1): without a limit, net/http
	// keeps a connection that sends nothing, or a byte a second, open forever.
	srv := &http.Server{Handler: a.routes(), ReadHeaderTimeout: headerTimeout}
	fmt.Printf("go-reference listening on http://%s/\n", cfg.Bind)

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// headerTimeout is how long a connection may take to send a request header.
const headerTimeout = 10 * time.Second

// openDB makes the Postgres pool. It connects lazily, so the app starts (and answers 503)
// while Postgres is down, and recovers by itself when it returns.
func openDB(ctx context.Context, cfg config) (*pgxpool.Pool, error) {
	pc, err := pgxpool.ParseConfig(cfg.DatabaseURL)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_URL: %w", err)
	}
	pc.MaxConns = cfg.PoolMax
	pc.MinConns = cfg.PoolMin
	switch cfg.PingOnAcquire { // "idle" is pgxpool's own rule: idle for more than a second
	case "always":
		pc.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return true }
	case "never":
		pc.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return false }
	}
	return pgxpool.NewWithConfig(ctx, pc)
}

// openRedis makes the Redis client. Short timeouts and no retries: a cache that does not
// answer quickly is skipped (the page comes from the database), and go-redis redials by
// itself when Redis returns.
func openRedis(cfg config) (*redis.Client, error) {
	opt, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		return nil, fmt.Errorf("REDIS_URL: %w", err)
	}
	opt.DialTimeout = 250 * time.Millisecond
	opt.DialerRetries = 1
	opt.ReadTimeout = time.Second
	opt.WriteTimeout = time.Second
	opt.MaxRetries = -1
	return redis.NewClient(opt), nil
}
