package blog

import (
	"context"
	"testing"

	"blogbench/goshared/workload"

	"github.com/jackc/pgx/v5/pgxpool"
)

// OpenDB connects lazily, so the pool's settings can be read with nothing listening.
func TestOpenDB(t *testing.T) {
	for _, c := range []struct {
		ping string
		// "idle" leaves pgxpool's own rule (idle for more than a second): no ShouldPing.
		ownRule, pings bool
	}{{"idle", false, false}, {"always", true, true}, {"never", true, false}} {
		cfg := workload.Config{DatabaseURL: "postgres://blogbench@127.0.0.1:1/blogbench", PoolMax: 7, PoolMin: 3, PingOnAcquire: c.ping}
		db, err := OpenDB(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		pc := db.Config()
		db.Close()
		if pc.MaxConns != 7 || pc.MinConns != 3 {
			t.Errorf("PING_ON_ACQUIRE=%s: pool %d/%d, want 7/3", c.ping, pc.MaxConns, pc.MinConns)
		}
		if (pc.ShouldPing != nil) != c.ownRule || c.ownRule && pc.ShouldPing(context.Background(), pgxpool.ShouldPingParams{}) != c.pings {
			t.Errorf("PING_ON_ACQUIRE=%s: the wrong ping rule", c.ping)
		}
	}
	if _, err := OpenDB(context.Background(), workload.Config{DatabaseURL: "::"}); err == nil {
		t.Error("DATABASE_URL :: accepted")
	}
}
