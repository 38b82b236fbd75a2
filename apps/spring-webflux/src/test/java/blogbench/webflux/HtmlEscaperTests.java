package blogbench.webflux;

import java.util.Map;

import com.samskivert.mustache.Mustache;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The escaper against templates/testdata/escape-vectors.json (Go html/template's output).
 */
class HtmlEscaperTests {

	private final JsonNode vectors = SharedVectors.read("templates/testdata/escape-vectors.json");

	@Test
	void escapesEveryVectorAsGo() {
		HtmlEscaper escaper = new HtmlEscaper();
		assertThat(this.vectors).isNotEmpty();
		for (JsonNode vector : this.vectors) {
			assertThat(escaper.escape(vector.get(0).asString())).as(vector.get(0).asString())
				.isEqualTo(vector.get(1).asString());
		}
	}

	@Test
	void theMustacheCompilerEscapesWithIt() {
		Mustache.Compiler compiler = new TemplateConfiguration().mustacheCompiler((name) -> {
			throw new UnsupportedOperationException(name);
		});
		for (JsonNode vector : this.vectors) {
			String printed = compiler.compile("{{text}}").execute(Map.of("text", vector.get(0).asString()));
			assertThat(printed).isEqualTo(vector.get(1).asString());
		}
	}

}
