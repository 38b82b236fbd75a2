package blogbench.webflux;

import java.nio.file.Path;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The single sources the app's copies are tested against, read from the repository. */
final class SharedVectors {

	private static final Path REPOSITORY = Path.of("../..");

	private SharedVectors() {
	}

	/**
	 * A JSON file of the repository.
	 * @param path its path from the repository's root
	 * @return its contents
	 */
	static JsonNode read(String path) {
		return JsonMapper.shared().readTree(REPOSITORY.resolve(path).toFile());
	}

}
