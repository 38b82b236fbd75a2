package blogbench.webflux;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Map;

import io.lettuce.core.RedisURI;
import io.r2dbc.spi.ConnectionFactoryOptions;

/**
 * The environment every blogbench app reads (docs/spec.md §1), parsed as
 * go-shared/workload/config.go parses it: an unset variable takes its default, a variable
 * set even to the empty string is a value, and a bad value stops the app at start-up with
 * a message that names the variable.
 *
 * @param database DATABASE_URL as R2DBC options
 * @param redis REDIS_URL
 * @param host the address part of BIND (empty: every address)
 * @param port the port part of BIND
 * @param workers WORKERS: the event-loop threads
 * @param poolMax POOL_MAX
 * @param poolMin POOL_MIN
 * @param pingOnAcquire PING_ON_ACQUIRE
 */
public record Settings(ConnectionFactoryOptions database, RedisURI redis, String host, int port, int workers,
		int poolMax, int poolMin, Ping pingOnAcquire) {

	static final String DEFAULT_DATABASE_URL = "postgres://blogbench:blogbench@127.0.0.1:5432/blogbench?sslmode=disable";

	static final String DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0";

	static final String DEFAULT_BIND = "127.0.0.1:8080";

	private static final long U32_MAX = 0xFFFF_FFFFL;

	/** When the pool pings a connection before handing it out. */
	public enum Ping {

		/** Every connection. */
		ALWAYS,

		/** A connection idle for more than 1 s (pgxpool's rule). */
		IDLE,

		/** None. */
		NEVER

	}

	/**
	 * The settings in an environment ({@code System.getenv()}, or a map in tests).
	 * @param environment the variables
	 * @return the settings
	 * @throws SettingsException when a variable has a bad value; the message names it
	 */
	public static Settings fromEnvironment(Map<String, String> environment) {
		String ping = environment.getOrDefault("PING_ON_ACQUIRE", "idle");
		Ping pingOnAcquire = switch (ping) {
			case "always" -> Ping.ALWAYS;
			case "idle" -> Ping.IDLE;
			case "never" -> Ping.NEVER;
			default ->
				throw new SettingsException("PING_ON_ACQUIRE must be always, idle or never, got \"" + ping + "\"");
		};
		long workers = positive(environment, "WORKERS", 4);
		long poolMax = positive(environment, "POOL_MAX", 16);
		long poolMin = positive(environment, "POOL_MIN", 4);
		if (poolMin > poolMax) {
			throw new SettingsException("POOL_MIN (" + poolMin + ") must not exceed POOL_MAX (" + poolMax + ")");
		}
		// Java counts threads and pooled connections in an int (Go's pgxpool in an
		// int32).
		atMostIntMax("WORKERS", workers);
		atMostIntMax("POOL_MAX", poolMax);
		String bind = environment.getOrDefault("BIND", DEFAULT_BIND);
		int colon = bind.lastIndexOf(':');
		String port = bind.substring(colon + 1);
		if (colon == -1 || !port.matches("[0-9]{1,5}") || Integer.parseInt(port) > 65535) {
			throw new SettingsException("BIND must be host:port, got \"" + bind + "\"");
		}
		String host = bind.substring(0, colon);
		if (host.startsWith("[") && host.endsWith("]")) {
			host = host.substring(1, host.length() - 1);
		}
		return new Settings(database(environment.getOrDefault("DATABASE_URL", DEFAULT_DATABASE_URL)),
				redis(environment.getOrDefault("REDIS_URL", DEFAULT_REDIS_URL)), host, Integer.parseInt(port),
				(int) workers, (int) poolMax, (int) poolMin, pingOnAcquire);
	}

	/**
	 * A u32 above zero, as Rust's str::parse::<u32> reads it: decimal digits after an
	 * optional '+'.
	 */
	private static long positive(Map<String, String> environment, String name, long fallback) {
		String value = environment.get(name);
		if (value == null) {
			return fallback;
		}
		String digits = value.startsWith("+") ? value.substring(1) : value;
		if (digits.matches("[0-9]{1,10}")) {
			long n = Long.parseLong(digits);
			if (n >= 1 && n <= U32_MAX) {
				return n;
			}
		}
		throw new SettingsException(name + " must be a positive integer, got \"" + value + "\"");
	}

	private static void atMostIntMax(String name, long value) {
		if (value > Integer.MAX_VALUE) {
			throw new SettingsException(name + " must be at most " + Integer.MAX_VALUE + ", got " + value);
		}
	}

	/**
	 * A postgres:// URL as R2DBC options: the same URL under R2DBC's scheme, whose query
	 * parameters become driver options (r2dbc-postgresql reads {@code sslmode}).
	 */
	private static ConnectionFactoryOptions database(String url) {
		int scheme = url.indexOf("://");
		String name = (scheme == -1) ? "" : url.substring(0, scheme);
		if (!name.equals("postgres") && !name.equals("postgresql")) {
			throw new SettingsException("DATABASE_URL must be a postgres:// or postgresql:// URL");
		}
		try {
			new URI(url);
			return ConnectionFactoryOptions.parse("r2dbc:postgresql" + url.substring(scheme));
		}
		catch (URISyntaxException | IllegalArgumentException ex) {
			throw new SettingsException("DATABASE_URL: " + ex.getMessage());
		}
	}

	private static RedisURI redis(String url) {
		try {
			return RedisURI.create(url);
		}
		catch (IllegalArgumentException ex) {
			throw new SettingsException("REDIS_URL: " + ex.getMessage());
		}
	}

	/** A variable whose value is not what it must be; the message names it. */
	public static class SettingsException extends IllegalArgumentException {

		private static final long serialVersionUID = 1L;

		SettingsException(String message) {
			super(message);
		}

	}

}
