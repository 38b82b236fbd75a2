package blogbench.webflux;

import reactor.netty.NettyPipeline;

import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The Reactor Netty server as Spring Boot makes it (BIND, the idle timeout in
 * application.properties), with {@link QueryEscaper} after the HTTP codec.
 */
@Configuration(proxyBeanMethods = false)
public class ServerConfiguration {

	private static final QueryEscaper QUERY_ESCAPER = new QueryEscaper();

	@Bean
	NettyServerCustomizer queryEscaper() {
		return (server) -> server.doOnChannelInit((observer, channel, remoteAddress) -> channel.pipeline()
			.addAfter(NettyPipeline.HttpCodec, "blogbench.queryEscaper", QUERY_ESCAPER));
	}

}
