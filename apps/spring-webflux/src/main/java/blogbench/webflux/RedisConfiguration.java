package blogbench.webflux;

import java.time.Duration;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.ClientOptions.DisconnectedBehavior;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The Lettuce client of the page cache, set up so that a Redis outage is a cache miss at
 * once (docs/spec.md §1): Lettuce by default queues commands while it is disconnected and
 * replays them once it has reconnected, waits 60 s for a reply and 10 s to connect, and
 * backs off up to 30 s between reconnection attempts.
 */
@Configuration(proxyBeanMethods = false)
public class RedisConfiguration {

	static final Duration CONNECT_TIMEOUT = Duration.ofMillis(250);

	static final Duration REPLY_TIMEOUT = Duration.ofSeconds(1);

	static final Duration RECONNECT_DELAY = Duration.ofMillis(100);

	/**
	 * Lettuce's event loop, WORKERS threads like Reactor Netty's, and a constant delay
	 * between reconnection attempts (ClientResources#reconnectDelay; the default grows to
	 * 30 s), so that the cache is back soon after Redis is.
	 * @param settings the environment
	 * @return the client's resources
	 */
	@Bean(destroyMethod = "shutdown")
	ClientResources redisClientResources(Settings settings) {
		return ClientResources.builder()
			.ioThreadPoolSize(settings.workers())
			.computationThreadPoolSize(settings.workers())
			.reconnectDelay(Delay.constant(RECONNECT_DELAY))
			.build();
	}

	// region: cache
	/**
	 * REDIS_URL, with the 1 s reply timeout as its timeout: Lettuce bounds a connection's
	 * handshake (HELLO, PING) by it (RedisClient#connectAsync), and a Redis that accepts
	 * connections but does not answer would otherwise hold a request 60 s.
	 * @param settings the environment
	 * @return where Redis is
	 */
	@Bean
	RedisURI redisUri(Settings settings) {
		return RedisURI.builder(settings.redis()).withTimeout(REPLY_TIMEOUT).build();
	}

	/**
	 * The client. ClientOptions: a command sent while disconnected fails at once instead
	 * of waiting in the queue for a reconnection (DisconnectedBehavior.REJECT_COMMANDS);
	 * a reply waits at most 1 s (TimeoutOptions), a connection 250 ms (SocketOptions);
	 * Lettuce still reconnects by itself (autoReconnect) once it has had a connection.
	 * @param resources the client's resources
	 * @return the client
	 */
	@Bean(destroyMethod = "shutdown")
	RedisClient redisClient(ClientResources resources) {
		RedisClient client = RedisClient.create(resources);
		client.setOptions(ClientOptions.builder()
			.disconnectedBehavior(DisconnectedBehavior.REJECT_COMMANDS)
			.timeoutOptions(TimeoutOptions.enabled(REPLY_TIMEOUT))
			.socketOptions(SocketOptions.builder().connectTimeout(CONNECT_TIMEOUT).build())
			.autoReconnect(true)
			.build());
		return client;
	}
	// endregion

}
