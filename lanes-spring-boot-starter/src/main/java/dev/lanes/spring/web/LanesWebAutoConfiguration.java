package dev.lanes.spring.web;

import dev.lanes.command.CommandGateway;
import dev.lanes.command.DispatchInterceptor;
import dev.lanes.command.lane.HandlerInterceptor;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.spring.LanesAutoConfiguration;
import dev.lanes.spring.LanesBuilderCustomizer;
import jakarta.validation.Validator;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import tools.jackson.databind.json.JsonMapper;

/**
 * The HTTP command endpoint and the dispatch interceptors.
 *
 * <ul>
 *   <li>{@link DispatchInterceptor} beans are added to the {@code Lanes} builder in {@code @Order} order, so the
 *       gateway runs them on every send (the endpoint's and the application's own); {@link HandlerInterceptor} beans
 *       likewise, around every command handler in its lane;
 *   <li>with Jakarta Validation on the classpath and a {@code Validator} bean ({@code spring-boot-starter-validation}),
 *       a {@link BeanValidationInterceptor} validates every command before it is sent;
 *   <li>in a Spring MVC or WebFlux application (with Jackson, {@code lanes.web.enabled} not false): {@code POST
 *       {lanes.web.base-path}/{aggregate}/{id}/{command}} with the command as a JSON body, the request id in {@code
 *       Idempotency-Key} and {@code ?wait=SENT|PROCESSED|PROJECTED}; its OpenAPI 3.1 document at {@code
 *       {lanes.web.base-path}/openapi.json}; a {@link PrincipalInterceptor} stores the request's authenticated
 *       principal in the command's headers.
 * </ul>
 */
@AutoConfiguration(
        after = LanesAutoConfiguration.class,
        afterName = {
            "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
            "org.springframework.boot.validation.autoconfigure.ValidationAutoConfiguration"
        })
@EnableConfigurationProperties(LanesWebProperties.class)
public final class LanesWebAutoConfiguration {

    @Bean
    LanesBuilderCustomizer lanesInterceptors(
            ObjectProvider<DispatchInterceptor> dispatch, ObjectProvider<HandlerInterceptor> handler) {
        return builder -> {
            dispatch.orderedStream().forEach(builder::dispatchInterceptor);
            handler.orderedStream().forEach(builder::handlerInterceptor);
        };
    }

    /** Bean Validation of every command, before it is sent. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(Validator.class)
    @ConditionalOnBean(Validator.class)
    static class Validation {
        @Bean
        @ConditionalOnMissingBean
        BeanValidationInterceptor lanesBeanValidation(Validator validator) {
            return new BeanValidationInterceptor(validator);
        }
    }

    /** The endpoint, whichever web stack runs it. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication
    @ConditionalOnClass(JsonMapper.class)
    @ConditionalOnBean(CommandGateway.class)
    @ConditionalOnProperty(name = "lanes.web.enabled", matchIfMissing = true)
    @Import({LanesWebMvcConfiguration.class, LanesWebFluxConfiguration.class})
    static class Endpoint {
        @Bean
        @ConditionalOnMissingBean
        PrincipalInterceptor lanesPrincipal() {
            return new PrincipalInterceptor();
        }

        @Bean
        CommandEndpoint lanesCommandEndpoint(
                CommandGateway gateway,
                ObjectProvider<AggregateDefinition<?>> aggregates,
                ObjectProvider<CommandNaming> naming,
                ObjectProvider<JsonMapper> json,
                LanesWebProperties properties) {
            CommandCatalog catalog = new CommandCatalog(
                    aggregates.orderedStream().toList(), naming.getIfUnique(() -> CommandNaming.SIMPLE_NAME));
            return new CommandEndpoint(
                    gateway,
                    catalog,
                    json.getIfUnique(() -> JsonMapper.builder().build()),
                    properties);
        }
    }
}
