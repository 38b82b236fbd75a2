package blogbench.webflux;

import com.samskivert.mustache.Mustache;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Mustache as Spring Boot sets it up (templates from classpath:/templates/*.mustache),
 * with Go html/template's escaper in place of JMustache's HTML one.
 */
@Configuration(proxyBeanMethods = false)
public class TemplateConfiguration {

	@Bean
	Mustache.Compiler mustacheCompiler(Mustache.TemplateLoader mustacheTemplateLoader) {
		return Mustache.compiler().withLoader(mustacheTemplateLoader).withEscaper(new HtmlEscaper());
	}

}
