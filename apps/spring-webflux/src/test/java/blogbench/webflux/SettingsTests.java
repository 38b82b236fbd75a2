package blogbench.webflux;

import java.util.Map;

import io.r2dbc.spi.ConnectionFactoryOptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** The environment parsed as go-shared/workload/config.go parses it. */
class SettingsTests {

	@Test
	void defaults() {
		Settings settings = Settings.fromEnvironment(Map.of());
		assertThat(settings.host()).isEqualTo("127.0.0.1");
		assertThat(settings.port()).isEqualTo(8080);
		assertThat(settings.workers()).isEqualTo(4);
		assertThat(settings.poolMax()).isEqualTo(16);
		assertThat(settings.poolMin()).isEqualTo(4);
		assertThat(settings.pingOnAcquire()).isEqualTo(Settings.Ping.IDLE);
		ConnectionFactoryOptions database = settings.database();
		assertThat(database.getValue(ConnectionFactoryOptions.DRIVER)).isEqualTo("postgresql");
		assertThat(database.getValue(ConnectionFactoryOptions.HOST)).isEqualTo("127.0.0.1");
		assertThat(database.getValue(ConnectionFactoryOptions.PORT)).isEqualTo(5432);
		assertThat(database.getValue(ConnectionFactoryOptions.USER)).isEqualTo("blogbench");
		assertThat(database.getValue(ConnectionFactoryOptions.PASSWORD)).hasToString("blogbench");
		assertThat(database.getValue(ConnectionFactoryOptions.DATABASE)).isEqualTo("blogbench");
		assertThat(settings.redis().getHost()).isEqualTo("127.0.0.1");
		assertThat(settings.redis().getPort()).isEqualTo(6379);
		assertThat(settings.redis().getDatabase()).isZero();
	}

	@Test
	void values() {
		Settings settings = Settings
			.fromEnvironment(Map.of("WORKERS", "2", "BIND", "[::1]:9000", "POOL_MAX", "+8", "POOL_MIN", "8",
					"DATABASE_URL", "postgresql://x@h/db", "REDIS_URL", "redis://h:1/2", "PING_ON_ACQUIRE", "never"));
		assertThat(settings.host()).isEqualTo("::1");
		assertThat(settings.port()).isEqualTo(9000);
		assertThat(settings.workers()).isEqualTo(2);
		assertThat(settings.poolMax()).isEqualTo(8);
		assertThat(settings.poolMin()).isEqualTo(8);
		assertThat(settings.pingOnAcquire()).isEqualTo(Settings.Ping.NEVER);
		assertThat(settings.database().getValue(ConnectionFactoryOptions.HOST)).isEqualTo("h");
		assertThat(settings.database().getValue(ConnectionFactoryOptions.DATABASE)).isEqualTo("db");
		assertThat(settings.redis().getHost()).isEqualTo("h");
		assertThat(settings.redis().getDatabase()).isEqualTo(2);
	}

	@Test
	void anEmptyHostIsEveryAddress() {
		assertThat(Settings.fromEnvironment(Map.of("BIND", ":8081")).host()).isEmpty();
	}

	@Test
	void aPoolOrAThreadCountIsAnInt() {
		assertThat(Settings.fromEnvironment(Map.of("POOL_MAX", "2147483647")).poolMax()).isEqualTo(Integer.MAX_VALUE);
		// A u32, as Go reads it, but more than Java counts connections (Go's pgxpool:
		// int32).
		assertThatExceptionOfType(Settings.SettingsException.class)
			.isThrownBy(() -> Settings.fromEnvironment(Map.of("POOL_MAX", "4294967295")))
			.withMessage("POOL_MAX must be at most 2147483647, got 4294967295");
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			WORKERS | four
			WORKERS | ''
			WORKERS | -1
			WORKERS | +
			WORKERS | ' 4'
			WORKERS | 1_000
			WORKERS | ٤
			WORKERS | 4294967296
			POOL_MAX | 0
			POOL_MIN | 1.5
			POOL_MIN | 20
			PING_ON_ACQUIRE | 1
			PING_ON_ACQUIRE | ''
			PING_ON_ACQUIRE | IDLE
			DATABASE_URL | mysql://blogbench@127.0.0.1/blogbench
			DATABASE_URL | ''
			REDIS_URL | ''
			REDIS_URL | http://127.0.0.1:6379
			BIND | 127.0.0.1
			BIND | 127.0.0.1:http
			BIND | 127.0.0.1:65536
			""")
	void aBadValueNamesItsVariable(String name, String value) {
		assertThatExceptionOfType(Settings.SettingsException.class)
			.isThrownBy(() -> Settings.fromEnvironment(Map.of(name, value)))
			.withMessageStartingWith(name);
	}

}
