package workload

import (
	"context"
	"time"
)

// HeaderTimeout is how long a connection may take to send a request's header (docs/spec.md
// §1): without a limit, a connection that sends nothing, or a byte a second, stays open
// forever.
const HeaderTimeout = 10 * time.Second

// ShutdownGrace is how long a stopping server gets to finish the requests in flight.
const ShutdownGrace = 10 * time.Second

// ServeUntilDone runs serve until it fails or ctx is done (Ctrl-C, SIGTERM); then it gives
// shutdown ShutdownGrace to finish the requests in flight. The Go apps' servers differ in
// how they serve and stop, not in when.
func ServeUntilDone(ctx context.Context, serve func() error, shutdown func(context.Context) error) error {
	served := make(chan error, 1)
	go func() { served <- serve() }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
	defer cancel()
	return shutdown(shutdownCtx)
}
