package blogbench.webflux;

import java.util.HashMap;
import java.util.Map;

import reactor.netty.ReactorNetty;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The blogbench blog on Spring WebFlux. Reads the environment (docs/spec.md §1) before
 * Spring does: a bad value stops the app with exit code 2 and a message naming the
 * variable.
 */
@SpringBootApplication
public class BlogApplication {

	public static void main(String[] args) {
		Settings settings;
		try {
			settings = Settings.fromEnvironment(System.getenv());
		}
		catch (Settings.SettingsException ex) {
			System.err.println("spring-webflux: " + ex.getMessage());
			System.exit(2);
			return;
		}
		// WORKERS: Reactor Netty's event-loop threads, for the HTTP server and R2DBC's
		// connections alike (read once, when its default LoopResources are made).
		System.setProperty(ReactorNetty.IO_WORKER_COUNT, Integer.toString(settings.workers()));
		SpringApplication application = new SpringApplication(BlogApplication.class);
		Map<String, Object> server = new HashMap<>();
		server.put("server.port", settings.port());
		if (!settings.host().isEmpty()) { // Go's net.Listen reads ":8080" as every
											// address
			server.put("server.address", settings.host());
		}
		application.setDefaultProperties(server);
		application.addInitializers((context) -> context.getBeanFactory().registerSingleton("settings", settings));
		application.run(args);
	}

}
