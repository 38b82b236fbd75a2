package blogbench.webflux;

import java.nio.charset.StandardCharsets;

import com.samskivert.mustache.Mustache;
import com.samskivert.mustache.Template;

import org.springframework.stereotype.Component;

/**
 * The pages, Mustache templates (src/main/resources/templates) compiled once and rendered
 * to bytes: the cached routes store the bytes, and a whole page gets its Content-Length.
 */
@Component
public class Pages {

	private final Template home;

	private final Template post;

	private final Template tag;

	private final byte[] notFound;

	public Pages(Mustache.Compiler compiler) {
		this.home = compiler.loadTemplate("home");
		this.post = compiler.loadTemplate("post");
		this.tag = compiler.loadTemplate("tag");
		this.notFound = render(compiler.loadTemplate("not_found"), null);
	}

	byte[] home(Views.HomePage page) {
		return render(this.home, page);
	}

	byte[] post(Views.PostPage page) {
		return render(this.post, page);
	}

	byte[] tag(Views.TagPage page) {
		return render(this.tag, page);
	}

	/**
	 * The 404 page, rendered once.
	 * @return its bytes
	 */
	byte[] notFound() {
		return this.notFound;
	}

	private static byte[] render(Template template, Object page) {
		return template.execute(page).getBytes(StandardCharsets.UTF_8);
	}

}
