package blogbench.webflux;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpStatus;
import org.springframework.transaction.TransactionException;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

/**
 * The routes at a glance (docs/spec.md §3.1), as WebFlux's functional endpoints, and the
 * answers to the errors their handlers end with.
 */
@Configuration(proxyBeanMethods = false)
public class BlogRouter {

	private static final Log logger = LogFactory.getLog(BlogRouter.class);

	static final String DB_UNAVAILABLE_MESSAGE = "database unavailable\n";

	static final String INTERNAL_ERROR_MESSAGE = "internal server error\n";

	@Bean
	RouterFunction<ServerResponse> routes(BlogHandler blog) {
		return RouterFunctions.route()
			.GET("/", blog::home)
			.GET("/posts/{slug}", blog::post)
			.GET("/tags/{slug}", blog::tag)
			.GET("/cached/", blog::cachedHome)
			.GET("/cached/posts/{slug}", blog::cachedPost)
			.GET("/compute", blog::compute)
			.POST("/posts/{slug}/comments", blog::addComment)
			// Any other path or method: the 404 page, as Go's catch-all "/" pattern
			// answers.
			.route(RequestPredicates.all(), blog::notFound)
			.filter(blog::requireSlug)
			// region: errors
			.onError(NotFoundException.class, (notFound, request) -> blog.notFound())
			.onError(CommentForm.Refusal.class,
					(refusal, request) -> BlogHandler.text(HttpStatus.valueOf(refusal.status()), refusal.getMessage()))
			.onError((error) -> error instanceof DataAccessException || error instanceof TransactionException,
					(error, request) -> {
						logger.warn(request.method() + " " + request.path() + ": database unavailable: "
								+ error.getMessage());
						return BlogHandler.text(HttpStatus.SERVICE_UNAVAILABLE, DB_UNAVAILABLE_MESSAGE);
					})
			// A template that failed, or a bug.
			.onError((error) -> true, (error, request) -> {
				logger.error(request.method() + " " + request.path(), error);
				return BlogHandler.text(HttpStatus.INTERNAL_SERVER_ERROR, INTERNAL_ERROR_MESSAGE);
			})
			// endregion
			.build();
	}

}
