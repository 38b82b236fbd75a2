package blogbench.webflux;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The SQL text against shared-sql/queries.json, byte for byte, every statement and no
 * more.
 */
class QueriesTests {

	@Test
	void theStatementsAreSharedSqls() throws IllegalAccessException {
		Map<String, String> shared = new TreeMap<>();
		for (Map.Entry<String, JsonNode> query : SharedVectors.read("shared-sql/queries.json").properties()) {
			shared.put(query.getKey(), query.getValue().asString());
		}
		Map<String, String> ours = new TreeMap<>();
		for (Field field : Queries.class.getDeclaredFields()) {
			if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
				ours.put(field.getName(), (String) field.get(null));
			}
		}
		assertThat(ours).isEqualTo(shared);
	}

}
