package blogbench.webflux;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** The slug, /compute and comment-form rules against workload/testdata. */
class RulesTests {

	@Test
	void slugs() {
		JsonNode vectors = SharedVectors.read("workload/testdata/slugs.json");
		assertThat(vectors).isNotEmpty();
		for (JsonNode vector : vectors) {
			// The segment as Spring's PathPattern hands it over: percent-decoded as
			// UTF-8.
			String segment = new String(percentDecoded(vector.get(0).asString()), StandardCharsets.UTF_8);
			assertThat(Slugs.isSlug(segment)).as(vector.get(0).asString()).isEqualTo(vector.get(1).asBoolean());
		}
	}

	@Test
	void computeQueries() {
		JsonNode vectors = SharedVectors.read("workload/testdata/compute-queries.json");
		assertThat(vectors).isNotEmpty();
		for (JsonNode vector : vectors) {
			String query = vector.get(0).asString();
			OptionalLong expected = vector.get(1).isNull() ? OptionalLong.empty()
					: OptionalLong.of(vector.get(1).asLong());
			assertThat(Compute.parseN(query)).as(query).isEqualTo(expected);
			// What QueryEscaper makes of a query java.net.URI refuses reads alike.
			assertThat(Compute.parseN(QueryEscaper.escape(query))).as("escaped " + query).isEqualTo(expected);
		}
	}

	@Test
	void theQueryEscaperLeavesAValidQueryAsItIs() {
		assertThat(QueryEscaper.escape("n=%31%30&x=a+b;c")).isEqualTo("n=%31%30&x=a+b;c");
		assertThat(QueryEscaper.escape("x=%zz&n=10&q=\"é")).isEqualTo("x=;zz&n=10&q=%22%E9");
	}

	@Test
	void sumOfPrimes() {
		assertThat(Compute.sumOfPrimesBelow(Compute.DEFAULT_N)).isEqualTo(21171191);
		assertThat(Compute.sumOfPrimesBelow(2)).isZero();
		assertThat(Compute.sumOfPrimesBelow(10)).isEqualTo(17);
	}

	@Test
	void commentForms() {
		JsonNode vectors = SharedVectors.read("workload/testdata/comment-forms.json");
		assertThat(vectors).isNotEmpty();
		for (JsonNode vector : vectors) {
			byte[] form = vector.get(0).asString().getBytes(StandardCharsets.UTF_8);
			JsonNode expected = vector.get(1);
			if (expected.has("error")) {
				assertThatExceptionOfType(CommentForm.Refusal.class).as(vector.get(0).asString())
					.isThrownBy(() -> CommentForm.parse(form))
					.satisfies((refusal) -> {
						assertThat(refusal.getMessage()).isEqualTo(expected.get("error").asString());
						assertThat(refusal.status()).isEqualTo(400);
					});
			}
			else {
				assertThat(CommentForm.parse(form)).as(vector.get(0).asString())
					.isEqualTo(new CommentForm.Comment(expected.get("author_name").asString(),
							expected.get("body").asString()));
			}
		}
	}

	@Test
	void aFormOverTheLimitIsTooLarge() {
		assertThatExceptionOfType(CommentForm.Refusal.class)
			.isThrownBy(() -> CommentForm.parse(new byte[CommentForm.LIMIT + 1]))
			.satisfies((refusal) -> assertThat(refusal.status()).isEqualTo(413));
	}

	@Test
	void formContentTypes() {
		assertThat(CommentForm.isForm("application/x-www-form-urlencoded")).isTrue();
		assertThat(CommentForm.isForm(" \tAPPLICATION/X-WWW-FORM-URLENCODED ; charset=UTF-8")).isTrue();
		assertThat(CommentForm.isForm(null)).isFalse();
		assertThat(CommentForm.isForm("")).isFalse();
		assertThat(CommentForm.isForm("text/plain")).isFalse();
		assertThat(CommentForm.isForm("multipart/form-data")).isFalse();
		assertThat(CommentForm.isForm("application/x-www-form-urlencodedx")).isFalse();
		// equalsIgnoreCase would take it: U+0131 (dotless i) upper-cases to I.
		assertThat(CommentForm.isForm("application/x-www-form-urlencoded")).isTrue();
		assertThat(CommentForm.isForm(" \tAPPLICATION/X-WWW-FORM-URLENCODED ; charset=UTF-8")).isTrue();
		assertThat(CommentForm.isForm(null)).isFalse();
		assertThat(CommentForm.isForm("")).isFalse();
		assertThat(CommentForm.isForm("text/plain")).isFalse();
		assertThat(CommentForm.isForm("multipart/form-data")).isFalse();
		assertThat(CommentForm.isForm("application/x-www-form-urlencodedx")).isFalse();
		// String#equalsIgnoreCase would take this one: U+0131 (dotless i) upper-cases to
		// I.
		assertThat(CommentForm.isForm("appl\u0131cation/x-www-form-urlencoded")).isFalse();
	}

	private static byte[] percentDecoded(String text) {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
		for (int i = 0; i < bytes.length; i++) {
			if (bytes[i] == '%') {
				out.write(Integer.parseInt(text.substring(i + 1, i + 3), 16));
				i += 2;
			}
			else {
				out.write(bytes[i]);
			}
		}
		return out.toByteArray();
	}

}
