package blogbench.webflux;

import java.time.Duration;
import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;

import io.r2dbc.spi.Connection;
import io.r2dbc.spi.R2dbcNonTransientResourceException;
import io.r2dbc.spi.ValidationDepth;
import reactor.core.publisher.Mono;
import reactor.pool.PooledRefMetadata;

/**
 * PING_ON_ACQUIRE (docs/spec.md §1) in r2dbc-pool's terms. r2dbc-pool validates every
 * connection it hands out at one depth (ConnectionPool#getValidation: a query or
 * Connection#validate), so "only after 1 s idle" is built from two of its hooks. The
 * reactor-pool eviction predicate, tested on each idle connection as it is taken, knows
 * how long it idled: it drops a connection whose socket is closed (a PostgreSQL restart)
 * or that idled past the pool's idle limit, and marks one the rule wants pinged. The
 * postAllocate hook, run on every hand-out, pings a marked connection ({@code SELECT 1}:
 * Connection#validate(REMOTE)); a failed ping makes r2dbc-pool invalidate the connection.
 */
final class PingOnAcquire {

	/** pgxpool's rule for PING_ON_ACQUIRE=idle. */
	static final Duration IDLE_BEFORE_PING = Duration.ofSeconds(1);

	private final Settings.Ping rule;

	private final long maxIdleMillis;

	// The connections to ping as they are handed out; weak, so that a dropped one goes.
	private final Set<Connection> toPing = Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

	PingOnAcquire(Settings.Ping rule, Duration maxIdleTime) {
		this.rule = rule;
		this.maxIdleMillis = maxIdleTime.toMillis();
	}

	/**
	 * The pool's eviction predicate: whether to drop an idle connection rather than hand
	 * it out (it is then closed and the next one taken, or a new one made).
	 * @param connection the idle connection
	 * @param metadata its pool metadata
	 * @return whether to evict it
	 */
	boolean evict(Connection connection, PooledRefMetadata metadata) {
		if (metadata.idleTime() >= this.maxIdleMillis || !isOpen(connection)) {
			return true;
		}
		boolean ping = switch (this.rule) {
			case ALWAYS -> true;
			case IDLE -> metadata.idleTime() > IDLE_BEFORE_PING.toMillis();
			case NEVER -> false;
		};
		if (ping) {
			this.toPing.add(connection);
		}
		return false;
	}

	/**
	 * The pool's postAllocate hook: pings a connection marked for it.
	 * @param connection the connection being handed out
	 * @return completes when it may be used, or fails, and the pool invalidates it
	 */
	Mono<Void> check(Connection connection) {
		if (!this.toPing.remove(connection)) {
			return Mono.empty();
		}
		return Mono.from(connection.validate(ValidationDepth.REMOTE))
			.flatMap((alive) -> alive ? Mono.empty()
					: Mono.error(new R2dbcNonTransientResourceException("the connection failed its ping")));
	}

	/**
	 * Whether the connection's socket is open. r2dbc-postgresql answers a LOCAL
	 * validation from the socket's state at once (PostgresqlConnection#validate:
	 * Mono.fromSupplier(client::isConnected)), so the answer is there on subscription.
	 */
	private static boolean isOpen(Connection connection) {
		return Mono.from(connection.validate(ValidationDepth.LOCAL)).toFuture().getNow(false);
	}

}
