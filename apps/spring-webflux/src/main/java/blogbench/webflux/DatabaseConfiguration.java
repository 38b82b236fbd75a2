package blogbench.webflux;

import java.time.Duration;

import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.spi.ConnectionFactories;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The PostgreSQL pool (docs/spec.md §1). Spring Boot makes DatabaseClient and the R2DBC
 * transaction manager from this ConnectionFactory; its spring.r2dbc.* properties are not
 * used, as the pool is set from the environment and needs the ping rule's hooks.
 */
@Configuration(proxyBeanMethods = false)
public class DatabaseConfiguration {

	/** A request waits at most this long for a connection, then gets the 503. */
	static final Duration ACQUIRE_TIMEOUT = Duration.ofSeconds(3);

	/** pgxpool's MaxConnIdleTime (r2dbc-pool's default is the same). */
	static final Duration MAX_IDLE_TIME = Duration.ofMinutes(30);

	// region: pool
	/**
	 * At most POOL_MAX connections, POOL_MIN of them opened on first use and kept while
	 * idle. Nothing connects at start-up (Spring Boot does not warm an R2DBC pool up), so
	 * the app starts, and answers 503, while PostgreSQL is down.
	 * @param settings the environment
	 * @return the pool
	 */
	@Bean(destroyMethod = "dispose")
	ConnectionPool connectionFactory(Settings settings) {
		PingOnAcquire ping = new PingOnAcquire(settings.pingOnAcquire(), MAX_IDLE_TIME);
		ConnectionPoolConfiguration configuration = ConnectionPoolConfiguration
			.builder(ConnectionFactories.get(settings.database()))
			.maxSize(settings.poolMax())
			.initialSize(settings.poolMin())
			.minIdle(settings.poolMin())
			.maxAcquireTime(ACQUIRE_TIMEOUT)
			.maxCreateConnectionTime(ACQUIRE_TIMEOUT)
			.maxIdleTime(MAX_IDLE_TIME)
			// An acquire that failed is not tried again: a retry would wait for a stalled
			// database a second time (r2dbc-pool retries once by default), and
			// connections
			// left dead by a restart are dropped before they are handed out
			// (PingOnAcquire).
			.acquireRetry(0)
			.customizer((pool) -> pool.evictionPredicate(ping::evict))
			.postAllocate(ping::check)
			.build();
		return new ConnectionPool(configuration);
	}
	// endregion

}
