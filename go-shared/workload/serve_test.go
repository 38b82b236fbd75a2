package workload

import (
	"context"
	"errors"
	"testing"
)

func TestServeUntilDoneShutsDownWhenTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	shutdownCalled := false
	cancel()
	err := ServeUntilDone(ctx,
		func() error { <-stopped; return nil },
		func(shutdownCtx context.Context) error {
			shutdownCalled = true
			if _, ok := shutdownCtx.Deadline(); !ok {
				t.Error("shutdown got no deadline")
			}
			close(stopped)
			return nil
		})
	if err != nil || !shutdownCalled {
		t.Fatalf("err %v, shutdown called %v; want nil, true", err, shutdownCalled)
	}
}

func TestServeUntilDoneReturnsTheServersError(t *testing.T) {
	failed := errors.New("listener closed")
	err := ServeUntilDone(context.Background(),
		func() error { return failed },
		func(context.Context) error { t.Error("shutdown called"); return nil })
	if !errors.Is(err, failed) {
		t.Fatalf("err %v; want %v", err, failed)
	}
}
