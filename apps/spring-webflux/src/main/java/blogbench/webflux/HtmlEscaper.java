package blogbench.webflux;

import com.samskivert.mustache.Mustache;

/**
 * Go html/template's escaper for element content (docs/spec.md §3.4), as Mustache's
 * escaper: exactly {@code & < > " ' +} and NUL are replaced, every other character is
 * copied. JMustache's own HTML escaper writes {@code &quot;}, {@code &#39;},
 * {@code &#x60;} and {@code &#x3D;} and leaves {@code +} and NUL alone.
 */
public final class HtmlEscaper implements Mustache.Escaper {

	@Override
	public String escape(String raw) {
		StringBuilder out = null;
		int length = raw.length();
		for (int i = 0; i < length; i++) {
			String replacement = switch (raw.charAt(i)) {
				case '&' -> "&amp;";
				case '<' -> "&lt;";
				case '>' -> "&gt;";
				case '"' -> "&#34;";
				case '\'' -> "&#39;";
				case '+' -> "&#43;";
				case '\0' -> "\uFFFD";
				default -> null;
			};
			if (replacement != null && out == null) {
				out = new StringBuilder(length + 16).append(raw, 0, i);
			}
			if (out != null) {
				if (replacement != null) {
					out.append(replacement);
				}
				else {
					out.append(raw.charAt(i));
				}
			}
		}
		return (out != null) ? out.toString() : raw;
	}

}
